import type { SqlExecutor } from "@maity/db";
import type { Claim } from "./webhookBodies.ts";

// The webhook queue's one statement (004 §11, OQ-B-21): it writes the outcomes of the attempts that
// ended since the last round and claims the next due deliveries, with what sending them needs (the
// webhook, the agent, the message's room) — one round trip a round, however many deliveries it
// carries. Several app instances share the table: a row is claimed by a conditional update (it must
// still be pending and unlocked when the update reaches it, so two instances never both take it).
//
// Order per agent (each receiver sees its messages in the log's order): only an agent's oldest
// pending delivery is ever due, and never while it is locked (in flight somewhere) or waiting for
// its retry. An outcome written in this statement is not yet visible to its own reads, so the rows
// it ends for good are left out of the heads by id: the agent's next delivery is due at once.
//
// A row is updated by its primary key, its status a filter (\`IS TRUE\`): the status index holds an
// entry for every version a row ever had while pending, and PGlite, which never vacuums and keeps
// no statistics, would otherwise read them all through it for a few rows.
//
// Finding the heads reads every pending row (a sort over them; on PGlite, with no vacuum, over
// every dead version the status index still points to), so a round does it only when asked
// (`scan`): a new message queued, a timer, a previous scan that left due heads behind. Otherwise it
// follows: an agent whose head just ended for good has its next row, if pending, as its new head
// (commit order is seq order, append.ts, and only heads are ever claimed), found by the
// (agent_id, event_seq) index alone — rows queued while the agent was busy included, which a scan
// leaves out. A followed row seen but not claimed (past the limit, locked elsewhere) is followed again.

/** How an attempt ended, as the row keeps it. */
export type Outcome =
  | { id: string; status: "delivered"; lastStatus: number; at: Date }
  | { id: string; status: "pending"; lastStatus: number | null; lastError: string; nextAttemptAt: Date }
  | { id: string; status: "failed"; lastStatus: number | null; lastError: string }
  | { id: string; status: "dropped"; lastError: string }
  /** Claimed but never sent (the worker closed): pending again at once, the attempt not counted. */
  | { id: string; status: "released" };

/** The heads of every agent's queue, found by a scan (only when asked: `Seek.scan`). */
const SCAN_HEADS = `
  UNION ALL
  (SELECT DISTINCT ON (agent_id) id, agent_id, event_seq, next_attempt_at, locked_until, true AS scanned
   FROM webhook_deliveries
   WHERE status = 'pending' AND NOT (id = ANY($8::text[])) AND NOT (agent_id = ANY($9::text[]))
     AND NOT (agent_id = ANY($6::text[]))
   ORDER BY agent_id, event_seq)`;

/**
 * The round, with the scan or without: two texts, so that each is a prepared statement of its own
 * whose plan does not depend on the parameters' values — the database plans it once and reuses the
 * plan (a plan for "scan or not" as a parameter was planned again at every round: ~1 ms on PGlite).
 * $1 outcomes (jsonb), $2 now, $3 how many to claim, $4 the lock's end, $5 the outcomes' ids (so the
 * update reads them by key, not by a scan of the queue), $6/$7 the agents followed and the seq each
 * one's head had; the scan's own: $8 ids ended for good, $9 agents busy here.
 */
const roundSql = (scan: boolean) => `
WITH done AS (
  UPDATE webhook_deliveries d SET status = CASE WHEN o.status = 'released' THEN 'pending' ELSE o.status END,
         locked_until = NULL,
         attempts = CASE WHEN o.status = 'released' THEN d.attempts - 1 ELSE d.attempts END,
         last_status = CASE WHEN o.status = 'released' THEN d.last_status ELSE o.last_status END,
         last_error = CASE WHEN o.status = 'released' THEN d.last_error ELSE o.last_error END,
         delivered_at = o.delivered_at, next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at)
  FROM jsonb_to_recordset($1::jsonb) AS o(id text, status text, last_status int, last_error text,
                                          delivered_at timestamp, next_attempt_at timestamp)
  WHERE d.id = ANY (ARRAY(SELECT unnest($5::text[]))) AND d.id = o.id AND (d.status = 'pending') IS TRUE
  RETURNING d.id),
followed AS (
  SELECT n.id, n.agent_id, n.event_seq, n.next_attempt_at, n.locked_until, false AS scanned
  FROM unnest($6::text[], $7::int[]) AS f(agent_id, after)
  CROSS JOIN LATERAL (
    SELECT x.id, x.agent_id, x.event_seq, x.next_attempt_at, x.locked_until, x.status FROM webhook_deliveries x
    WHERE x.agent_id = f.agent_id AND x.event_seq > f.after ORDER BY x.event_seq LIMIT 1) n
  WHERE n.status = 'pending'),
heads AS (
  SELECT * FROM followed${scan ? SCAN_HEADS : ""}),
due AS (
  SELECT id FROM heads
  WHERE next_attempt_at <= $2::timestamp AND (locked_until IS NULL OR locked_until < $2::timestamp)
  ORDER BY event_seq LIMIT $3::int),
claimed AS (
  UPDATE webhook_deliveries d SET locked_until = $4::timestamp, attempts = d.attempts + 1
  WHERE d.id = ANY (ARRAY(SELECT id FROM due)) AND (d.status = 'pending') IS TRUE
    AND (d.locked_until IS NULL OR d.locked_until < $2::timestamp)
  RETURNING d.id, d.agent_id, d.event_seq, d.attempts)
SELECT c.id, c.agent_id, c.event_seq, c.attempts, w.url, w.secret, a.handle, a.owner_id, h.bay_id AS owner_bay_id,
       e.conversation_id,
       EXISTS (SELECT 1 FROM webhook_deliveries n WHERE n.agent_id = c.agent_id AND n.event_seq > c.event_seq) AS more,
       CASE WHEN c.n IS NULL OR c.n = 1 THEN
         (SELECT (extract(epoch FROM min(greatest(x.next_attempt_at, coalesce(x.locked_until, x.next_attempt_at)))) * 1000)::float8
          FROM heads x WHERE NOT (x.next_attempt_at <= $2::timestamp
            AND (x.locked_until IS NULL OR x.locked_until < $2::timestamp))) END AS wake,
       CASE WHEN c.n IS NULL OR c.n = 1 THEN (SELECT array_agg(agent_id) FROM followed) END AS seen,
       CASE WHEN c.n IS NULL OR c.n = 1 THEN
         (SELECT count(*)::int FROM heads x WHERE x.scanned AND x.next_attempt_at <= $2::timestamp
            AND (x.locked_until IS NULL OR x.locked_until < $2::timestamp)
            AND NOT EXISTS (SELECT 1 FROM due WHERE due.id = x.id)) END AS left_behind
FROM (SELECT 1) one
LEFT JOIN (SELECT claimed.*, row_number() OVER () AS n FROM claimed) c ON true
LEFT JOIN webhooks w ON w.agent_id = c.agent_id
LEFT JOIN agents a ON a.id = c.agent_id
LEFT JOIN humans h ON h.id = a.owner_id
LEFT JOIN events e ON e.seq = c.event_seq
ORDER BY c.n`;
const ROUND_SQL = { scan: roundSql(true), follow: roundSql(false) };

type RoundRow = {
  id: string | null;
  agent_id: string;
  event_seq: number;
  attempts: number;
  url: string | null;
  secret: string | null;
  handle: string | null;
  owner_id: string | null;
  owner_bay_id: string | null;
  conversation_id: string | null;
  more: boolean | null;
  /** Epoch ms (the columns hold UTC). This and the two below: on the first row only (the rest null). */
  wake: number | string | null;
  /** The followed agents whose next row is pending (claimed or not). */
  seen: string[] | null;
  /** Heads the scan found due but left past the limit. */
  left_behind: number | null;
};

/** Whom a round claims for: the agents followed (their last head's seq), and whether to scan for heads. */
export interface Seek {
  follow: Map<string, number>;
  scan: boolean;
}

/**
 * One round: `outcomes` written, then up to `limit` due deliveries of agents not in `busy` claimed
 * until `lockMs` from now (the followed agents' next rows, and the heads when `scan`). Answers the
 * claims, when the next delivery seen but not yet due falls due (a retry's pause, another
 * instance's lock; null when none was seen), the followed agents with a pending next row, and how
 * many due heads the scan left past the limit (those wait for the worker's next round, not a timer).
 */
export async function round(
  sql: SqlExecutor,
  outcomes: Outcome[],
  busy: Iterable<string>,
  limit: number,
  lockMs: number,
  seek: Seek = { follow: new Map(), scan: true },
): Promise<{ claims: Claim[]; wake: Date | null; seen: Set<string>; leftBehind: number }> {
  const now = Date.now();
  const params: unknown[] = [
    JSON.stringify(
      outcomes.map((o) => ({
        id: o.id,
        status: o.status,
        last_status: "lastStatus" in o ? o.lastStatus : null,
        last_error: "lastError" in o ? o.lastError : null,
        delivered_at: o.status === "delivered" ? o.at.toISOString() : null,
        next_attempt_at: o.status === "pending" ? o.nextAttemptAt.toISOString() : null,
      })),
    ),
    new Date(now).toISOString(),
    limit,
    new Date(now + lockMs).toISOString(),
    outcomes.map((o) => o.id),
    [...seek.follow.keys()],
    [...seek.follow.values()],
  ];
  if (seek.scan)
    params.push(
      outcomes.filter((o) => o.status !== "pending" && o.status !== "released").map((o) => o.id),
      [...busy],
    );
  const rows = await sql.query<RoundRow>(seek.scan ? ROUND_SQL.scan : ROUND_SQL.follow, params);
  const wake = rows[0]?.wake ?? null;
  const claims: Claim[] = [];
  for (const r of rows) {
    if (r.id === null) continue;
    claims.push({
      id: r.id,
      agentId: r.agent_id,
      eventSeq: Number(r.event_seq),
      attempts: Number(r.attempts),
      url: r.url,
      secret: r.secret,
      handle: r.handle ?? "",
      ownerId: r.owner_id ?? "",
      ownerBayId: r.owner_bay_id ?? "",
      conversationKey: r.conversation_id ?? "",
      more: r.more === true,
    });
  }
  return {
    claims,
    wake: wake === null ? null : new Date(Number(wake)),
    seen: new Set(rows[0]?.seen ?? []),
    leftBehind: Number(rows[0]?.left_behind ?? 0),
  };
}
