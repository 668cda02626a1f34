import { type Hub, openHub, seedDemo, DEMO_LOGINS } from "@maity/hub";

// One hub per process. The custom server and Next's bundled route handlers are separate module
// instances, so the hub lives on globalThis: PGlite's data folder must be opened only once.
const KEY = Symbol.for("maity.hub");
type Slot = { [KEY]?: Promise<Hub> };

export interface RuntimeOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  seed?: boolean;
  log?: (line: string) => void;
}

export function runtimeOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): RuntimeOptions {
  return { databaseUrl: env.DATABASE_URL || undefined, dataDir: env.MAITY_DATA_DIR || "./.maity/data", seed: env.MAITY_SEED !== "0" };
}

export function getHub(options: RuntimeOptions = runtimeOptionsFromEnv()): Promise<Hub> {
  const slot = globalThis as Slot;
  slot[KEY] ??= (async () => {
    const hub = await openHub({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
    const log = options.log ?? ((line: string) => console.log(line));
    if (hub.database.migrations.ran.length) log(`maity: applied migrations ${hub.database.migrations.ran.join(", ")}`);
    if (options.seed !== false && (await seedDemo(hub))) {
      log("maity: seeded the demo project maintainer/maity. Demo logins:");
      for (const login of DEMO_LOGINS) log(`  ${login.handle} / ${login.password}`);
    }
    return hub;
  })();
  return slot[KEY];
}

export async function closeHub(): Promise<void> {
  const slot = globalThis as Slot;
  const hub = slot[KEY];
  delete slot[KEY];
  if (hub) await (await hub).close();
}
