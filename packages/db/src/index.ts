import { PrismaClient } from "./generated/client.ts";

export type { Prisma } from "./generated/client.ts";
export { PrismaClient };
export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

export {
  applyMigrations,
  CUSTOM_PLAN,
  migrationsDir,
  type MigrationState,
  type SqlExecutor,
  type SqlRunner,
} from "./migrate.ts";
export { openDatabase, type Database, type DatabaseOptions, type PubSub } from "./open.ts";
