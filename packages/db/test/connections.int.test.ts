import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../src/testing.ts";

// An idle connection ended by the server (a restart, a failover, an administrator) must not end
// the app's process: the pool opens another when asked. The raw runner (migrations, the driver
// statements of authentication) uses the pool before Prisma is connected, and Prisma's own
// listener goes with it on disconnect: the database layer keeps one of its own. PostgreSQL only.
const url = process.env.TEST_DATABASE_URL;
const db = await freshDatabase();
afterAll(() => db.close());

describe.skipIf(!url || !db.url)("PostgreSQL connections", () => {
  it("idle pool connections terminated by the server: the process goes on and the next statements run", async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    const warn = console.warn;
    const warned: string[] = [];
    console.warn = (message: string) => warned.push(message);
    try {
      // Several connections idle in the pool, opened by the raw runner only.
      await Promise.all([1, 2, 3].map((n) => db.sql.query("SELECT $1::int AS n FROM pg_sleep(0.05)", [n])));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const name = new URL(db.url as string).pathname.slice(1);
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
      await admin.end();
      expect(killed.rowCount).toBeGreaterThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(uncaught).toEqual([]);
      expect(warned.some((m) => m.includes("closed by the server"))).toBe(true);
      expect(await db.sql.query<{ n: number }>("SELECT 7::int AS n", [])).toEqual([{ n: 7 }]);
    } finally {
      process.off("uncaughtException", onUncaught);
      console.warn = warn;
    }
  });
});
