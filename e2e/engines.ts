import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type pgTypes from "pg";

// The engines a spec of the server as README starts it runs on: PGlite always, PostgreSQL with
// TEST_DATABASE_URL (a throwaway database of its own per start). One copy for every such spec.

const root = path.resolve(import.meta.dirname, "..");
const pg = createRequire(path.join(root, "packages/db/package.json"))("pg") as typeof pgTypes;

export const ENGINES = ["PGlite", ...(process.env.TEST_DATABASE_URL ? ["PostgreSQL"] : [])];

/** The app's environment for `engine`: a fresh PGlite folder, or a fresh PostgreSQL database. */
export async function engineEnv(engine: string, prefix: string): Promise<Record<string, string>> {
  if (engine === "PGlite")
    return { MAITY_DATA_DIR: mkdtempSync(path.join(tmpdir(), `maity-${prefix}-`)), DATABASE_URL: "" };
  const dbName = `maity_e2e_${prefix.replace(/\W/g, "_")}_${process.pid}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  await client.query(`CREATE DATABASE "${dbName}"`).finally(() => client.end());
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${dbName}`;
  return { DATABASE_URL: url.toString() };
}
