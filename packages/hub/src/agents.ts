import {
  type AgentDirectoryEntry,
  type AgentMe,
  type contactAgentInput,
  type AgentMessage,
  type AgentMessagePage,
  type AgentRoom,
  type agentPollQuery,
  type agentSendInput,
  buildInstructions,
  type ContextEnvelope,
  compareListKeys,
  conversationRole,
  DESCRIPTION_MAX,
  eventId,
  HubError,
  historyFloorOf,
  isVisiting,
  oneLine,
  PROTOCOL_VERSION,
  decodeHistoryCursor,
  encodeHistoryCursor,
  seqOfMessageId,
  sendableCard,
  sendAttachmentIds,
  shouldRespondFor,
  resolveMentions,
  projectFullName,
  RESERVED_MESSAGE_TYPES,
  replyPolicyOf,
  replyPreview,
  SERVER_METADATA_KEYS,
  senderKindOf,
  type UpdatesEvent,
  type Visiting,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { z } from "zod";
import { refuseClosed } from "./access.ts";
import type { LiveBus } from "./bus.ts";
import type { AgentCaller } from "./caller.ts";
import { idempotencyOf } from "./idempotency.ts";
import { linkAttachments } from "./files/link.ts";
import { agentAttachmentMetadata, attachmentsOf, cardOf } from "./files/render.ts";
import { publishTyping } from "./typing.ts";
import { withAgentMedia } from "./polls.ts";
import type { MessagesService } from "./messages.ts";
import { type KeyRow, listKeyOf, type ParticipantRow, readKeys, readParticipants } from "./read.ts";

// The agent protocol's reads and writes (004 §3, §5, §7) over the same model and write as the
// Maity routes (DESIGN §1: one model, two surfaces). Everything here renders BayChat's shapes from
// the hub's rows; the rules it applies live in domain (routing verdicts are read, never re-derived).

/** A project's brief version: no briefs yet (a later issue), so every project is at 0 (B-134). */
export const NO_BRIEF_VERSION = 0;
/** A conversation key is a cuid; anything else is unknown without a query. */
const plausibleKey = (key: string): boolean => /^[a-z0-9]{8,40}$/i.test(key);

/** The message columns every agent-facing rendering reads (select … satisfies, nothing leaks). */
export const agentMessageSelect = {
  seq: true,
  fromId: true,
  body: true,
  sentAt: true,
  metadata: true,
  mentions: true,
  redacted: true,
  replyToSeq: true,
  card: true,
  attachments: true,
  redaction: { select: { at: true } },
  conversation: {
    select: {
      id: true,
      kind: true,
      title: true,
      createdById: true,
      replyPolicy: true,
      designatedAgentId: true,
      project: { select: { id: true, name: true, bayId: true } },
    },
  },
} as const;

export type AgentMessageRow = {
  seq: number;
  fromId: string;
  body: string | null;
  sentAt: Date;
  metadata: unknown;
  mentions: unknown;
  redacted: boolean;
  replyToSeq: number | null;
  card?: unknown;
  attachments?: unknown;
  redaction: { at: Date } | null;
  conversation: {
    id: string;
    kind: string;
    title: string | null;
    createdById: string | null;
    replyPolicy: string;
    designatedAgentId: string | null;
    project: { id: string; name: string; bayId: string };
  } | null;
};

export type MemberInfo = {
  name: string;
  visitingFrom: { bayId: string; bay: string; sponsor: { id: string; name: string } } | null;
};

/** Names (one line, B-048) and home Bays of members, in two statements. */
async function membersById(db: Db | Tx, ids: string[]): Promise<Map<string, MemberInfo>> {
  const unique = [...new Set(ids)];
  const [humans, agents] = await Promise.all([
    db.human.findMany({
      where: { id: { in: unique.filter((id) => id.startsWith("hum-")) } },
      select: { id: true, displayName: true },
    }),
    db.agent.findMany({
      where: { id: { in: unique.filter((id) => id.startsWith("agt-")) } },
      select: {
        id: true,
        handle: true,
        owner: {
          select: { id: true, handle: true, displayName: true, bayId: true, bay: { select: { handle: true } } },
        },
      },
    }),
  ]);
  const out = new Map<string, MemberInfo>();
  for (const h of humans) out.set(h.id, { name: oneLine(h.displayName), visitingFrom: null });
  for (const a of agents)
    out.set(a.id, {
      name: oneLine(`${a.owner.handle}/${a.handle}`),
      visitingFrom: {
        bayId: a.owner.bayId,
        bay: a.owner.bay.handle,
        sponsor: { id: a.owner.id, name: oneLine(a.owner.displayName) },
      },
    });
  return out;
}

/** v1.14: an agent whose owner's Bay is not the project's is visiting there (DESIGN §1). */
function visitingOf(info: MemberInfo | undefined, projectBayId: string): Visiting | null {
  const from = info?.visitingFrom;
  return from && isVisiting(from.bayId, projectBayId) ? { homeBay: oneLine(from.bay), sponsor: from.sponsor } : null;
}

/** What a message's agent rendering needs beyond its row: loaded per batch, or known to the write. */
export interface AgentRenderFacts {
  sender: MemberInfo | undefined;
  /** The sender is still a participant (its role in the room). */
  present: boolean;
  reply: { seq: number; fromId: string; body: string | null; redacted: boolean } | null | undefined;
}

/**
 * One message in the agent protocol's shape, with shouldRespond false: every agent's copy differs
 * only in its own verdict (renderForAgent, or the feed from the bus's `respond`). Pure.
 */
export function buildAgentMessage(row: AgentMessageRow, facts: AgentRenderFacts): AgentMessage {
  const c = row.conversation;
  const info = facts.sender;
  const kind = senderKindOf(row.fromId);
  const reply = facts.reply;
  const metadata =
    row.metadata && typeof row.metadata === "object" && !Array.isArray(row.metadata)
      ? (row.metadata as Record<string, unknown>)
      : null;
  return {
    id: eventId(row.seq),
    senderId: row.fromId,
    senderType: kind.senderType,
    content: row.redacted ? "" : (row.body ?? ""),
    createdAt: row.sentAt.toISOString(),
    // B-181: the files ride in metadata (unsigned here; each reader's copy is signed, files/render.ts).
    metadata: row.redacted ? null : agentAttachmentMetadata(metadata, attachmentsOf(row.attachments)),
    sender: {
      id: row.fromId,
      name: info?.name ?? row.fromId,
      kind: kind.kind,
      role: c
        ? conversationRole({
            memberId: row.fromId,
            participant: facts.present,
            createdById: c.createdById,
            group: c.kind === "group",
            policy: replyPolicyOf(c.replyPolicy),
            designatedAgentId: c.designatedAgentId,
          })
        : null,
      visiting: c ? visitingOf(info, c.project.bayId) : null,
    },
    mentions: row.redacted
      ? []
      : ((row.mentions as { member_id: string }[]) ?? []).map((m) => m.member_id).filter((id) => id.startsWith("agt-")),
    shouldRespond: false,
    // B-124: a deleted (redacted) target keeps its id and sender, with preview "".
    replyTo: reply
      ? {
          id: eventId(reply.seq),
          senderId: reply.fromId,
          senderType: senderKindOf(reply.fromId).senderType,
          preview: reply.redacted ? "" : replyPreview(reply.body),
        }
      : null,
    conversationId: c?.id ?? "",
    cardPayload: row.redacted ? null : (cardOf(row.card)?.payload ?? null),
    reactions: [],
    deletedAt: row.redaction?.at.toISOString() ?? null,
  };
}

/**
 * Renders messages for every agent at once: the message with shouldRespond false and the agents
 * whose verdict is true (`respond`). Four statements whatever the number of messages.
 */
export async function renderAgentEvents(
  db: Db | Tx,
  rows: AgentMessageRow[],
): Promise<{ message: AgentMessage; row: AgentMessageRow; respond: string[] }[]> {
  if (rows.length === 0) return [];
  const seqs = rows.map((r) => r.seq);
  const replySeqs = [...new Set(rows.map((r) => r.replyToSeq).filter((s): s is number => s !== null))];
  const conversationIds = [...new Set(rows.map((r) => r.conversation?.id).filter((id): id is string => !!id))];
  const [verdicts, replies, current] = await Promise.all([
    db.routingVerdict.findMany({
      where: { eventSeq: { in: seqs }, shouldRespond: true },
      select: { eventSeq: true, agentId: true },
    }),
    replySeqs.length
      ? db.event.findMany({
          where: { seq: { in: replySeqs } },
          select: { seq: true, fromId: true, body: true, redacted: true },
        })
      : [],
    db.participation.findMany({
      where: {
        conversationId: { in: conversationIds },
        memberId: { in: [...new Set(rows.map((r) => r.fromId))] },
        leftAt: null,
      },
      select: { conversationId: true, memberId: true },
    }),
  ]);
  const members = await membersById(
    db,
    rows.map((r) => r.fromId),
  );
  const respond = new Map<number, string[]>();
  for (const v of verdicts) respond.set(v.eventSeq, [...(respond.get(v.eventSeq) ?? []), v.agentId]);
  const replyBySeq = new Map(replies.map((r) => [r.seq, r]));
  const present = new Set(current.map((p) => `${p.conversationId} ${p.memberId}`));
  return rows.map((row) => {
    const facts: AgentRenderFacts = {
      sender: members.get(row.fromId),
      present: present.has(`${row.conversation?.id} ${row.fromId}`),
      reply: row.replyToSeq === null ? null : replyBySeq.get(row.replyToSeq),
    };
    return { message: buildAgentMessage(row, facts), row, respond: respond.get(row.seq) ?? [] };
  });
}

/** The reader's own verdict, decided once when the message was written (DESIGN §1); its own message: false. */
export const forReader = (message: AgentMessage, respond: readonly string[], readerId: string): AgentMessage => ({
  ...message,
  shouldRespond: shouldRespondFor(message.senderId, respond, readerId),
});

/** Renders messages for one reading agent: sender, mentions (agents only, B-086), its verdict, replyTo. */
export async function renderForAgent(
  db: Db | Tx,
  readerId: string,
  rows: AgentMessageRow[],
): Promise<{ message: AgentMessage; row: AgentMessageRow }[]> {
  return (await renderAgentEvents(db, rows)).map((r) => ({
    message: forReader(r.message, r.respond, readerId),
    row: r.row,
  }));
}

/** B-132: the event's message carries exactly the event fields; the REST-only ones stay out. */
export function eventMessage(message: AgentMessage): UpdatesEvent["message"] {
  const { conversationId: _c, cardPayload: _p, reactions: _r, poll: _t, deletedAt: _d, ...event } = message;
  return event;
}

export function toUpdatesEvent(rendered: { message: AgentMessage; row: AgentMessageRow }): UpdatesEvent {
  const c = rendered.row.conversation;
  return {
    type: "message",
    conversationId: c?.id ?? "",
    message: eventMessage(rendered.message),
    conversation: { id: c?.id ?? "", type: c?.kind === "direct" ? "DM" : "GROUP", title: c?.title ?? null },
    project: { id: c?.project.id ?? "", name: c?.project.name ?? "", version: NO_BRIEF_VERSION },
  };
}

export function agentService(db: Db, bus: LiveBus, messages: MessagesService) {
  /** One of the agent's rooms by its global id, as the Maity read model sees it; null otherwise. */
  async function room(agent: AgentCaller, key: string, lean = false): Promise<KeyRow | null> {
    if (!plausibleKey(key)) return null;
    const [row] = await readKeys(db, agent, { conversationKey: key, observed: false, lean });
    return row ?? null;
  }

  /** The roster of a room (B-039): name, kind, role, and for agents the description and visiting. */
  async function roster(row: KeyRow, participants: ParticipantRow[]) {
    const [project, agents] = await Promise.all([
      db.project.findUniqueOrThrow({ where: { id: row.projectId }, select: { bayId: true } }),
      db.agent.findMany({
        where: { id: { in: participants.filter((p) => p.kind === "agent").map((p) => p.memberId) } },
        select: { id: true, description: true },
      }),
    ]);
    const members = await membersById(
      db,
      participants.map((p) => p.memberId),
    );
    const policy = replyPolicyOf(row.policy.replyPolicy);
    return participants.map((p) => {
      const description = agents.find((a) => a.id === p.memberId)?.description;
      const info = members.get(p.memberId);
      return {
        id: p.memberId,
        name: info?.name ?? p.memberId,
        kind: p.kind === "agent" ? ("agent" as const) : ("user" as const),
        role:
          conversationRole({
            memberId: p.memberId,
            participant: true,
            createdById: row.createdById,
            group: row.kind === "group",
            policy,
            designatedAgentId: row.policy.designatedAgentId,
          }) ?? "member",
        ...(description !== undefined ? { description: oneLine(description, DESCRIPTION_MAX) } : {}),
        visiting: visitingOf(info, project.bayId),
      };
    });
  }

  /** §3 the context envelope, built fresh (B-041). */
  async function envelope(agent: AgentCaller, row: KeyRow): Promise<ContextEnvelope> {
    const participants = (await readParticipants(db, [row.key])).get(row.key) ?? [];
    const group = row.kind === "group";
    const policy = replyPolicyOf(row.policy.replyPolicy);
    const designated = group ? row.policy.designatedAgentId : null;
    const entries = await roster(row, participants);
    const you = entries.find((r) => r.id === agent.id);
    const name = you?.name ?? agent.handle;
    return {
      conversation: { id: row.key, type: group ? "GROUP" : "DM", title: row.title },
      project: { id: row.projectId, name: row.projectName, version: NO_BRIEF_VERSION },
      participants: entries,
      // B-046: a direct conversation has no policy machinery.
      policy: group
        ? { rule: policy, effectiveRule: policy, policyApplies: true, maxAgentRounds: row.policy.maxAgentRounds }
        : { rule: null, effectiveRule: "EVERY_USER_MESSAGE", policyApplies: false, maxAgentRounds: null },
      you: { id: agent.id, name, isOrchestrator: group && policy === "ORCHESTRATOR" && designated === agent.id },
      instructions: buildInstructions({
        you: { id: agent.id, name },
        conversation: { type: group ? "GROUP" : "DM", title: row.title },
        roster: entries.map((r) => ({
          id: r.id,
          name: r.name,
          kind: r.kind === "agent" ? "agent" : "human",
          description: r.description ?? "",
          visiting: r.visiting,
        })),
        policy,
        designatedAgentId: designated,
        maxAgentRounds: row.policy.maxAgentRounds,
        customRules: group ? row.policy.customRules : null,
      }),
    };
  }

  async function loadRendered(readerId: string, where: object, orderBy: "asc" | "desc", take: number) {
    const rows = await db.event.findMany({
      where: { kind: "message", ...where },
      orderBy: { seq: orderBy },
      take,
      select: agentMessageSelect,
    });
    return renderForAgent(db, readerId, rows);
  }

  /** Where the agent's readable history of a room starts (domain historyFloorOf). */
  async function historyFloor(agent: AgentCaller, row: KeyRow): Promise<number> {
    const [owner, project] = await Promise.all([
      db.human.findUnique({ where: { id: agent.ownerId }, select: { bayId: true } }),
      db.project.findUnique({ where: { id: row.projectId }, select: { bayId: true } }),
    ]);
    return historyFloorOf(owner !== null && project !== null && isVisiting(owner.bayId, project.bayId), row.windowSeq);
  }

  const service = {
    room,
    envelope,
    historyFloor,

    /** GET /me (B-012): who the token is, and the protocol version (B-029). */
    async me(agent: AgentCaller): Promise<AgentMe> {
      const row = await db.agent.findUniqueOrThrow({
        where: { id: agent.id },
        select: { handle: true, description: true, owner: { select: { handle: true } } },
      });
      return {
        id: agent.id,
        name: `${row.owner.handle}/${row.handle}`,
        description: row.description,
        instanceId: agent.instanceId,
        protocolVersion: PROTOCOL_VERSION,
      };
    },

    /**
     * GET /conversations: the agent's DM and GROUP rooms in every project it is a member of. Ids are
     * the hub's global conversation keys: a direct conversation's Maity id (the agent's member id)
     * repeats in every project the agent is in.
     */
    async rooms(agent: AgentCaller): Promise<AgentRoom[]> {
      const rows = await readKeys(db, agent, { projectId: null, observed: false });
      return rows
        .sort((a, b) => compareListKeys(listKeyOf(a), listKeyOf(b)))
        .map((r) => ({
          id: r.key,
          type: r.kind === "direct" ? ("DM" as const) : ("GROUP" as const),
          title: r.title,
          maity: { project: projectFullName(r.projectOwner, r.projectSlug), id: r.id },
          project: { id: r.projectId, name: r.projectName, version: NO_BRIEF_VERSION },
          closed: r.closedAt !== null,
          lastMessageAt: r.last?.sentAt.toISOString() ?? null,
        }));
    },

    /** GET /conversations/:id/context; null for a room the agent is not in, known or not (B-038). */
    async context(agent: AgentCaller, key: string): Promise<ContextEnvelope | null> {
      const row = await room(agent, key);
      return row ? envelope(agent, row) : null;
    },

    /**
     * GET /conversations/:id/messages (§5). `since`: the messages of the agent's window newer than
     * it, ascending (B-095) — a forward read, so it moves the agent's read marker and sets a direct
     * message's delivered_at (§9.1). Without: older history by `cursor`, newest first (B-096), back
     * to the chat's first message (§9.2 history; a visitor's placement, B-301), marking nothing read.
     * Null when not in the room (B-100).
     */
    async poll(agent: AgentCaller, key: string, q: z.output<typeof agentPollQuery>): Promise<AgentMessagePage | null> {
      if (q.since !== undefined && q.cursor !== undefined)
        throw HubError.invalid({ cursor: "not_with_since" }, "since and cursor together are invalid");
      const before = q.cursor === undefined ? null : decodeHistoryCursor(q.cursor);
      if (q.cursor !== undefined && before === null)
        throw HubError.invalid({ cursor: "bad_cursor" }, "the cursor is not one this route gave out");
      const row = await room(agent, key);
      if (!row) return null;
      let rendered: Awaited<ReturnType<typeof renderForAgent>>;
      let nextCursor: string | null = null;
      if (q.since !== undefined) {
        const since = new Date(q.since);
        const where = { conversationId: row.key, seq: { gt: row.windowSeq } };
        rendered = await loadRendered(agent.id, { ...where, sentAt: { gt: since } }, "asc", q.limit);
        const last = rendered.length === q.limit ? rendered.at(-1) : undefined;
        // A full page ends on a whole millisecond, so `since` = its last createdAt loses nothing.
        if (last)
          rendered.push(
            ...(await loadRendered(
              agent.id,
              { ...where, seq: { gt: last.row.seq }, sentAt: last.row.sentAt },
              "asc",
              1000,
            )),
          );
        const highest = rendered.at(-1)?.row.seq ?? 0;
        await messages.markRead(agent, row, highest);
        await messages.markDeliveredTo(
          agent.id,
          rendered.map((r) => r.row.seq),
        );
      } else {
        const floor = await historyFloor(agent, row);
        rendered = await loadRendered(
          agent.id,
          { conversationId: row.key, seq: { gt: floor, ...(before !== null ? { lt: before } : {}) } },
          "desc",
          q.limit + 1,
        );
        if (rendered.length > q.limit) {
          rendered = rendered.slice(0, q.limit);
          nextCursor = encodeHistoryCursor((rendered.at(-1) as (typeof rendered)[number]).row.seq);
        }
        // Returned to the agent is delivered (§9.1), whichever way it was read; history marks nothing read.
        await messages.markDeliveredTo(
          agent.id,
          rendered.map((r) => r.row.seq),
        );
      }
      // Issue 16: each poll's tally for this reader and each message's reactions, one batch for the page.
      const page = await withAgentMedia(
        db,
        agent.id,
        rendered.map((r) => r.message),
      );
      return { messages: page, nextCursor, context: await envelope(agent, row) };
    },

    /**
     * POST /conversations/:id/messages (§7): the same write as Maity's (mentions, routing verdicts,
     * audience, marker), with the agent's metadata and reply target. Not in the room → not_found (B-116).
     */
    async send(
      agent: AgentCaller,
      key: string,
      data: z.output<typeof agentSendInput>,
      idempotencyKey: string | null = null,
      wakes?: string,
    ): Promise<{ message: AgentMessage; replayed: boolean }> {
      // Issue 12: the Idempotency-Key header or clientMessageId names a send a client may retry.
      if (idempotencyKey !== null && data.clientMessageId !== undefined && idempotencyKey !== data.clientMessageId)
        throw HubError.invalid(
          { clientMessageId: "differs_from_idempotency_key" },
          "clientMessageId and the Idempotency-Key header name different sends",
        );
      const clientKey = idempotencyKey ?? data.clientMessageId ?? null;
      const type = data.metadata?.type;
      if (typeof type === "string" && (RESERVED_MESSAGE_TYPES as readonly string[]).includes(type))
        throw HubError.invalid({ "metadata.type": "reserved" }, `metadata.type ${type} is written by the hub only`, {
          agentCode: "RESERVED_MESSAGE_TYPE",
        });
      for (const reserved of SERVER_METADATA_KEYS)
        if (data.metadata && reserved in data.metadata)
          throw HubError.invalid({ [`metadata.${reserved}`]: "server_set" }, `metadata.${reserved} is set by the hub`);
      const replyToSeq = data.replyToMessageId == null ? null : seqOfMessageId(data.replyToMessageId);
      const row = await room(agent, key, true);
      if (!row) throw HubError.notFound("conversation not found");
      // An id that names no message of the log is outside this conversation too (B-126).
      if (data.replyToMessageId != null && replyToSeq === null)
        throw HubError.invalid(
          { reply_to: "not_in_conversation" },
          "the message replied to is not in this conversation",
          { agentCode: "INVALID_REPLY_TARGET" },
        );
      const fileIds = sendAttachmentIds(data);
      const card = data.card ? sendableCard(data.card) : null;
      // v1.11: a card message says its type in metadata.type, as a poll says card.poll (B-234).
      const metadata = card ? { ...(data.metadata ?? {}), type: card.type } : (data.metadata ?? null);
      const write = { body: data.content, metadata, replyToSeq, wakes, card };
      const idempotency = idempotencyOf(clientKey, ["agent", row.key, { ...write, fileIds }]);
      const files = await linkAttachments(db, agent, row, fileIds, idempotency !== null);
      const written = await messages.writeIn(agent, row, { ...write, ...files }, idempotency);
      return { message: written.agentMessage, replayed: written.replayed };
    },

    /**
     * contact_agent (B-075, B-079): a message in a room both agents are in, addressed to the other
     * one by an @mention (added in front unless the text already has it), so its verdict is
     * `mentioned` and it wakes. Spent rounds refuse it before anything is sent (messages' write).
     * A room the caller is not in, or an agent not in it (or itself), answers not_found alike.
     */
    async contact(agent: AgentCaller, input: z.output<typeof contactAgentInput>): Promise<AgentMessage> {
      const row = await room(agent, input.conversationId, true);
      const participants = row ? ((await readParticipants(db, [row.key])).get(row.key) ?? []) : [];
      const target =
        input.agentId !== agent.id
          ? participants.find((p) => p.kind === "agent" && p.memberId === input.agentId)
          : undefined;
      if (row?.kind !== "group" || !target) throw HubError.notFound("no such agent in this conversation");
      const info = (await membersById(db, [target.memberId])).get(target.memberId);
      const handle = info?.name.slice(info.name.lastIndexOf("/") + 1) ?? target.memberId;
      const named = resolveMentions(input.content, [
        { member_id: target.memberId, handle, names: info ? [info.name] : [] },
      ]);
      const content = named.length ? input.content : `@${info?.name ?? target.memberId} ${input.content}`;
      const data = { content, replyToMessageId: input.replyToMessageId };
      return (await service.send(agent, row.key, data, null, target.memberId)).message;
    },

    /**
     * GET /agents, list_agents (B-356, B-308): the other agents the caller can meet — those of its
     * own Bay, and those active in a project it is active in (a project's members already see each
     * other, M-240). `fromAnotherBay` marks the second kind when their Bay is not the caller's.
     */
    async directory(agent: AgentCaller): Promise<AgentDirectoryEntry[]> {
      const [owner, mine] = await Promise.all([
        db.human.findUniqueOrThrow({ where: { id: agent.ownerId }, select: { bayId: true } }),
        db.membership.findMany({ where: { memberId: agent.id, status: "active" }, select: { projectId: true } }),
      ]);
      const peers = await db.membership.findMany({
        where: { projectId: { in: mine.map((m) => m.projectId) }, memberKind: "agent", status: "active" },
        select: { memberId: true },
      });
      const rows = await db.agent.findMany({
        where: {
          id: { not: agent.id },
          OR: [{ owner: { bayId: owner.bayId } }, { id: { in: peers.map((p) => p.memberId) } }],
        },
        select: { id: true, handle: true, description: true, owner: { select: { handle: true, bayId: true } } },
        orderBy: [{ owner: { handle: "asc" } }, { handle: "asc" }],
      });
      return rows.map((a) => ({
        id: a.id,
        name: oneLine(`${a.owner.handle}/${a.handle}`),
        description: oneLine(a.description, DESCRIPTION_MAX),
        fromAnotherBay: a.owner.bayId !== owner.bayId,
      }));
    },

    /** POST /conversations/:id/typing (§7): tells the room's people; not in the room → not_found. */
    async typing(agent: AgentCaller, key: string): Promise<void> {
      const row = await room(agent, key);
      if (!row) throw HubError.notFound("conversation not found");
      refuseClosed(row);
      await publishTyping(db, bus, row, agent.id);
    },
  };
  return service;
}
export type AgentService = ReturnType<typeof agentService>;
