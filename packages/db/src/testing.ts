import { openDatabase, type Database } from "./open.ts";

/**
 * A fresh database for one test file: an in-memory PGlite, or — when TEST_DATABASE_URL is set —
 * a new schema-isolated database on PostgreSQL (the same suite runs on both engines in CI).
 */
export async function freshDatabase(): Promise<Database & { url: string | null }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return { ...(await openDatabase({ dataDir: "memory://" })), url: null };
  const name = `maity_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const pgMod = await import("pg");
  const admin = new pgMod.default.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  return {
    ...db,
    /** Where a second app instance opens the same database (the cross-instance bus tests). */
    url: url.toString(),
    close: async () => {
      await db.close();
      const drop = new pgMod.default.Client({ connectionString: base });
      await drop.connect();
      // The pool's connections are closing, but their server processes may not have ended yet: one
      // terminated by the FORCE below answers its client, still reading, with 57P01 — an uncaught
      // error in the test's process. Wait (boundedly) for them to go first.
      for (let tries = 0; tries < 100; tries++) {
        const left = await drop.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
        if (left.rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await drop.end();
    },
  };
}
