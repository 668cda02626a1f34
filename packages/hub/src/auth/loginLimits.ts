import type { SqlExecutor } from "@maity/db";
import type { RateLimits } from "./limits.ts";

// The login limits' token buckets (docs/security.md "Login limits"). In one process (PGlite) they
// are the rate limiter's buckets; on PostgreSQL every app instance spends from the same rows, so N
// instances allow a handle its 10 failures, not N × 10. A spend is one statement: an upsert that
// refills the bucket by the time passed (the database's clock, the same for every instance), takes
// a token if there is one and says whether it did — the row's lock orders concurrent spends.

export interface LoginBuckets {
  /** Spends one of `id`'s tokens (`capacity`, all back within `windowMs`): null when allowed, else the seconds to wait. */
  spend(id: string, capacity: number, windowMs: number): Promise<number | null>;
  /** Gives back the token `spend` took (a login that succeeded is no failure). */
  refund(id: string, capacity: number, windowMs: number): Promise<void>;
}

/** The rate limiter's in-process buckets. */
export function memoryLoginBuckets(limits: RateLimits): LoginBuckets {
  return {
    spend: async (id, capacity, windowMs) => limits.spend(id, capacity, windowMs),
    refund: async (id, capacity, windowMs) => limits.refund(id, capacity, windowMs),
  };
}

/** Now on the database's clock, in milliseconds. */
const NOW_MS = "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::float8";
/**
 * The bucket refilled up to now: $2 the capacity, $3 the window in ms. Concurrent spends take the
 * row's lock in any order, and a statement that started first may come second: its "now" is then
 * before the row's, and time never runs back (GREATEST), or it would take tokens below what was spent.
 */
const REFILLED = `LEAST($2::float8, l.tokens + GREATEST(0, ${NOW_MS} - l.at_ms) * $2::float8 / $3::float8)`;
const AT = `GREATEST(l.at_ms, ${NOW_MS})`;
const SPEND_SQL = `
INSERT INTO login_limits AS l (key, tokens, at_ms, window_ms, allowed)
VALUES ($1, CASE WHEN $2::float8 >= 1 THEN $2::float8 - 1 ELSE $2::float8 END, ${NOW_MS}, $3::float8, $2::float8 >= 1)
ON CONFLICT (key) DO UPDATE SET
  tokens = CASE WHEN ${REFILLED} >= 1 THEN ${REFILLED} - 1 ELSE ${REFILLED} END,
  at_ms = ${AT},
  allowed = ${REFILLED} >= 1
RETURNING tokens, allowed`;
const REFUND_SQL = `UPDATE login_limits l SET tokens = LEAST($2::float8, ${REFILLED} + 1), at_ms = ${AT} WHERE l.key = $1`;
/** A bucket untouched for its whole window is full again, as if it had never been: its row can go. */
const PRUNE_SQL = `DELETE FROM login_limits WHERE at_ms + window_ms < ${NOW_MS}`;

/**
 * The buckets in the `login_limits` table, shared by every app instance on the database. A row's key
 * names its capacity and window too: instances configured alike share a bucket, and a row's tokens
 * always count against the capacity they were spent from.
 */
export function sharedLoginBuckets(sql: SqlExecutor, now: () => number = Date.now): LoginBuckets {
  let prunedAt = now();
  const key = (id: string, capacity: number, windowMs: number) => `${id} ${capacity}/${windowMs}`;

  /** Forgets full buckets now and then (at most once per window), so the table stays small. */
  function prune(windowMs: number): void {
    if (now() - prunedAt < windowMs) return;
    prunedAt = now();
    sql.query(PRUNE_SQL).catch((error: unknown) => console.error("maity: pruning login limits", error));
  }

  return {
    async spend(id, capacity, windowMs) {
      prune(windowMs);
      const [row] = await sql.query<{ tokens: number; allowed: boolean }>(SPEND_SQL, [
        key(id, capacity, windowMs),
        capacity,
        windowMs,
      ]);
      if (!row || row.allowed) return null;
      return Math.max(1, Math.ceil(((1 - Number(row.tokens)) * windowMs) / capacity / 1000));
    },
    async refund(id, capacity, windowMs) {
      await sql.query(REFUND_SQL, [key(id, capacity, windowMs), capacity, windowMs]);
    },
  };
}
