import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import { eventId } from "@maity/domain";
import type { Database } from "@maity/db";
import { APPEND_LOCK_KEY } from "@maity/hub";

// pnpm bench:send's limit (send.ts): a bare node:http server doing the hub's durable work for one
// chat message by hand-written SQL on the hub's own driver, statement by statement below. The limit
// takes the hub's own gap-free append lock (packages/hub/src/delivery/append.ts): the same durable
// work includes serialising appends, so commit order is seq order.

// ---------------------------------------------------------------------------------------------
// B. The limit: the same POST, by hand-written SQL on the hub's driver.
// ---------------------------------------------------------------------------------------------

export type Sql = Database["sql"];
type Participant = { id: string; kind: "human" | "agent" };

/** 1. The bearer token by its SHA-256 (access_tokens → humans). */
const AUTH_SQL = `SELECT h.id FROM access_tokens t JOIN humans h ON h.id = t.human_id
 WHERE t.hash = $1 AND t.kind = 'human' AND t.revoked_at IS NULL`;
/** 2. The conversation by its route (the writer an active project member) and its current participants. */
const ROOM_SQL = `SELECT c.id, c.public_id, c.kind, c.project_id, c.closed_at IS NOT NULL AS closed,
  COALESCE((SELECT json_agg(json_build_object('id', p.member_id, 'kind', p.member_kind) ORDER BY p.joined_at, p.id)
            FROM participations p WHERE p.conversation_id = c.id AND p.left_at IS NULL), '[]') AS participants
 FROM bays b JOIN projects pr ON pr.bay_id = b.id JOIN conversations c ON c.project_id = pr.id
 WHERE b.handle = $1 AND pr.slug = $2 AND c.public_id = $3
   AND EXISTS (SELECT 1 FROM memberships m WHERE m.project_id = pr.id AND m.member_id = $4 AND m.status = 'active')`;
/** 3–8, one transaction: the append lock, the event, its audience, the verdicts, the head, the marker and counters. */
const LOCK_SQL = "SELECT pg_advisory_xact_lock($1)";
const EVENT_SQL = `INSERT INTO events (kind, type, project_id, conversation_id, from_id, to_id, body, mentions, sent_at)
 VALUES ('message', 'chat', $1, $2, $3, $4, $5, '[]', $6::timestamptz AT TIME ZONE 'UTC') RETURNING seq`;
const AUDIENCE_SQL = "INSERT INTO event_audience (event_seq, member_id) SELECT $1, unnest($2::text[])";
const VERDICTS_SQL =
  "INSERT INTO routing_verdicts (event_seq, agent_id, should_respond, reason) SELECT $1, unnest($2::text[]), false, 'not_addressed'";
const HEAD_SQL = `UPDATE conversations SET last_seq = $2, last_message_at = $3::timestamptz AT TIME ZONE 'UTC'
 WHERE id = $1 AND (last_seq IS NULL OR last_seq < $2)`;
/**
 * The writer's marker, every participant's counters (§9.2 unread, mentions_unread) and the list's
 * activity_at (§9.3), as the hub's write keeps them: one UPDATE over the chat's participations (the
 * bench's bodies mention nobody).
 */
const MARKER_SQL = `UPDATE participations SET
   read_marker_seq = CASE WHEN member_id = $2 THEN GREATEST(read_marker_seq, $3) ELSE read_marker_seq END,
   unread = CASE WHEN member_id = $2 THEN 0 ELSE unread + 1 END,
   mentions_unread = CASE WHEN member_id = $2 THEN 0 ELSE mentions_unread END,
   activity_at = $4::timestamptz AT TIME ZONE 'UTC'
 WHERE conversation_id = $1 AND left_at IS NULL`;

const ROUTE = /^\/api\/projects\/([^/]+)\/([^/]+)\/conversations\/([^/]+)\/messages$/;

/** The limit server; `statements` counts what it sends (BEGIN and COMMIT included). */
export async function startLimitServer(
  sql: Sql,
): Promise<{ url: string; statements: () => number; close(): Promise<void> }> {
  let statements = 0;
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  };
  const fail = (res: ServerResponse, status: number, code: string) =>
    answer(res, status, { error: { code, message: code, details: {} } });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = req.method === "POST" ? ROUTE.exec(new URL(req.url ?? "/", "http://127.0.0.1").pathname) : null;
    if (!route) return fail(res, 404, "not_found");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let input: { body?: unknown };
    try {
      input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return fail(res, 400, "invalid");
    }
    const body = input?.body;
    if (typeof body !== "string" || !body.trim() || body.length > 20_000) return fail(res, 400, "invalid");
    const token = /^Bearer\s+(mty_\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!token) return fail(res, 401, "unauthenticated");
    statements += 1;
    const [writer] = await sql.query<{ id: string }>(AUTH_SQL, [createHash("sha256").update(token).digest("hex")]);
    if (!writer) return fail(res, 401, "unauthenticated");
    const [owner, slug, publicId] = route.slice(1).map(decodeURIComponent) as [string, string, string];
    statements += 1;
    const [room] = await sql.query<{
      id: string;
      public_id: string;
      kind: string;
      project_id: string;
      closed: boolean;
      participants: Participant[];
    }>(ROOM_SQL, [owner, slug, publicId, writer.id]);
    if (!room?.participants.some((p) => p.id === writer.id)) return fail(res, 404, "not_found");
    if (room.kind !== "group") return fail(res, 400, "invalid"); // the bench writes in a group chat only
    if (room.closed) return fail(res, 409, "conversation_closed");
    const sentAt = new Date();
    const at = sentAt.toISOString();
    const seq = await sql.transaction(async (tx) => {
      statements += 8; // BEGIN, six statements, COMMIT
      await tx.query(LOCK_SQL, [APPEND_LOCK_KEY]);
      const [event] = await tx.query<{ seq: number }>(EVENT_SQL, [
        room.project_id,
        room.id,
        writer.id,
        room.public_id,
        body,
        at,
      ]);
      const s = (event as { seq: number }).seq;
      await tx.query(AUDIENCE_SQL, [s, room.participants.map((p) => p.id)]);
      await tx.query(VERDICTS_SQL, [s, room.participants.filter((p) => p.kind === "agent").map((p) => p.id)]);
      await tx.query(HEAD_SQL, [room.id, s, at]);
      await tx.query(MARKER_SQL, [room.id, writer.id, s, at]);
      return s;
    });
    answer(res, 201, {
      id: eventId(seq),
      seq,
      conversation_id: room.public_id,
      from: writer.id,
      to: room.public_id,
      body,
      sent_at: at,
      mentions: [],
      attachments: [],
      from_instance: null,
      to_instance: null,
      redacted: false,
      redaction: null,
    });
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`limit server: ${(error as Error).message}\n`);
      if (!res.headersSent) fail(res, 500, "internal");
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    statements: () => statements,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
