import { type Hub, openHub, seedDemo, DEMO_LOGINS } from "@maity/hub";
import type { Settings } from "./config.ts";

// One hub per process: PGlite's data folder must be opened only once. The app server
// (apps/web/server.ts) loads this package in its one module graph (Next's bundle holds no API code:
// the server answers /api itself), so a module-level slot is the process's slot.
let slot: Promise<Hub> | undefined;

/** What opening the hub takes from the settings (config.ts), read once by the app server. */
export type HubSettings = Pick<
  Settings,
  "databaseUrl" | "dataDir" | "seed" | "groupChatQuota" | "pingRate" | "publicUrl" | "webhookAllow"
>;

export function getHub(settings: HubSettings, log: (line: string) => void = (line) => console.log(line)): Promise<Hub> {
  slot ??= (async () => {
    const hub = await openHub({
      databaseUrl: settings.databaseUrl,
      dataDir: settings.dataDir,
      groupChatQuota: settings.groupChatQuota,
      pingRate: settings.pingRate,
      ...(settings.publicUrl ? { publicUrl: settings.publicUrl } : {}),
      webhooks: { allow: settings.webhookAllow },
    });
    if (hub.database.migrations.ran.length) log(`maity: applied migrations ${hub.database.migrations.ran.join(", ")}`);
    if (settings.seed && (await seedDemo(hub))) {
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
