import {
  decideWake,
  eventId,
  eventsQuery,
  type HubEvent,
  HubError,
  isHubError,
  listMessagesQuery,
  memberKindOf,
  type Message,
  parseInput,
  parsePingRate,
  pingsOf,
  postEventInput,
  postMessageInput,
  redactInput,
  redactionReasonVisible,
  replyPolicyOf,
  resolveMentions,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import { conversationNotFound, isProjectAdmin, projectOf, refuseClosed, refuseObserver, resolveConversation } from "./access.ts";
import type { LiveBus } from "./bus.ts";
import type { Caller } from "./caller.ts";
import { type KeyRow, readParticipants } from "./read.ts";

// Posting and reading chat messages, redaction, and the caller's slice of the event log (§9.1,
// §9.2, §8.2, §8.4). Both kinds go through the same write.

export const messageSelect = {
  seq: true,
  kind: true,
  fromId: true,
  toId: true,
  fromInstanceId: true,
  toInstanceId: true,
  body: true,
  mentions: true,
  sentAt: true,
  deliveredAt: true,
  redacted: true,
  payload: true,
  redaction: { select: { at: true, byId: true, reason: true } },
  conversation: { select: { publicId: true, kind: true } },
} as const;

export type MessageRow = {
  seq: number;
  kind: string;
  fromId: string;
  toId: string | null;
  fromInstanceId: string | null;
  toInstanceId: string | null;
  body: string | null;
  mentions: unknown;
  sentAt: Date;
  deliveredAt: Date | null;
  redacted: boolean;
  payload: unknown;
  redaction: { at: Date; byId: string; reason: string | null } | null;
  conversation: { publicId: string; kind: string } | null;
};

/** Who reads a message: the redaction reason shows to its redactor and to project admins (§8.5, docs/api.md). */
export type MessageReader = { id: string; admin: boolean };

export function renderMessage(row: MessageRow, reader: MessageReader): Message {
  const redacted = row.redacted;
  const direct = row.conversation?.kind === "direct";
  const message: Message = {
    id: eventId(row.seq),
    seq: row.seq,
    conversation_id: row.conversation?.publicId ?? "",
    from: row.fromId,
    to: row.toId ?? "",
    body: redacted ? null : row.body,
    sent_at: row.sentAt.toISOString(),
    mentions: redacted ? [] : (row.mentions as Message["mentions"]),
    attachments: [],
    from_instance: row.fromInstanceId,
    // §9.1: as the human wrote it; group chats always carry null.
    to_instance: direct ? row.toInstanceId : null,
    redacted,
    redaction: row.redaction
      ? {
          at: row.redaction.at.toISOString(),
          by: row.redaction.byId,
          reason: redactionReasonVisible(reader, row.redaction.byId) ? row.redaction.reason : null,
        }
      : null,
  };
  // A group message has no delivered_at: several recipients, no read receipts (§9.2).
  return direct ? withDelivered(message, row.deliveredAt) : message;
}

function withDelivered(message: Message, deliveredAt: Date | null): Message {
  const { id, seq, conversation_id, from, to, body, sent_at, ...rest } = message;
  return { id, seq, conversation_id, from, to, body, sent_at, delivered_at: deliveredAt?.toISOString() ?? null, ...rest };
}

/** One chat message as the write takes it, from either surface. */
export interface WriteInput {
  body: string;
  to_instance?: string | null | undefined;
  /** Agent API: the sender's metadata (reserved types refused by the route). */
  metadata?: Record<string, unknown> | null | undefined;
  replyToSeq?: number | null | undefined;
}

export function messagesService(db: Db, bus: LiveBus, hooks: { webhooksQueued?: () => void } = {}) {
  const pingRate = parsePingRate(process.env.MAITY_PING_RATE);

  async function readerOf(caller: Caller, projectId: string): Promise<MessageReader> {
    return { id: caller.id, admin: caller.kind === "human" && (await isProjectAdmin(db, projectId, caller.id)) };
  }

  /** The one write of a chat message: POST …/messages and POST …/events with type chat (M-158). */
  async function write(caller: Caller, row: KeyRow, data: WriteInput): Promise<Message> {
    refuseObserver(row);
    refuseClosed(row);
    if (row.kind === "group" && data.to_instance) throw HubError.invalid({ to_instance: "direct_only" }, "to_instance names an instance in a direct conversation only");
    const result = await db.$transaction(async (tx) => {
      const participants = (await readParticipants(tx, [row.key])).get(row.key) ?? [];
      // §9.1: a @handle in a direct conversation is plain text; §9.2: group mentions resolve to current participants.
      const resolved =
        row.kind === "group"
          ? resolveMentions(
              data.body,
              participants.map((p) => ({
                member_id: p.memberId,
                handle: p.handle,
                names: p.kind === "agent" ? [`${p.ownerHandle}/${p.handle}`] : p.displayName ? [p.displayName] : [],
              })),
            )
          : [];
      const pings = pingsOf(caller.id, resolved);
      if (pings > 0) await checkPingRate(tx, caller.id, pings);
      const direct = row.kind === "direct";
      const toInstance = direct && caller.kind === "human" ? (data.to_instance ?? null) : null;
      // §9.1: to_instance names one of the agent's instances (a replaced one still counts: it is kept as written).
      if (toInstance && !(await tx.agentInstance.findFirst({ where: { id: toInstance, agentId: row.agentId ?? "" }, select: { id: true } })))
        throw HubError.invalid({ to_instance: "not_an_instance" }, "to_instance names no instance of this agent");
      // The message replied to: one of this conversation's messages (B-125, B-126).
      const replyTo =
        data.replyToSeq == null
          ? null
          : await tx.event.findFirst({ where: { seq: data.replyToSeq, conversationId: row.key, kind: "message" }, select: { seq: true, fromId: true } });
      if (data.replyToSeq != null && !replyTo) throw HubError.invalid({ reply_to: "not_in_conversation" }, "the message replied to is not in this conversation");
      // B-068: the consecutive agent messages right before this one.
      const previous = await tx.event.findFirst({ where: { conversationId: row.key, kind: "message" }, orderBy: { seq: "desc" }, select: { agentRound: true } });
      const agentRoundsBefore = previous?.agentRound ?? 0;
      const policy = replyPolicyOf(row.policy.replyPolicy);
      // ROUTER matches the message against what each agent is for.
      const descriptions =
        row.kind === "group" && policy === "ROUTER"
          ? new Map((await tx.agent.findMany({ where: { id: { in: participants.filter((p) => p.kind === "agent").map((p) => p.memberId) } }, select: { id: true, description: true } })).map((a) => [a.id, a.description]))
          : new Map<string, string>();
      const wake = decideWake({
        conversationKind: row.kind,
        authorId: caller.id,
        authorKind: caller.kind,
        participants: participants.map((p) => ({
          member_id: p.memberId,
          kind: p.kind,
          ...(p.kind === "agent" ? { name: `${p.ownerHandle}/${p.handle}`, description: descriptions.get(p.memberId) ?? "" } : {}),
        })),
        mentions: resolved,
        toInstance,
        body: data.body,
        policy: { policy, designatedAgentId: row.policy.designatedAgentId, maxAgentRounds: row.policy.maxAgentRounds },
        replyTo: replyTo ? { id: replyTo.fromId, kind: memberKindOf(replyTo.fromId) ?? "human" } : null,
        agentRoundsBefore,
      });
      // B-063: the agents a human named ride in metadata.addressedAgents.
      const metadata = data.metadata || wake.addressedAgents.length ? { ...(data.metadata ?? {}), ...(wake.addressedAgents.length ? { addressedAgents: wake.addressedAgents } : {}) } : undefined;
      const toId = direct ? (participants.find((p) => p.memberId !== caller.id)?.memberId ?? row.agentId) : row.id;
      const event = await tx.event.create({
        data: {
          kind: "message",
          type: "chat",
          projectId: row.projectId,
          conversationId: row.key,
          fromId: caller.id,
          fromInstanceId: caller.kind === "agent" ? caller.instanceId : null,
          toId,
          toInstanceId: toInstance,
          body: data.body,
          mentions: resolved.map(({ instance, ...m }) => (instance ? { ...m, instance_id: instance } : m)),
          pings,
          agentRound: caller.kind === "agent" ? agentRoundsBefore + 1 : 0,
          replyToSeq: replyTo?.seq ?? null,
          ...(metadata ? { metadata: metadata as object } : {}),
          // The audience: every participant (§9.2) / the two parties (§9.1), fixed at write time.
          audience: { create: participants.map((p) => ({ memberId: p.memberId })) },
          verdicts: { create: wake.agents.map((v) => ({ agentId: v.agentId, instanceId: v.instanceId, shouldRespond: v.shouldRespond, reason: v.reason })) },
        },
        select: messageSelect,
      });
      // Webhook v2: one delivery per agent participant with a webhook, queued with the message and
      // sent after it commits, so a slow receiver never holds the writer (B-163).
      const agentIds = participants.filter((p) => p.kind === "agent" && p.memberId !== caller.id).map((p) => p.memberId);
      const hooked = agentIds.length ? await tx.webhook.findMany({ where: { agentId: { in: agentIds } }, select: { agentId: true } }) : [];
      if (hooked.length) await tx.webhookDelivery.createMany({ data: hooked.map((h) => ({ agentId: h.agentId, eventSeq: event.seq })) });
      // Only forward: a concurrent post with a higher seq may commit first.
      await tx.conversation.updateMany({ where: { id: row.key, OR: [{ lastSeq: null }, { lastSeq: { lt: event.seq } }] }, data: { lastSeq: event.seq, lastMessageAt: event.sentAt } });
      // Whoever speaks has read up to there (§9.2 Read and unread).
      await tx.participation.updateMany({ where: { conversationId: row.key, memberId: caller.id, leftAt: null }, data: { readMarkerSeq: event.seq } });
      return { event, audience: participants.map((p) => p.memberId), hooked: hooked.length > 0 };
    });
    bus.publish({ type: "event", seq: result.event.seq, conversationId: row.id, audience: result.audience });
    if (result.hooked) hooks.webhooksQueued?.();
    return renderMessage(result.event, await readerOf(caller, row.projectId));
  }

  /** §1.7: pings a writer may spend per window, counted from the log. */
  async function checkPingRate(tx: Tx, writerId: string, pings: number): Promise<void> {
    const since = new Date(Date.now() - pingRate.windowSeconds * 1000);
    const spent = (await tx.event.aggregate({ where: { fromId: writerId, kind: "message", sentAt: { gt: since } }, _sum: { pings: true } }))._sum.pings ?? 0;
    if (spent + pings > pingRate.pings)
      throw new HubError("rate_limited", `at most ${pingRate.pings} pings per ${pingRate.windowSeconds} s`, {
        limit: "pings",
        pings: pingRate.pings,
        window_seconds: pingRate.windowSeconds,
      });
  }

  /** The participant's read marker moves up to `highest` (§9.2 Read and unread); an observer marks nothing. */
  async function markRead(caller: Caller, row: KeyRow, highest: number): Promise<void> {
    if (row.access === "observer" || row.marker === null || highest <= row.marker) return;
    await db.participation.updateMany({
      where: { conversationId: row.key, memberId: caller.id, leftAt: null, readMarkerSeq: { lt: highest } },
      data: { readMarkerSeq: highest },
    });
    bus.publish({ type: "read", seq: highest, conversationId: row.id, audience: [caller.id] });
  }

  return {
    async post(caller: Caller, ref: unknown, conversationId: string, input: unknown): Promise<Message> {
      const data = parseInput(postMessageInput, input);
      return write(caller, await resolveConversation(db, caller, ref, conversationId), { body: data.body, to_instance: data.to_instance, replyToSeq: data.reply_to ?? null });
    },

    /** The agent API's write into a room it resolved itself (004 §7): the same write. */
    writeIn: write,
    markRead,

    /** §9.1: a direct message to `agentId` handed to it is delivered, once (v1.23: its own token only). */
    async markDeliveredTo(agentId: string, seqs: number[]): Promise<void> {
      if (seqs.length === 0) return;
      await db.event.updateMany({ where: { seq: { in: seqs }, toId: agentId, deliveredAt: null }, data: { deliveredAt: new Date() } });
    },

    /**
     * GET …/messages. Without `before`: the window after `after` (default: the read marker), oldest
     * first, moving the participant's marker and setting delivered_at once (§9.1). With `before`:
     * the chat's history, whenever the reader joined; marks nothing read, wakes nobody (§9.2).
     */
    async list(caller: Caller, ref: unknown, conversationId: string, query: unknown) {
      const q = parseInput(listMessagesQuery, query);
      if (q.after !== undefined && q.before !== undefined) throw HubError.invalid({ before: "not_with_after" }, "after and before together are invalid");
      const row = await resolveConversation(db, caller, ref, conversationId);
      const reader = await readerOf(caller, row.projectId);
      if (q.before !== undefined) {
        const rows = await db.event.findMany({
          where: { conversationId: row.key, kind: "message", seq: { lt: q.before } },
          orderBy: { seq: "desc" },
          take: q.limit + 1,
          select: messageSelect,
        });
        const page = rows.slice(0, q.limit).reverse();
        await markDelivered(caller, row, page);
        return { items: page.map((m) => renderMessage(m, reader)), earlier: rows.length > q.limit ? (page[0]?.seq ?? null) : null };
      }
      const from = Math.max(q.after ?? row.marker ?? row.windowSeq, row.windowSeq);
      const rows = await db.event.findMany({
        where: { conversationId: row.key, kind: "message", seq: { gt: from } },
        orderBy: { seq: "asc" },
        take: q.limit + 1,
        select: messageSelect,
      });
      const page = rows.slice(0, q.limit);
      const highest = page.at(-1)?.seq ?? 0;
      await markRead(caller, row, highest);
      await markDelivered(caller, row, page);
      return { items: page.map((m) => renderMessage(m, reader)), next_cursor: rows.length > q.limit ? String(highest) : null };
    },

    /**
     * §8.5 / §9.2 Redaction: a human participant (or party) redacts; in a closed chat its former
     * human participants still do. No agent and no observer redacts. The bytes go: body and
     * mentions are erased in the log, the message keeps its seq.
     */
    async redact(caller: Caller, ref: unknown, conversationId: string, seqParam: string, input: unknown): Promise<Message> {
      const data = parseInput(redactInput, input);
      const seq = /^\d{1,15}$/.test(seqParam) ? Number(seqParam) : null;
      const row = await resolveRedactor(caller, ref, conversationId);
      if (seq === null) throw HubError.notFound("message not found");
      const redacted = await db.$transaction(async (tx) => {
        const event = await tx.event.findFirst({ where: { seq, conversationId: row.key, kind: "message" }, select: { seq: true, redacted: true } });
        if (!event) throw HubError.notFound("message not found");
        if (!event.redacted) {
          await tx.event.update({ where: { seq }, data: { redacted: true, body: null, mentions: [] } });
          await tx.redaction.create({ data: { eventSeq: seq, byId: caller.id, reason: data.reason ?? null } });
        }
        const audience = await tx.eventAudience.findMany({ where: { eventSeq: seq }, select: { memberId: true } });
        return { event: await tx.event.findUniqueOrThrow({ where: { seq }, select: messageSelect }), audience: audience.map((a) => a.memberId), changed: !event.redacted };
      });
      if (redacted.changed) bus.publish({ type: "redaction", seq, conversationId: row.id, audience: redacted.audience });
      return renderMessage(redacted.event, await readerOf(caller, row.projectId));
    },

    /** GET …/events: the caller's readable set (§8.2): events addressed to it — and, for an owner, to its agents. */
    async events(caller: Caller, ref: unknown, query: unknown) {
      const q = parseInput(eventsQuery, query);
      const project = await projectOf(db, ref);
      const member = project && (await db.membership.findFirst({ where: { projectId: project.id, memberId: caller.id, status: "active" }, select: { id: true } }));
      // No event reaches a non-member (§9.2 M-146).
      if (!project || !member) throw HubError.notFound("project not found");
      const readers = [caller.id];
      if (caller.kind === "human") readers.push(...(await db.agent.findMany({ where: { ownerId: caller.id }, select: { id: true } })).map((a) => a.id));
      const rows = await db.event.findMany({
        where: { projectId: project.id, seq: { gt: q.after ?? 0 }, audience: { some: { memberId: { in: readers } } }, kind: { in: ["message", "conversation_created", "conversation_updated"] } },
        orderBy: { seq: "asc" },
        take: q.limit + 1,
        select: messageSelect,
      });
      const page = rows.slice(0, q.limit);
      const reader = await readerOf(caller, project.id);
      return { items: page.map((e) => renderEvent(e, reader)), next_cursor: rows.length > q.limit ? String(page.at(-1)?.seq ?? 0) : null };
    },

    /**
     * The live feed's backfill (dashboard): events addressed to the caller after `after`, oldest
     * first, with the project and conversation they belong to. Ids and seqs only: readers reload.
     */
    async feedSince(caller: Caller, after: number, limit = 100) {
      const rows = await db.event.findMany({
        where: { seq: { gt: after }, audience: { some: { memberId: caller.id } } },
        orderBy: { seq: "asc" },
        take: limit,
        select: { seq: true, kind: true, conversation: { select: { publicId: true, project: { select: { slug: true, bay: { select: { handle: true } } } } } } },
      });
      return rows.map((r) => ({
        seq: r.seq,
        kind: r.kind,
        conversation_id: r.conversation?.publicId ?? null,
        project: r.conversation ? { owner: r.conversation.project.bay.handle, slug: r.conversation.project.slug } : null,
      }));
    },

    /** The newest seq of the log (where a fresh live feed starts). */
    async lastSeq(): Promise<number> {
      return (await db.event.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;
    },

    /** Where a redaction happened, for the live feed. */
    async eventPlace(seq: number) {
      const e = await db.event.findUnique({ where: { seq }, select: { conversation: { select: { publicId: true, project: { select: { slug: true, bay: { select: { handle: true } } } } } } } });
      return e?.conversation ? { conversation_id: e.conversation.publicId, project: { owner: e.conversation.project.bay.handle, slug: e.conversation.project.slug } } : null;
    },

    /** POST …/events with type chat: the same write as POST …/messages (§8.4, M-158). */
    async postEvent(caller: Caller, ref: unknown, input: unknown): Promise<Message> {
      const data = parseInput(postEventInput, input);
      return write(caller, await resolveConversation(db, caller, ref, data.conversation_id), { body: data.body, to_instance: data.to_instance, replyToSeq: data.reply_to ?? null });
    },
  };

  async function markDelivered(caller: Caller, row: KeyRow, page: MessageRow[]): Promise<void> {
    if (row.kind !== "direct") return;
    const undelivered = page.filter((m) => m.toId === caller.id && m.deliveredAt === null);
    if (undelivered.length === 0) return;
    const now = new Date();
    await db.event.updateMany({ where: { seq: { in: undelivered.map((m) => m.seq) }, deliveredAt: null }, data: { deliveredAt: now } });
    for (const m of undelivered) m.deliveredAt = now;
  }

  /**
   * The conversation for a redaction. A human participant or party redacts; in a closed chat its
   * former human participants still do — also one now reading along through its agent (§9.2
   * Closing). Agents and other observers do not (§8.5).
   */
  async function resolveRedactor(caller: Caller, ref: unknown, conversationId: string): Promise<KeyRow> {
    const row = await resolveConversation(db, caller, ref, conversationId).catch((error: unknown) => {
      if (isHubError(error) && error.code === "not_found") return null;
      throw error;
    });
    if (row && row.access !== "observer") {
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "no agent redacts (§8.5)");
      return row;
    }
    if (caller.kind === "human") {
      const project = await projectOf(db, ref);
      const closed =
        project &&
        (await db.conversation.findFirst({
          where: { projectId: project.id, publicId: conversationId, kind: "group", closedAt: { not: null }, participations: { some: { memberId: caller.id } } },
          select: { id: true, publicId: true, projectId: true, createdAt: true, createdById: true, closedAt: true, closedReason: true, title: true },
        }));
      if (closed)
        return {
          ...(row ?? emptyRow),
          key: closed.id,
          id: closed.publicId,
          kind: "group",
          projectId: closed.projectId,
          access: "participant",
          title: closed.title,
          createdById: closed.createdById,
          createdAt: closed.createdAt,
          closedAt: closed.closedAt,
          closedReason: closed.closedReason,
        };
    }
    if (row) refuseObserver(row);
    throw conversationNotFound();
  }
}
const emptyRow: KeyRow = {
  key: "",
  id: "",
  kind: "group",
  projectId: "",
  projectOwner: "",
  projectSlug: "",
  projectName: "",
  projectArchived: false,
  access: "participant",
  windowSeq: 0,
  marker: null,
  title: null,
  createdById: null,
  createdAt: new Date(0),
  closedAt: null,
  closedReason: null,
  agentId: null,
  agentJoinedAt: null,
  policy: { replyPolicy: "MENTIONS", designatedAgentId: null, maxAgentRounds: 2, customRules: null },
  last: null,
  unread: null,
  mentionsUnread: null,
  pinned: false,
};
export type MessagesService = ReturnType<typeof messagesService>;

export function renderEvent(row: MessageRow, reader: MessageReader): HubEvent {
  if (row.kind === "message") return { ...renderMessage(row, reader), kind: "message", type: "chat" };
  const payload = (row.payload ?? {}) as { conversation: Record<string, unknown>; changed?: Record<string, unknown> };
  return {
    id: eventId(row.seq),
    seq: row.seq,
    kind: row.kind === "conversation_created" ? "conversation_created" : "conversation_updated",
    conversation_id: row.conversation?.publicId ?? "",
    from: row.fromId,
    sent_at: row.sentAt.toISOString(),
    payload,
  };
}
