import path from "node:path";
import { readSettings, type Settings, SettingsError } from "@maity/api";

/**
 * The server's settings, read from the environment once, at start (the schema is @maity/api's
 * config.ts, the one place configuration is read). A bad value ends the process with every bad
 * variable named, one per line, and no stack trace. A relative data folder is taken from where the
 * command was started (pnpm's INIT_CWD: the repo root for `pnpm start`), not from apps/web.
 */
export function startSettings(env: NodeJS.ProcessEnv = process.env): { settings: Settings; dev: boolean } {
  try {
    const settings = readSettings(env);
    const cwd = env.INIT_CWD || process.cwd();
    if (!path.isAbsolute(settings.dataDir)) settings.dataDir = path.resolve(cwd, settings.dataDir);
    return { settings, dev: env.NODE_ENV !== "production" };
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error("maity: cannot start, the settings are wrong:");
    for (const problem of error.problems) console.error(`  ${problem.variable}: ${problem.message}`);
    console.error("maity: see README's Configuration table");
    process.exit(1);
  }
}
