import type { PGlite, Results } from "@electric-sql/pglite";
import { parse as pgliteParse, protocol } from "@electric-sql/pglite";
import { CUSTOM_PLAN } from "./migrate.ts";

/**
 * Named prepared statements on PGlite, for the raw runner's statements and Prisma's (outside a
 * transaction). PGlite's `query` sends Parse, Describe, Bind, Describe, Execute and Sync as six
 * calls into the WASM backend (six round trips to its thread, pgliteThread.ts) and plans the
 * statement again each time; a statement prepared once runs as one Bind/Describe/Execute/Sync
 * buffer on a cached plan. Measured on this machine: a three-CTE read 0.36 ms → 0.07 ms.
 * PostgreSQL gets the same from node-postgres's named statements (the raw runner's, open.ts).
 */

/**
 * Prepared statements per database, for each of the two callers: the raw runner's texts are
 * constants; Prisma's vary only with the length of an `IN` list. Beyond it, a text is unprepared.
 */
const MAX_PREPARED = 256;

type Parsers = Record<number, (value: string) => unknown>;
type Options = { parsers?: Parsers };
/** What Prisma's PGlite adapter passes to `query`. */
type QueryOptions = {
  rowMode?: "array" | "object";
  parsers?: Parsers;
  serializers?: Record<number, (v: unknown) => string>;
};
/** PGlite's own mutexes: the public `runExclusive` is only the query one. */
type Exclusive = {
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
};

interface Statement {
  name: string;
  paramTypes: number[];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export function preparedQueries(pg: PGlite, options: Options) {
  const serialize = protocol.serialize;
  const exclusive = pg as unknown as Exclusive;
  /** The two callers' statements, by text (their names apart). */
  const raw = { prefix: "maity_", statements: new Map<string, Statement>() };
  const prisma = { prefix: "prisma_", statements: new Map<string, Statement>() };
  type Cache = typeof raw;
  /** PGlite's parsers with the caller's over them, by the caller's options object (constants). */
  const merged = new WeakMap<object, Parsers>();
  const parsersFor = (queryOptions: QueryOptions): Parsers => {
    if (!queryOptions.parsers) return pg.parsers as Parsers;
    let parsers = merged.get(queryOptions.parsers);
    if (!parsers) {
      parsers = { ...(pg.parsers as Parsers), ...queryOptions.parsers };
      merged.set(queryOptions.parsers, parsers);
    }
    return parsers;
  };

  /** Parses `text` once as a named statement (inside PGlite's query mutex). */
  async function prepare(cache: Cache, text: string): Promise<Statement | null> {
    const known = cache.statements.get(text);
    if (known) return known;
    if (cache.statements.size >= MAX_PREPARED || text.startsWith(CUSTOM_PLAN)) return null;
    const name = `${cache.prefix}${cache.statements.size + 1}`;
    const { messages } = await pg.execProtocol(
      concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    );
    const description = messages.find((m) => m.name === "parameterDescription") as
      | { dataTypeIDs: number[] }
      | undefined;
    const statement = { name, paramTypes: description?.dataTypeIDs ?? [] };
    cache.statements.set(text, statement);
    return statement;
  }

  /** `text` on its prepared statement (null: none left to prepare); the results as PGlite's `query` has them. */
  async function run(
    cache: Cache,
    text: string,
    params: unknown[],
    inTransaction: boolean,
    queryOptions: QueryOptions,
  ): Promise<Results<unknown> | null> {
    const statement = await prepare(cache, text);
    if (!statement) return null;
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const type = statement.paramTypes[i] ?? 0;
      const serializer = queryOptions.serializers?.[type] ?? pg.serializers[type];
      return serializer ? (serializer(param) as string) : String(param);
    });
    const { messages } = await pg.execProtocol(
      concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.describe({ type: "P" }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: !inTransaction },
    );
    // PGlite's parseResults copies every type's parser into a new table when the options carry
    // parsers (~3 % of the webhook fan-out's thread): merged once per options object here.
    const rowMode = queryOptions.rowMode === undefined ? undefined : { rowMode: queryOptions.rowMode };
    return pgliteParse.parseResults(messages, parsersFor(queryOptions), rowMode)[0] ?? { rows: [], fields: [] };
  }

  return {
    /**
     * A statement outside a transaction: it waits for any transaction, as `pg.query` does. One not
     * prepared (CUSTOM_PLAN, or past the bound) runs on `pg.query` after the mutexes are let go:
     * `pg.query` takes them itself.
     */
    query: async (text: string, params: unknown[] = []) => {
      const done = await exclusive._runExclusiveTransaction(() =>
        exclusive._runExclusiveQuery(() => run(raw, text, params, false, options)),
      );
      return (done ?? (await pg.query(text, params, options))).rows;
    },
    /**
     * A statement inside `pg.transaction` (which holds the transaction mutex); one not prepared runs
     * on the transaction's own `query` (`unprepared`), after the query mutex is let go.
     */
    queryInTransaction: async (
      text: string,
      params: unknown[],
      unprepared: (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>,
    ) => {
      const done = await exclusive._runExclusiveQuery(() => run(raw, text, params, true, options));
      return (done ?? (await unprepared(text, params))).rows;
    },
    /**
     * PGlite's `query` for Prisma's adapter (outside a transaction), prepared: the same results.
     * Past the statements' bound, PGlite's own `query`.
     */
    prismaQuery: async <T>(text: string, params: unknown[] = [], queryOptions: QueryOptions = {}) => {
      const done = await exclusive._runExclusiveTransaction(() =>
        exclusive._runExclusiveQuery(() => run(prisma, text, params, false, queryOptions)),
      );
      return (done ?? (await pg.query(text, params, queryOptions))) as Results<T>;
    },
  };
}
