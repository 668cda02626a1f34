import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaClient } from "./generated/client.ts";
import { preparedQueries } from "./prepared.ts";
import { applyMigrations, CUSTOM_PLAN, type MigrationState, type SqlExecutor, type SqlRunner } from "./migrate.ts";

export interface DatabaseOptions {
  /** postgresql://… selects PostgreSQL; otherwise the embedded PGlite in dataDir. */
  databaseUrl?: string | undefined;
  /** PGlite data folder; "memory://" for a throwaway in-memory database. */
  dataDir?: string | undefined;
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
}

export interface Database {
  prisma: PrismaClient;
  engine: "pglite" | "postgresql";
  migrations: MigrationState;
  /** Raw SQL on the same driver, outside Prisma (migrations, the chat write's transaction); observed too. */
  sql: SqlRunner;
  /** Calls `listener` with every SQL statement Prisma sends (tests count statements, benches too). */
  observeQueries(listener: (sql: string) => void): () => void;
  /**
   * PostgreSQL's LISTEN/NOTIFY, so the app instances on one database share a live bus (DESIGN §3).
   * Absent on PGlite: its data folder belongs to one process, whose bus is in-process anyway.
   */
  pubsub?: PubSub;
  close(): Promise<void>;
}

export interface PubSub {
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Holds one connection LISTENing on `channel`, reconnecting when it drops, until `stop()`.
   * `onReconnect` runs each time a dropped connection listens again: what was notified meanwhile
   * never arrives, so the listener reads what it can from elsewhere (the log). `onDrop` runs when
   * a listening connection drops: until `onReconnect`, nothing notified reaches the listener.
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    onReconnect?: () => void,
    onDrop?: () => void,
  ): Promise<{ stop(): Promise<void> }>;
}

type QueryEvents = { $on(event: "query", listener: (e: { query: string }) => void): void };

/** Observers of every SQL statement: Prisma's `query` events and the raw runner's own. */
function statementObservers(prisma: unknown) {
  const listeners = new Set<(sql: string) => void>();
  const emit = (sql: string) => {
    for (const listener of listeners) listener(sql);
  };
  (prisma as QueryEvents).$on("query", (e) => emit(e.query));
  const observe: Database["observeQueries"] = (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  return { emit, observe };
}

/** The raw runner, reporting each statement (BEGIN and COMMIT included) to the observers. */
function observed(sql: SqlRunner, emit: (text: string) => void): SqlRunner {
  const wrap = (x: SqlExecutor): SqlExecutor => ({
    exec: (text) => {
      emit(text);
      return x.exec(text);
    },
    query: (text, params) => {
      emit(text);
      return x.query(text, params);
    },
  });
  return {
    ...wrap(sql),
    transaction: (fn) => {
      emit("BEGIN");
      return sql.transaction((tx) => fn(wrap(tx))).finally(() => emit("COMMIT"));
    },
  };
}

/**
 * The schema's timestamps are `timestamp(3)` holding UTC (Prisma's convention). Both drivers parse
 * that type as local time; the raw runner reads it as UTC, as Prisma does, whatever TZ the server has.
 */
const TIMESTAMP_OID = 1114;
const utcTimestamp = (value: string): Date => new Date(`${value.replace(" ", "T")}Z`);
const PGLITE_UTC = { parsers: { [TIMESTAMP_OID]: utcTimestamp } };
type PgTypes = { getTypeParser(oid: number, format?: "text" | "binary"): unknown };
function pgUtc(types: PgTypes) {
  return {
    getTypeParser: (oid: number, format?: "text" | "binary") =>
      oid === TIMESTAMP_OID && format !== "binary" ? utcTimestamp : types.getTypeParser(oid, format),
  } as never;
}

export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const url = options.databaseUrl;
  if (url && /^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options.migrate ?? true);
  return openPglite(options.dataDir ?? "./.maity/data", options.migrate ?? true);
}

async function openPglite(dataDir: string, migrate: boolean): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PrismaPGlite } = await import("pglite-prisma-adapter");
  // Message search's two extensions (migration _search), as PostgreSQL's contrib carries them.
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { unaccent } = await import("@electric-sql/pglite/contrib/unaccent");
  const extensions = { pg_trgm, unaccent };
  let pg: InstanceType<typeof PGlite>;
  if (dataDir.startsWith("memory://")) {
    pg = new PGlite({ extensions });
  } else {
    const dir = path.resolve(dataDir);
    mkdirSync(dir, { recursive: true });
    pg = new PGlite(dir, { extensions });
  }
  await pg.waitReady;
  const prepared = preparedQueries(pg, PGLITE_UTC);
  const sql: SqlRunner = {
    exec: async (text) => {
      await pg.exec(text);
    },
    query: async (text, params) => (await prepared.query(text, params)) as never,
    transaction: (fn) =>
      pg.transaction(async (tx) =>
        fn({
          exec: async (text) => {
            await tx.exec(text);
          },
          query: async (text, params) =>
            (await prepared.queryInTransaction(text, params ?? [], (t, p) => tx.query(t, p, PGLITE_UTC))) as never,
        }),
      ),
  };
  const migrations = migrate ? await applyMigrations(sql) : await applyMigrations(sql, { dryRun: true });
  // Prisma's statements outside a transaction run prepared too (prepared.ts: a findMany with a
  // relation 1.65 → 1.0 ms here); in a transaction, PGlite's own `query`.
  const client = new Proxy(pg, {
    get: (target, key) => {
      if (key === "query") return prepared.prismaQuery;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(client), log: [{ emit: "event", level: "query" }] });
  const statements = statementObservers(prisma);
  return {
    prisma,
    engine: "pglite",
    migrations,
    sql: observed(sql, statements.emit),
    observeQueries: statements.observe,
    close: async () => {
      await prisma.$disconnect();
      await pg.close();
    },
  };
}

async function openPostgres(url: string, migrate: boolean): Promise<Database> {
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const pgMod = await import("pg");
  const pool = new pgMod.default.Pool({ connectionString: url, max: 10 });
  // An idle connection the server ends (a restart, a failover, an administrator, shutting down)
  // is an 'error' event on the pool; with no listener it would end the process. The pool drops that
  // connection and opens another when asked: there is nothing else to do. (Prisma listens only
  // while it is connected.)
  pool.on("error", (error: Error) =>
    console.warn(`maity: a database connection was closed by the server: ${error.message}`),
  );
  const types = pgUtc(pgMod.default.types);
  // The raw runner's statements are named: each connection parses and plans one once (prepared.ts).
  const names = new Map<string, string>();
  const named = (text: string): { text: string; name?: string } => {
    let name = names.get(text);
    if (!name && names.size < 256 && !text.startsWith(CUSTOM_PLAN)) {
      name = `maity_${names.size + 1}`;
      names.set(text, name);
    }
    return name ? { text, name } : { text };
  };
  const sql: SqlRunner = {
    exec: async (text) => {
      await pool.query(text);
    },
    query: async (text, params) =>
      (await pool.query({ ...named(text), values: params as unknown[], types })).rows as never,
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn({
          exec: async (text) => {
            await client.query(text);
          },
          query: async (text, params) =>
            (await client.query({ ...named(text), values: params as unknown[], types })).rows as never,
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      } finally {
        client.release();
      }
    },
  };
  const migrations = migrate ? await applyMigrations(sql) : await applyMigrations(sql, { dryRun: true });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), log: [{ emit: "event", level: "query" }] });
  const statements = statementObservers(prisma);
  return {
    prisma,
    engine: "postgresql",
    migrations,
    sql: observed(sql, statements.emit),
    observeQueries: statements.observe,
    pubsub: postgresPubSub(url, pool, pgMod.default.Client),
    close: async () => {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}

type PgPool = { query(text: string, params?: unknown[]): Promise<unknown> };
type PgClient = {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  on(event: "notification", fn: (n: { channel: string; payload?: string }) => void): void;
  on(event: "error" | "end", fn: () => void): void;
  end(): Promise<void>;
};

/** NOTIFY through the pool; LISTEN on a connection of its own, re-opened (after a pause) if it drops. */
function postgresPubSub(
  url: string,
  pool: PgPool,
  Client: new (options: { connectionString: string }) => PgClient,
): PubSub {
  return {
    notify: async (channel, payload) => {
      await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
    },
    listen: async (channel, onMessage, onReconnect, onDrop) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name: ${channel}`);
      let stopped = false;
      let client: PgClient | null = null;
      let retry: NodeJS.Timeout | null = null;
      const open = async (initial: boolean): Promise<void> => {
        const c = new Client({ connectionString: url });
        let dropped = false;
        const drop = () => {
          if (dropped) return;
          dropped = true;
          c.end().catch(() => {});
          if (client === c) {
            client = null;
            if (!stopped) onDrop?.();
          }
          if (!stopped) retry = setTimeout(() => void open(false).catch(() => {}), 1000);
        };
        c.on("error", drop);
        c.on("end", drop);
        c.on("notification", (n) => {
          if (n.channel === channel && n.payload !== undefined) onMessage(n.payload);
        });
        try {
          await c.connect();
          await c.query(`LISTEN ${channel}`);
          if (dropped) throw new Error("the LISTEN connection dropped");
          client = c;
          if (!initial) onReconnect?.();
        } catch (error) {
          // The first connection fails loudly; a later one keeps retrying until stop().
          if (initial) stopped = true;
          drop();
          if (initial && retry) clearTimeout(retry);
          if (initial) throw error;
        }
      };
      await open(true);
      return {
        stop: async () => {
          stopped = true;
          if (retry) clearTimeout(retry);
          await client?.end().catch(() => {});
        },
      };
    },
  };
}
