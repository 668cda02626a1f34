import type { SqlExecutor } from "@maity/db";

/**
 * What the hub's hand-written reads need: Prisma's client and transactions have it, and so does the
 * driver itself (`rawOf`), which the hot paths use to skip Prisma's per-query work.
 */
export interface RawQueryable {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export function rawOf(sql: SqlExecutor): RawQueryable {
  return { $queryRawUnsafe: <T>(query: string, ...values: unknown[]) => sql.query(query, values) as Promise<T> };
}
