// `pnpm db:migrate`: apply pending migrations to the configured database and report.
import { openDatabase } from "./open.ts";

const db = await openDatabase({
  databaseUrl: process.env.DATABASE_URL,
  dataDir: process.env.MAITY_DATA_DIR ?? `${process.env.INIT_CWD ?? "."}/.maity/data`,
});
console.log(`engine: ${db.engine}`);
console.log(db.migrations.ran.length ? `applied: ${db.migrations.ran.join(", ")}` : "up to date");
await db.close();
