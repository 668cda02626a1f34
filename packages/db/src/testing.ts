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
      await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await drop.end();
    },
  };
}
