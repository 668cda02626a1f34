import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrations, listMigrations } from "../src/migrate.ts";
import { freshDatabase } from "../src/testing.ts";

const db = await freshDatabase();
afterAll(() => db.close());

describe("migration runner (STACK.md: applied on start, one transaction each)", () => {
  it("applied every migration of prisma/migrations and recorded it in _prisma_migrations", async () => {
    expect(db.migrations.pending).toEqual([]);
    expect(db.migrations.applied).toEqual(listMigrations().map((m) => m.name));
    const rows = await db.sql.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(db.migrations.applied);
    expect(rows[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it("webhook_deliveries fills its pages to half, so a claim (no indexed column changed) can be a HOT update", async () => {
    const [row] = await db.sql.query<{ reloptions: string[] | null }>(
      `SELECT reloptions FROM pg_class WHERE relname = 'webhook_deliveries'`,
    );
    expect(row?.reloptions).toEqual(["fillfactor=50"]);
  });

  it("is idempotent: a second run applies nothing", async () => {
    const again = await applyMigrations(db.sql);
    expect(again.ran).toEqual([]);
  });

  it("a failing migration leaves nothing applied and nothing recorded", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "maity-mig-"));
    mkdirSync(path.join(dir, "20990101000000_bad"));
    writeFileSync(
      path.join(dir, "20990101000000_bad", "migration.sql"),
      `CREATE TABLE "half_written" ("id" TEXT PRIMARY KEY);\nSELECT no_such_function();`,
    );
    await expect(applyMigrations(db.sql, { dir })).rejects.toThrow(/20990101000000_bad/);
    const tables = await db.sql.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half_written'`);
    expect(tables).toHaveLength(0);
    const recorded = await db.sql.query(
      `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '20990101000000_bad'`,
    );
    expect(recorded).toHaveLength(0);
  });
});
