import type { Message, QuietType } from "@maity/domain";
import type { SqlExecutor, Tx } from "@maity/db";
import { APPEND_LOCK_KEY } from "../delivery/append.ts";
import type { LogEvent } from "../delivery/bus.ts";
import type { KeyRow } from "../access/visibility.ts";
import { renderMessage } from "./render.ts";

// A quiet line (DESIGN §4b): a message of the chat from "system" that wakes nobody — no verdict, no
// webhook delivery — counts in no unread or mention (no participation's counter moves; the marker
// skips them, counters.ts) and is no agent round (writeSql.ts). Its audience is the chat's people:
// agents read it in the chat's history, never as an event.

/** Prisma's transaction as the SQL executor a quiet line writes with (one transaction for all). */
export const executorOf = (tx: Tx): SqlExecutor => ({
  exec: async (text) => {
    await tx.$executeRawUnsafe(text);
  },
  query: (text, params = []) => tx.$queryRawUnsafe(text, ...params),
});

export interface QuietLine {
  type: QuietType;
  /** The member the line is about. */
  actor: string;
  /** What it is about (a note's id): the same line twice in a row is written once. */
  subject: string;
  body: string;
}

/** The same line among the chat's newest this many messages is not written again. */
export const QUIET_WINDOW = 50;

/**
 * The line after the append lock, in one statement: the log's head (the event's `prev`), the event
 * and its audience — unless the same line (type, actor, subject) is among the chat's newest
 * QUIET_WINDOW messages: an agent editing one note ten times, or opening two shelf notes by turns,
 * leaves one line each, not a flood. $1 conversation, $2 project, $3 to, $4 body, $5 metadata, $6 at.
 */
const QUIET_SQL = `
WITH last AS (
  SELECT from_id, metadata FROM events WHERE conversation_id = $1 AND kind = 'message' ORDER BY seq DESC LIMIT ${QUIET_WINDOW}),
head AS (SELECT coalesce(max(seq), 0)::int AS head FROM events),
e AS (
  INSERT INTO events (kind, type, project_id, conversation_id, from_id, to_id, body, mentions, metadata, pings, agent_round, sent_at)
  SELECT 'message', 'quiet', $2, $1, 'system', $3, $4, '[]'::jsonb, $5::jsonb, 0, 0, $6::timestamp
  WHERE NOT EXISTS (SELECT 1 FROM last WHERE last.from_id = 'system' AND last.metadata = $5::jsonb)
  RETURNING seq),
a AS (
  INSERT INTO event_audience (event_seq, member_id)
  SELECT e.seq, p.member_id FROM e JOIN participations p
    ON p.conversation_id = $1 AND p.left_at IS NULL AND p.member_kind = 'human'
  RETURNING member_id)
SELECT e.seq, (SELECT head FROM head) AS head, (SELECT coalesce(array_agg(member_id), '{}') FROM a) AS audience FROM e`;

/**
 * Writes the line in `tx` (the change it tells of commits with it: nothing half-written); the log
 * event to publish once that commits, or null when the line was already the chat's newest.
 */
export async function writeQuietLine(tx: SqlExecutor, row: KeyRow, line: QuietLine): Promise<LogEvent | null> {
  await tx.exec(`SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY})`);
  const metadata = { type: line.type, actor: line.actor, subject: line.subject };
  const sentAt = new Date();
  const [written] = await tx.query<{ seq: number; head: number; audience: string[] }>(QUIET_SQL, [
    row.key,
    row.projectId,
    row.id,
    line.body,
    JSON.stringify(metadata),
    sentAt.toISOString(),
  ]);
  if (!written) return null;
  const seq = Number(written.seq);
  const maity: Message = renderMessage(
    {
      seq,
      kind: "message",
      fromId: "system",
      toId: row.id,
      fromInstanceId: null,
      toInstanceId: null,
      body: line.body,
      mentions: [],
      metadata,
      sentAt,
      deliveredAt: null,
      redacted: false,
      payload: null,
      redaction: null,
      conversation: { publicId: row.id, kind: row.kind },
    },
    { id: "system", admin: false },
  );
  return {
    type: "event",
    seq,
    prev: Number(written.head),
    kind: "message",
    sentAt: sentAt.toISOString(),
    conversationId: row.id,
    project: { owner: row.projectOwner, slug: row.projectSlug },
    audience: written.audience,
    maity,
  };
}
