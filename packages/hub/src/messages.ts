import {
  type Attachment,
  attachmentLinkFailed,
  bodyOrFiles,
  type Card,
  decideWake,
  eventId,
  type eventsQuery,
  type HubEvent,
  HubError,
  isHubError,
  type listMessagesQuery,
  memberKindOf,
  type AgentMessage,
  type Message,
  type MessageRouting,
  type ProjectRef,
  DEFAULT_PING_RATE,
  type PingRate,
  pingsOf,
  type postEventInput,
  type postMessageInput,
  type redactInput,
  redactionReasonVisible,
  replyPolicyOf,
  resolveMentions,
} from "@maity/domain";
import type { z } from "zod";
import { randomUUID } from "node:crypto";
import type { Db, SqlExecutor, SqlRunner } from "@maity/db";
import {
  conversationNotFound,
  isProjectAdmin,
  projectOf,
  refuseClosed,
  refuseObserver,
  resolveConversation,
} from "./access.ts";
import {
  type AgentMessageRow,
  agentMessageSelect,
  buildAgentMessage,
  renderForAgent,
  toUpdatesEvent,
} from "./agents.ts";
import { APPEND_LOCK_KEY, logHead } from "./append.ts";
import { deleteBlobs, tombstoneFiles } from "./files/library.ts";
import { linkAttachments } from "./files/link.ts";
import type { BlobStore } from "./files/store.ts";
import { attachmentsOf, cardOf } from "./files/render.ts";
import { rawOf } from "./raw.ts";
import { memberInfoOf, WRITE_FACTS_SQL, WRITE_SQL, type WriteFacts } from "./writeSql.ts";
import { IDEMPOTENCY_TTL_MS, type Idempotency, idempotencyOf } from "./idempotency.ts";
import type { LiveBus, LogEvent } from "./bus.ts";
import type { Caller } from "./caller.ts";
import type { KeyRow } from "./read.ts";
import { publishTyping } from "./typing.ts";
import { withMedia } from "./polls.ts";

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
  replyToSeq: true,
  card: true,
  attachments: true,
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
  replyToSeq?: number | null;
  /** Issue 16: `{type, payload}` of a card message. */
  card?: unknown;
  /** Issue 16: the files' §8.7 metadata in render order. */
  attachments?: unknown;
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
    // M-038: a redacted message carries none (their bytes are deleted, §8.7).
    attachments: redacted ? [] : attachmentsOf(row.attachments),
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
  // Issue 15: the dashboard quotes what a reply answers; only a reply carries the field.
  if (row.replyToSeq) message.reply_to = row.replyToSeq;
  const card = redacted ? null : cardOf(row.card);
  if (card) message.card = card;
  // A group message has no delivered_at: several recipients, no read receipts (§9.2).
  return direct ? withDelivered(message, row.deliveredAt) : message;
}

function withDelivered(message: Message, deliveredAt: Date | null): Message {
  const { id, seq, conversation_id, from, to, body, sent_at, ...rest } = message;
  return {
    id,
    seq,
    conversation_id,
    from,
    to,
    body,
    sent_at,
    delivered_at: deliveredAt?.toISOString() ?? null,
    ...rest,
  };
}

/** One chat message as the write takes it, from either surface. */
export interface WriteInput {
  body: string;
  to_instance?: string | null | undefined;
  /** Agent API: the sender's metadata (reserved types refused by the route). */
  metadata?: Record<string, unknown> | null | undefined;
  replyToSeq?: number | null | undefined;
  /**
   * contact_agent (B-075, B-079): the agent this message must wake. When the room's agent rounds are
   * spent its verdict is `round_cap`, and the write is refused under the append lock: nothing sent.
   */
  wakes?: string | undefined;
  /** Issue 16 (v1.11, v1.12): the card, validated by the caller; stored as written. */
  card?: Card | null | undefined;
  /** Issue 16: the files' §8.7 metadata, in render order (linked by `within`). */
  attachments?: Attachment[] | null | undefined;
  /**
   * Issue 16: more writes of the same message in its transaction, after the event is inserted —
   * linking its files, creating its poll. A throw undoes the whole message (nothing half-written).
   */
  within?: ((tx: SqlExecutor, seq: number, sentAt: Date) => Promise<void>) | undefined;
}

export function messagesService(
  db: Db,
  sql: SqlRunner,
  bus: LiveBus,
  hooks: { webhooksQueued?: () => void } = {},
  options: { pingRate?: PingRate; blobs?: BlobStore } = {},
) {
  const pingRate = options.pingRate ?? DEFAULT_PING_RATE;
  // The write's own reads on the driver itself (issue 12); everything else stays on Prisma.
  const raw = rawOf(sql);

  async function readerOf(caller: Caller, projectId: string): Promise<MessageReader> {
    return { id: caller.id, admin: caller.kind === "human" && (await isProjectAdmin(db, projectId, caller.id)) };
  }

  /**
   * The one write of a chat message: POST …/messages and POST …/events with type chat (M-158), and
   * the agent API's send. A fixed number of statements whatever the number of participants: the
   * append lock, one read of everything the decision needs (under the lock, so the participants,
   * the previous round and the log's head are those the message is appended after), one statement
   * writing the event, its audience, verdicts, webhook deliveries, the conversation's head, the
   * writer's marker and the idempotency key; then the commit. The answer and the bus's payloads are
   * rendered from what the write has, never read back.
   */
  async function write(
    caller: Caller,
    row: KeyRow,
    data: WriteInput,
    idempotency: Idempotency | null = null,
  ): Promise<Written> {
    refuseObserver(row);
    refuseClosed(row);
    if (row.kind === "group" && data.to_instance)
      throw HubError.invalid(
        { to_instance: "direct_only" },
        "to_instance names an instance in a direct conversation only",
      );
    const direct = row.kind === "direct";
    const toInstance = direct && caller.kind === "human" ? (data.to_instance ?? null) : null;
    // On the driver itself, as the hand-written limit does (bench:send): Prisma adds ~0.25 ms a statement.
    const result = await sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY})`);
      const [facts] = await tx.query<WriteFacts>(WRITE_FACTS_SQL, [
        row.key,
        data.replyToSeq ?? null,
        caller.id,
        idempotency?.key ?? null,
        new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString(),
        row.projectId,
        toInstance,
        row.agentId ?? "",
      ]);
      if (!facts) throw new Error("the write's facts query returned nothing");
      if (facts.replay) {
        // A repeat of the same request by the same caller answers the first message and writes nothing.
        if (facts.replay.hash !== idempotency?.hash)
          throw new HubError("conflict", "this Idempotency-Key was used with another request", {
            fields: { idempotency_key: "reused_with_other_body" },
          });
        return { replayed: Number(facts.replay.response.seq) };
      }
      const participants = facts.participants;
      // §9.1: a @handle in a direct conversation is plain text; §9.2: group mentions resolve to current participants.
      const resolved =
        row.kind === "group"
          ? resolveMentions(
              data.body,
              participants.map((p) => ({
                member_id: p.memberId,
                handle: (p.kind === "agent" ? p.agentHandle : p.humanHandle) ?? p.memberId,
                names:
                  p.kind === "agent" ? [`${p.ownerHandle}/${p.agentHandle}`] : p.displayName ? [p.displayName] : [],
              })),
            )
          : [];
      const pings = pingsOf(caller.id, resolved);
      if (pings > 0) await checkPingRate(tx, caller.id, pings);
      // §9.1: to_instance names one of the agent's instances (a replaced one still counts: it is kept as written).
      if (toInstance && !facts.instance_ok)
        throw HubError.invalid({ to_instance: "not_an_instance" }, "to_instance names no instance of this agent");
      // The message replied to: one of this conversation's messages (B-125, B-126).
      const replyTo = facts.reply_to;
      if (data.replyToSeq != null && !replyTo)
        throw HubError.invalid(
          { reply_to: "not_in_conversation" },
          "the message replied to is not in this conversation",
        );
      // B-068: the consecutive agent messages right before this one.
      const agentRoundsBefore = facts.previous_round ?? 0;
      const policy = replyPolicyOf(row.policy.replyPolicy);
      const wake = decideWake({
        conversationKind: row.kind,
        authorId: caller.id,
        authorKind: caller.kind,
        participants: participants.map((p) => ({
          member_id: p.memberId,
          kind: p.kind,
          ...(p.kind === "agent"
            ? { name: `${p.ownerHandle}/${p.agentHandle}`, description: p.description ?? "" }
            : {}),
        })),
        mentions: resolved,
        toInstance,
        body: data.body,
        policy: { policy, designatedAgentId: row.policy.designatedAgentId, maxAgentRounds: row.policy.maxAgentRounds },
        replyTo: replyTo ? { id: replyTo.fromId, kind: memberKindOf(replyTo.fromId) ?? "human" } : null,
        agentRoundsBefore,
      });
      const woken = data.wakes === undefined ? null : wake.agents.find((v) => v.agentId === data.wakes);
      if (woken && !woken.shouldRespond && woken.reason === "round_cap")
        throw new HubError(
          "conflict",
          `the room's ${row.policy.maxAgentRounds} agent rounds are spent; a human message opens new ones`,
          {
            reason: "round_cap_reached",
            maxAgentRounds: row.policy.maxAgentRounds,
          },
        );
      // B-063: the agents a human named ride in metadata.addressedAgents.
      const metadata =
        data.metadata || wake.addressedAgents.length
          ? {
              ...(data.metadata ?? {}),
              ...(wake.addressedAgents.length ? { addressedAgents: wake.addressedAgents } : {}),
            }
          : null;
      const toId = direct
        ? (participants.find((p) => p.memberId !== caller.id)?.memberId ?? row.agentId ?? "")
        : row.id;
      const mentions = resolved.map(({ instance, ...m }) => (instance ? { ...m, instance_id: instance } : m));
      // Webhook v2: one delivery per agent participant with a webhook, queued with the message and
      // sent after it commits, so a slow receiver never holds the writer (B-163).
      const hooked = participants.filter((p) => p.hooked && p.memberId !== caller.id).map((p) => p.memberId);
      const sentAt = new Date();
      const fromInstance = caller.kind === "agent" ? caller.instanceId : null;
      const agentRound = caller.kind === "agent" ? agentRoundsBefore + 1 : 0;
      const [written] = await tx.query<{ seq: number }>(WRITE_SQL, [
        row.projectId,
        row.key,
        caller.id,
        fromInstance,
        toId,
        toInstance,
        data.body,
        JSON.stringify(mentions),
        metadata ? JSON.stringify(metadata) : null,
        replyTo?.seq ?? null,
        pings,
        agentRound,
        sentAt.toISOString(),
        participants.map((p) => p.memberId),
        JSON.stringify(
          wake.agents.map((v) => ({
            agent_id: v.agentId,
            instance_id: v.instanceId,
            should_respond: v.shouldRespond,
            reason: v.reason,
          })),
        ),
        hooked.map(() => `whd_${randomUUID()}`),
        hooked,
        idempotency?.key ?? null,
        idempotency?.hash ?? null,
        data.card ? JSON.stringify(data.card) : null,
        data.attachments?.length ? JSON.stringify(data.attachments) : null,
      ]);
      if (!written) throw new Error("the write returned no seq");
      const seq = Number(written.seq);
      if (data.within) await data.within(tx, seq, sentAt);
      const event: MessageRow & AgentMessageRow = {
        seq,
        kind: "message",
        fromId: caller.id,
        toId,
        fromInstanceId: fromInstance,
        toInstanceId: toInstance,
        body: data.body,
        mentions,
        metadata,
        sentAt,
        deliveredAt: null,
        redacted: false,
        payload: null,
        replyToSeq: replyTo?.seq ?? null,
        card: data.card ?? null,
        attachments: data.attachments?.length ? data.attachments : null,
        redaction: null,
        conversation: {
          id: row.key,
          publicId: row.id,
          kind: row.kind,
          title: row.title,
          createdById: row.createdById,
          replyPolicy: row.policy.replyPolicy,
          designatedAgentId: row.policy.designatedAgentId,
          project: { id: row.projectId, name: row.projectName, bayId: facts.project_bay_id },
        },
      };
      const sender = participants.find((p) => p.memberId === caller.id);
      const agentMessage = buildAgentMessage(event, {
        sender: sender ? memberInfoOf(sender) : undefined,
        present: sender !== undefined,
        reply: replyTo,
      });
      const logEvent: LogEvent = {
        type: "event",
        seq,
        prev: facts.head,
        kind: "message",
        sentAt: sentAt.toISOString(),
        conversationId: row.id,
        project: { owner: row.projectOwner, slug: row.projectSlug },
        audience: participants.map((p) => p.memberId),
        maity: renderMessage(event, { id: caller.id, admin: false }),
        agent: {
          event: toUpdatesEvent({ message: agentMessage, row: event }),
          respond: wake.agents.filter((v) => v.shouldRespond).map((v) => v.agentId),
        },
      };
      return { logEvent, agentMessage, hooked: hooked.length > 0 };
    });
    if ("replayed" in result) return replayOf(caller, row, result.replayed as number);
    bus.publish(result.logEvent);
    if (result.hooked) hooks.webhooksQueued?.();
    // A fresh message is read alike by everyone (no redaction reason yet): no reader lookup.
    return { message: result.logEvent.maity as Message, agentMessage: result.agentMessage, replayed: false };
  }

  /** The first answer of a repeated request, from the log (the message may have changed since: a redaction). */
  async function replayOf(caller: Caller, row: KeyRow, seq: number): Promise<Written> {
    const found = await db.event.findUniqueOrThrow({ where: { seq }, select: logMessageSelect });
    const [rendered] = await renderForAgent(db, caller.id, [found]);
    return {
      message: renderMessage(found, await readerOf(caller, row.projectId)),
      agentMessage: (rendered as { message: AgentMessage }).message,
      replayed: true,
    };
  }

  /** §1.7: pings a writer may spend per window, counted from the log. */
  async function checkPingRate(tx: SqlExecutor, writerId: string, pings: number): Promise<void> {
    const since = new Date(Date.now() - pingRate.windowSeconds * 1000);
    const [row] = await tx.query<{ spent: number }>(
      "SELECT coalesce(sum(pings), 0)::int AS spent FROM events WHERE from_id = $1 AND kind = 'message' AND sent_at > $2::timestamp",
      [writerId, since.toISOString()],
    );
    const spent = Number(row?.spent ?? 0);
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
    bus.publish({
      type: "read",
      seq: highest,
      conversationId: row.id,
      project: { owner: row.projectOwner, slug: row.projectSlug },
      audience: [caller.id],
    });
  }

  return {
    /** POST …/messages; with an Idempotency-Key a repeat answers the first message (replayed, 200). */
    async post(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      data: z.output<typeof postMessageInput>,
      idempotencyKey: string | null = null,
    ): Promise<Written> {
      const row = await resolveConversation(raw, caller, ref, conversationId, { lean: true });
      return maityWrite(caller, row, data, idempotencyKey);
    },

    /**
     * The dashboard's explicit, debounced "read up to here" (issue 12): it shows messages from the
     * live feed without reading them, then moves the marker, capped at the chat's last message.
     */
    async markReadUpTo(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      seq: number,
    ): Promise<{ read_marker: number | null }> {
      const row = await resolveConversation(db, caller, ref, conversationId);
      const highest = Math.min(seq, row.last?.seq ?? 0);
      await markRead(caller, row, highest);
      return { read_marker: row.access === "observer" ? null : Math.max(highest, row.marker ?? 0) };
    },

    /** The agent API's write into a room it resolved itself (004 §7): the same write. */
    writeIn: write,
    markRead,

    /** §9.1: a direct message to `agentId` handed to it is delivered, once (v1.23: its own token only). */
    async markDeliveredTo(agentId: string, seqs: number[]): Promise<void> {
      if (seqs.length === 0) return;
      // On the driver (a prepared statement): it follows every direct message an agent is handed.
      await sql.query(
        "UPDATE events SET delivered_at = $1::timestamp WHERE seq = ANY($2::int[]) AND to_id = $3 AND delivered_at IS NULL",
        [new Date().toISOString(), seqs, agentId],
      );
    },

    /**
     * GET …/messages. Without `before`: the window after `after` (default: the read marker), oldest
     * first, moving the participant's marker and setting delivered_at once (§9.1). With `before`:
     * the chat's history, whenever the reader joined; marks nothing read, wakes nobody (§9.2).
     */
    async list(caller: Caller, ref: ProjectRef, conversationId: string, q: z.output<typeof listMessagesQuery>) {
      if (q.after !== undefined && q.before !== undefined)
        throw HubError.invalid({ before: "not_with_after" }, "after and before together are invalid");
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
        return {
          // Issue 16: each poll's tally and each message's reactions, as this reader sees them.
          items: await withMedia(
            db,
            caller.id,
            page.map((m) => renderMessage(m, reader)),
          ),
          earlier: rows.length > q.limit ? (page[0]?.seq ?? null) : null,
        };
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
      return {
        items: await withMedia(
          db,
          caller.id,
          page.map((m) => renderMessage(m, reader)),
        ),
        next_cursor: rows.length > q.limit ? String(highest) : null,
      };
    },

    /**
     * §8.5 / §9.2 Redaction: a human participant (or party) redacts; in a closed chat its former
     * human participants still do. No agent and no observer redacts. The bytes go: body and
     * mentions are erased in the log, the message keeps its seq.
     */
    async redact(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      seqParam: string,
      data: z.output<typeof redactInput>,
    ): Promise<Message> {
      const seq = /^\d{1,15}$/.test(seqParam) ? Number(seqParam) : null;
      const row = await resolveRedactor(caller, ref, conversationId);
      if (seq === null) throw HubError.notFound("message not found");
      const redacted = await db.$transaction(async (tx) => {
        const event = await tx.event.findFirst({
          where: { seq, conversationId: row.key, kind: "message" },
          select: { seq: true, redacted: true },
        });
        if (!event) throw HubError.notFound("message not found");
        let blobKeys: string[] = [];
        if (!event.redacted) {
          await tx.event.update({ where: { seq }, data: { redacted: true, body: null, mentions: [] } });
          await tx.redaction.create({ data: { eventSeq: seq, byId: caller.id, reason: data.reason ?? null } });
          // §8.5, M-039: the files are tombstoned with the redaction; their bytes go once it commits.
          blobKeys = await tombstoneFiles(tx, seq);
        }
        const audience = await tx.eventAudience.findMany({ where: { eventSeq: seq }, select: { memberId: true } });
        return {
          event: await tx.event.findUniqueOrThrow({ where: { seq }, select: messageSelect }),
          audience: audience.map((a) => a.memberId),
          changed: !event.redacted,
          blobKeys,
        };
      });
      if (options.blobs) await deleteBlobs(options.blobs, redacted.blobKeys);
      if (redacted.changed)
        bus.publish({
          type: "redaction",
          seq,
          conversationId: row.id,
          project: { owner: row.projectOwner, slug: row.projectSlug },
          audience: redacted.audience,
        });
      return renderMessage(redacted.event, await readerOf(caller, row.projectId));
    },

    /** GET …/events: the caller's readable set (§8.2): events addressed to it — and, for an owner, to its agents. */
    async events(caller: Caller, ref: ProjectRef, q: z.output<typeof eventsQuery>) {
      const project = await projectOf(db, ref);
      const member =
        project &&
        (await db.membership.findFirst({
          where: { projectId: project.id, memberId: caller.id, status: "active" },
          select: { id: true },
        }));
      // No event reaches a non-member (§9.2 M-146).
      if (!project || !member) throw HubError.notFound("project not found");
      const readers = [caller.id];
      if (caller.kind === "human")
        readers.push(
          ...(await db.agent.findMany({ where: { ownerId: caller.id }, select: { id: true } })).map((a) => a.id),
        );
      const rows = await db.event.findMany({
        where: {
          projectId: project.id,
          seq: { gt: q.after ?? 0 },
          audience: { some: { memberId: { in: readers } } },
          kind: { in: ["message", "conversation_created", "conversation_updated"] },
        },
        orderBy: { seq: "asc" },
        take: q.limit + 1,
        select: messageSelect,
      });
      const page = rows.slice(0, q.limit);
      const reader = await readerOf(caller, project.id);
      return {
        items: await withMedia(
          db,
          caller.id,
          page.map((e) => renderEvent(e, reader)),
        ),
        next_cursor: rows.length > q.limit ? String(page.at(-1)?.seq ?? 0) : null,
      };
    },

    /**
     * The live feed's backfill (dashboard): events addressed to the caller after `after`, oldest
     * first, with the project and conversation they belong to. Ids and seqs only: readers reload.
     */
    async feedSince(caller: Caller, after: number, upTo: number, limit = 100) {
      const rows = await db.event.findMany({
        where: { seq: { gt: after, lte: upTo }, audience: { some: { memberId: caller.id } } },
        orderBy: { seq: "asc" },
        take: limit,
        select: {
          seq: true,
          kind: true,
          conversation: {
            select: { publicId: true, project: { select: { slug: true, bay: { select: { handle: true } } } } },
          },
        },
      });
      return rows.map((r) => ({
        seq: r.seq,
        kind: r.kind,
        conversation_id: r.conversation?.publicId ?? null,
        project: r.conversation
          ? { owner: r.conversation.project.bay.handle, slug: r.conversation.project.slug }
          : null,
      }));
    },

    /** The newest seq of the log (where a fresh live feed starts). */
    async lastSeq(): Promise<number> {
      return logHead(db);
    },

    /** Where a redaction happened, for the live feed. */
    /**
     * Issue 15: the stored routing verdicts of messages of one conversation the caller reads (any
     * reader of the chat, observers included, sees its history). Seqs outside it are left out.
     */
    async routing(caller: Caller, ref: ProjectRef, conversationId: string, seqs: number[]): Promise<MessageRouting[]> {
      const row = await resolveConversation(db, caller, ref, conversationId, { lean: true });
      if (seqs.length === 0) return [];
      const verdicts = await db.routingVerdict.findMany({
        where: { eventSeq: { in: [...new Set(seqs)] }, event: { conversationId: row.key, kind: "message" } },
        select: { eventSeq: true, agentId: true, shouldRespond: true, reason: true },
        orderBy: [{ eventSeq: "asc" }, { agentId: "asc" }],
      });
      const bySeq = new Map<number, MessageRouting["agents"]>();
      for (const v of verdicts) {
        const agents = bySeq.get(v.eventSeq) ?? [];
        agents.push({
          agent_id: v.agentId,
          should_respond: v.shouldRespond,
          reason: v.reason as MessageRouting["agents"][number]["reason"],
        });
        bySeq.set(v.eventSeq, agents);
      }
      return [...bySeq].map(([seq, agents]) => ({ seq, agents }));
    },

    /** Issue 15: a person writing in the dashboard's composer; observers only read, a closed chat takes nothing. */
    async typing(caller: Caller, ref: ProjectRef, conversationId: string): Promise<void> {
      const row = await resolveConversation(db, caller, ref, conversationId, { lean: true });
      refuseObserver(row);
      refuseClosed(row);
      await publishTyping(db, bus, row, caller.id);
    },

    async eventPlace(seq: number) {
      const e = await db.event.findUnique({
        where: { seq },
        select: {
          conversation: {
            select: { publicId: true, project: { select: { slug: true, bay: { select: { handle: true } } } } },
          },
        },
      });
      return e?.conversation
        ? {
            conversation_id: e.conversation.publicId,
            project: { owner: e.conversation.project.bay.handle, slug: e.conversation.project.slug },
          }
        : null;
    },

    /** POST …/events with type chat: the same write as POST …/messages (§8.4, M-158). */
    async postEvent(
      caller: Caller,
      ref: ProjectRef,
      data: z.output<typeof postEventInput>,
      idempotencyKey: string | null = null,
    ): Promise<Written> {
      const row = await resolveConversation(raw, caller, ref, data.conversation_id, { lean: true });
      return maityWrite(caller, row, data, idempotencyKey);
    },
  };

  /**
   * The Maity send (POST …/messages, POST …/events type chat): the body may be empty only when files
   * are attached (M-030); the files link all or nothing, the conflict naming no id (B-201, B-202).
   */
  async function maityWrite(
    caller: Caller,
    row: KeyRow,
    data: z.output<typeof postMessageInput>,
    idempotencyKey: string | null,
  ): Promise<Written> {
    if (!bodyOrFiles(data)) throw HubError.invalid({ body: "required" }, "body: required without attachments");
    const ids = data.attachments ?? [];
    if (new Set(ids).size !== ids.length) throw attachmentLinkFailed();
    const write_ = { body: data.body, to_instance: data.to_instance, replyToSeq: data.reply_to ?? null };
    const idempotency = idempotencyOf(idempotencyKey, ["maity", row.key, ids.length ? { ...write_, ids } : write_]);
    const files = await linkAttachments(db, caller, row, ids, idempotency !== null);
    return write(caller, row, { ...write_, ...files }, idempotency);
  }

  async function markDelivered(caller: Caller, row: KeyRow, page: MessageRow[]): Promise<void> {
    if (row.kind !== "direct") return;
    const undelivered = page.filter((m) => m.toId === caller.id && m.deliveredAt === null);
    if (undelivered.length === 0) return;
    const now = new Date();
    await db.event.updateMany({
      where: { seq: { in: undelivered.map((m) => m.seq) }, deliveredAt: null },
      data: { deliveredAt: now },
    });
    for (const m of undelivered) m.deliveredAt = now;
  }

  /**
   * The conversation for a redaction. A human participant or party redacts; in a closed chat its
   * former human participants still do — also one now reading along through its agent (§9.2
   * Closing). Agents and other observers do not (§8.5).
   */
  async function resolveRedactor(caller: Caller, ref: ProjectRef, conversationId: string): Promise<KeyRow> {
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
          where: {
            projectId: project.id,
            publicId: conversationId,
            kind: "group",
            closedAt: { not: null },
            participations: { some: { memberId: caller.id } },
          },
          select: {
            id: true,
            publicId: true,
            projectId: true,
            createdAt: true,
            createdById: true,
            closedAt: true,
            closedReason: true,
            title: true,
          },
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

/** A written (or replayed) message, in both surfaces' shapes. */
export interface Written {
  message: Message;
  agentMessage: AgentMessage;
  replayed: boolean;
}

/** The message columns both surfaces and the bus render from. */
export const logMessageSelect = {
  ...messageSelect,
  ...agentMessageSelect,
  redaction: messageSelect.redaction,
  conversation: { select: { ...messageSelect.conversation.select, ...agentMessageSelect.conversation.select } },
} as const;
