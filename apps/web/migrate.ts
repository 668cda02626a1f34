// `pnpm db:migrate`: apply pending migrations to the configured database (the server's own settings)
// and report, without starting the server.
import { openDatabase } from "@maity/db";
import { startSettings } from "./settings.ts";

const { settings } = startSettings();
const db = await openDatabase({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir });
console.log(`engine: ${db.engine}`);
console.log(db.migrations.ran.length ? `applied: ${db.migrations.ran.join(", ")}` : "up to date");
await db.close();
