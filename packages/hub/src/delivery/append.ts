import type { Db, Tx } from "@maity/db";

// The gap-free log (DESIGN §1, docs/development.md "The log"). events.seq is a sequence: two
// transactions that take seqs N and N+1 may commit in either order, and a reader that saw N+1
// before N committed would step over N for good. Every append therefore takes one
// transaction-scoped advisory lock first and draws its seq under it: the lock is released only
// after the commit is visible, so commit order is seq order, and a reader that has seen seq P has
// seen every event ≤ P that will ever exist. The lock is held from just before the log is read
// for the write until the commit — three statements — so appends queue for about one round trip
// of the database each; nothing else (reads, markers, pins) takes it.

/** pg_advisory_xact_lock key of the log's append (an arbitrary constant, the same in every instance). */
export const APPEND_LOCK_KEY = 7_244_001;

/**
 * Takes the append lock for the rest of the transaction. Read the head in a later statement: one
 * statement's snapshot is taken before the lock is granted (READ COMMITTED).
 */
export async function takeAppendLock(tx: Tx): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY})`);
}

/** The log's last seq (committed), by its primary key's index. */
export async function logHead(db: Db | Tx): Promise<number> {
  const [row] = await db.$queryRawUnsafe<{ head: number }[]>("SELECT coalesce(max(seq), 0)::int AS head FROM events");
  return Number(row?.head ?? 0);
}
