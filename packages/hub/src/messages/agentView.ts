import {
  type AgentMessage,
  type ContextEnvelope,
  conversationRole,
  eventId,
  isVisiting,
  oneLine,
  replyPolicyOf,
  replyPreview,
  senderKindOf,
  shouldRespondFor,
  type InstructionPieces,
  type UpdatesEvent,
  type Visiting,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import { agentAttachmentMetadata, attachmentsOf, cardOf } from "../files/render.ts";
import type { RawQueryable } from "../raw.ts";

// The agent protocol's view of a message and of an event (004 §5, §11): BayChat's shapes rendered
// from the log's rows. Below every service: the write renders with it once after commit, the reads,
// the feed, webhooks and the log loader import it; it imports no service (DESIGN §1: one model,
// two surfaces, thin mappers).

/**
 * A room's context envelope for any of its agents (§3): the shared part, built once, and each
 * reader's own (the agent service builds it; webhook bodies splice it, webhookJson.ts).
 */
export interface RoomEnvelope {
  shared: Pick<ContextEnvelope, "conversation" | "project" | "participants" | "policy">;
  you(agent: AgentCaller): ContextEnvelope["you"];
  /** The reader's instructions in pieces (domain roomInstructions); joined, the envelope's text. */
  instructions(agent: AgentCaller): InstructionPieces;
  envelope(agent: AgentCaller): ContextEnvelope;
}

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
      project: { select: { id: true, name: true, bayId: true, briefVersion: true } },
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
    /** `briefVersion`: the brief's version when the row was read (B-262). */
    project: { id: string; name: string; bayId: string; briefVersion: number };
  } | null;
};

/**
 * `agentMessageSelect` as one hand-written statement, for the reads by seq on the fan-out's paths
 * (webhook bodies, the /updates and /ws feed): Prisma sends four (the events, then their redactions,
 * conversations and projects) and compiles each. The same rows (messages-view.int.test.ts compares
 * them with Prisma's for every kind of message), in seq order.
 */
const AGENT_MESSAGE_ROWS_SQL = `
SELECT e.seq, e.from_id, e.body, e.sent_at, e.metadata, e.mentions, e.redacted, e.reply_to_seq, e.card, e.attachments,
       r.event_seq AS redaction_seq, r.at AS redaction_at,
       c.id AS conversation_id, c.kind, c.title, c.created_by_id, c.reply_policy, c.designated_agent_id,
       p.id AS project_id, p.name AS project_name, p.bay_id, p.brief_version
FROM events e
LEFT JOIN redactions r ON r.event_seq = e.seq
LEFT JOIN conversations c ON c.id = e.conversation_id
LEFT JOIN projects p ON p.id = c.project_id
WHERE e.seq = ANY($1::int[])
ORDER BY e.seq`;

type AgentMessageSqlRow = {
  seq: number;
  from_id: string;
  body: string | null;
  sent_at: Date;
  metadata: unknown;
  mentions: unknown;
  redacted: boolean;
  reply_to_seq: number | null;
  card: unknown;
  attachments: unknown;
  redaction_seq: number | null;
  redaction_at: Date | null;
  conversation_id: string | null;
  kind: string;
  title: string | null;
  created_by_id: string | null;
  reply_policy: string;
  designated_agent_id: string | null;
  project_id: string;
  project_name: string;
  bay_id: string;
  brief_version: number;
};

/** The rows of `seqs` (those that exist) as `agentMessageSelect` reads them, in one statement. */
export async function readAgentMessageRows(raw: RawQueryable, seqs: readonly number[]): Promise<AgentMessageRow[]> {
  if (seqs.length === 0) return [];
  const rows = await raw.$queryRawUnsafe<AgentMessageSqlRow[]>(AGENT_MESSAGE_ROWS_SQL, [...seqs]);
  return rows.map((r) => ({
    seq: Number(r.seq),
    fromId: r.from_id,
    body: r.body,
    sentAt: r.sent_at,
    metadata: r.metadata,
    mentions: r.mentions,
    redacted: r.redacted,
    replyToSeq: r.reply_to_seq === null ? null : Number(r.reply_to_seq),
    card: r.card,
    attachments: r.attachments,
    redaction: r.redaction_seq === null ? null : { at: r.redaction_at as Date },
    conversation:
      r.conversation_id === null
        ? null
        : {
            id: r.conversation_id,
            kind: r.kind,
            title: r.title,
            createdById: r.created_by_id,
            replyPolicy: r.reply_policy,
            designatedAgentId: r.designated_agent_id,
            project: { id: r.project_id, name: r.project_name, bayId: r.bay_id, briefVersion: Number(r.brief_version) },
          },
  }));
}

export type MemberInfo = {
  name: string;
  visitingFrom: { bayId: string; bay: string; sponsor: { id: string; name: string } } | null;
};

/** Names (one line, B-048) and home Bays of members, in two statements. */
export async function membersById(db: Db | Tx, ids: string[]): Promise<Map<string, MemberInfo>> {
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
  return memberInfos(
    humans,
    agents.map((a) => ({ ...a, owner: { ...a.owner, bayHandle: a.owner.bay.handle } })),
  );
}

type HumanName = { id: string; displayName: string };
type AgentOwner = {
  id: string;
  handle: string;
  owner: { id: string; handle: string; displayName: string; bayId: string; bayHandle: string };
};

/** A member's name (one line, B-048) and, for an agent, its owner's Bay (whether it visits). */
function memberInfos(humans: HumanName[], agents: AgentOwner[]): Map<string, MemberInfo> {
  const out = new Map<string, MemberInfo>();
  for (const h of humans) out.set(h.id, { name: oneLine(h.displayName), visitingFrom: null });
  for (const a of agents)
    out.set(a.id, {
      name: oneLine(`${a.owner.handle}/${a.handle}`),
      visitingFrom: {
        bayId: a.owner.bayId,
        bay: a.owner.bayHandle,
        sponsor: { id: a.owner.id, name: oneLine(a.owner.displayName) },
      },
    });
  return out;
}

/** v1.14: an agent whose owner's Bay is not the project's is visiting there (DESIGN §1). */
export function visitingOf(info: MemberInfo | undefined, projectBayId: string): Visiting | null {
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
 * What rendering a batch of messages reads beside their rows, in one statement: the verdicts that
 * are true, the reply targets, which senders are still participants, the senders' names and owners.
 * $1 verdict seqs, $2 reply seqs, $3 conversations, $4 senders.
 */
const RENDER_FACTS_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_array(v.event_seq, v.agent_id)), '[]'::json)
     FROM routing_verdicts v WHERE v.event_seq = ANY($1::int[]) AND v.should_respond) AS verdicts,
  (SELECT coalesce(json_agg(json_build_array(e.seq, e.from_id, e.body, e.redacted)), '[]'::json)
     FROM events e WHERE e.seq = ANY($2::int[])) AS replies,
  (SELECT coalesce(json_agg(json_build_array(p.conversation_id, p.member_id)), '[]'::json)
     FROM participations p
     WHERE p.conversation_id = ANY($3::text[]) AND p.member_id = ANY($4::text[]) AND p.left_at IS NULL) AS present,
  (SELECT coalesce(json_agg(json_build_array(h.id, h.display_name)), '[]'::json)
     FROM humans h WHERE h.id = ANY($4::text[])) AS humans,
  (SELECT coalesce(json_agg(json_build_array(a.id, a.handle, o.id, o.handle, o.display_name, o.bay_id, b.handle)),
                   '[]'::json)
     FROM agents a JOIN humans o ON o.id = a.owner_id JOIN bays b ON b.id = o.bay_id
     WHERE a.id = ANY($4::text[])) AS agents`;

type RenderFactsRow = {
  verdicts: [number, string][];
  replies: [number, string, string | null, boolean][];
  present: [string, string][];
  humans: [string, string][];
  agents: [string, string, string, string, string, string, string][];
};

/**
 * Renders messages for every agent at once: the message with shouldRespond false and the agents
 * whose verdict is true (`respond`). One statement whatever the number of messages.
 */
export async function renderAgentEvents(
  db: RawQueryable,
  rows: AgentMessageRow[],
  /** The messages whose verdicts are wanted (default all): a history turn carries none (B-175). */
  verdictSeqs: readonly number[] = rows.map((r) => r.seq),
): Promise<{ message: AgentMessage; row: AgentMessageRow; respond: string[] }[]> {
  if (rows.length === 0) return [];
  const replySeqs = [...new Set(rows.map((r) => r.replyToSeq).filter((s): s is number => s !== null))];
  const conversationIds = [...new Set(rows.map((r) => r.conversation?.id).filter((id): id is string => !!id))];
  const senders = [...new Set(rows.map((r) => r.fromId))];
  const [facts] = await db.$queryRawUnsafe<RenderFactsRow[]>(
    RENDER_FACTS_SQL,
    [...verdictSeqs],
    replySeqs,
    conversationIds,
    senders,
  );
  const respond = new Map<number, string[]>();
  for (const [seq, agentId] of facts?.verdicts ?? []) respond.set(seq, [...(respond.get(seq) ?? []), agentId]);
  const replyBySeq = new Map(
    (facts?.replies ?? []).map(([seq, fromId, body, redacted]) => [seq, { seq, fromId, body, redacted }]),
  );
  const present = new Set((facts?.present ?? []).map(([conversationId, memberId]) => `${conversationId} ${memberId}`));
  const members = memberInfos(
    (facts?.humans ?? []).map(([id, displayName]) => ({ id, displayName })),
    (facts?.agents ?? []).map(([id, handle, ownerId, ownerHandle, displayName, bayId, bayHandle]) => ({
      id,
      handle,
      owner: { id: ownerId, handle: ownerHandle, displayName, bayId, bayHandle },
    })),
  );
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
    // The version as the row was read; a feed that hands the brief sets the current one (knowledge/handed.ts).
    project: { id: c?.project.id ?? "", name: c?.project.name ?? "", version: c?.project.briefVersion ?? 0 },
  };
}
