import { type Hub, openHub, seedDemo, DEMO_LOGINS } from "@maity/hub";

// One hub per process: PGlite's data folder must be opened only once. The app server
// (apps/web/server.ts) loads this package in its one module graph (Next's bundle holds no API code:
// the server answers /api itself), so a module-level slot is the process's slot.
let slot: Promise<Hub> | undefined;

export interface RuntimeOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  seed?: boolean;
  /** Issue 13 #1: what webhooks may reach although it is not public (MAITY_WEBHOOK_ALLOW). */
  webhookAllow?: string[];
  log?: (line: string) => void;
}

export function runtimeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): RuntimeOptions {
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.MAITY_DATA_DIR || "./.maity/data",
    seed: env.MAITY_SEED !== "0",
    // Comma-separated host names, IP addresses and CIDR ranges, e.g. `127.0.0.1,localhost,10.0.0.0/8`.
    webhookAllow: (env.MAITY_WEBHOOK_ALLOW ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
  };
}

export function getHub(options: RuntimeOptions = runtimeOptionsFromEnv()): Promise<Hub> {
  slot ??= (async () => {
    const hub = await openHub({ databaseUrl: options.databaseUrl, dataDir: options.dataDir, webhooks: { allow: options.webhookAllow ?? [] } });
    const log = options.log ?? ((line: string) => console.log(line));
    if (hub.database.migrations.ran.length) log(`maity: applied migrations ${hub.database.migrations.ran.join(", ")}`);
    if (options.seed !== false && (await seedDemo(hub))) {
      log("maity: seeded the demo project maintainer/maity. Demo logins:");
      for (const login of DEMO_LOGINS) log(`  ${login.handle} / ${login.password}`);
    }
    return hub;
  })();
  return slot;
}

export async function closeHub(): Promise<void> {
  const hub = slot;
  slot = undefined;
  if (hub) await (await hub).close();
}
