import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

type Row = Record<string, unknown>;
/**
 * A statement text starting with this is planned for its own parameters every time (never a named
 * prepared statement, whose generic plan after five runs ignores the values): for statements whose
 * best plan depends on them, like a search's words (hub/src/search).
 */
export const CUSTOM_PLAN = "/* maity: custom plan */";

export interface SqlExecutor {
  exec(text: string): Promise<void>;
  query<T extends Row = Row>(text: string, params?: unknown[]): Promise<T[]>;
}
export interface SqlRunner extends SqlExecutor {
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}

export interface MigrationState {
  applied: string[];
  pending: string[];
  /** Migrations applied by this call. */
  ran: string[];
}

export const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../prisma/migrations");

// Prisma's own bookkeeping table, so `prisma migrate status` stays meaningful (STACK.md).
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export function listMigrations(dir = migrationsDir): { name: string; sql: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, sql: readFileSync(path.join(dir, name, "migration.sql"), "utf8") }));
}

/** Applies each pending migration in its own transaction: a failure leaves it unapplied and unrecorded. */
export async function applyMigrations(
  sql: SqlRunner,
  options: { dir?: string; dryRun?: boolean } = {},
): Promise<MigrationState> {
  await sql.exec(CREATE_TABLE);
  const done = await sql.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const applied = new Set(done.map((row) => row.migration_name));
  const all = listMigrations(options.dir);
  const pending = all.filter((m) => !applied.has(m.name));
  const ran: string[] = [];
  if (!options.dryRun) {
    for (const migration of pending) {
      const checksum = createHash("sha256").update(migration.sql).digest("hex");
      try {
        await sql.transaction(async (tx) => {
          await tx.exec(migration.sql);
          await tx.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
             VALUES ($1, $2, now(), $3, 1)`,
            [randomUUID(), checksum, migration.name],
          );
        });
      } catch (error) {
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      ran.push(migration.name);
      applied.add(migration.name);
    }
  }
  return {
    applied: all.filter((m) => applied.has(m.name)).map((m) => m.name),
    pending: all.filter((m) => !applied.has(m.name)).map((m) => m.name),
    ran,
  };
}
