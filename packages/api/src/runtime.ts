import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type BlobStore,
  DEMO_LOGINS,
  fileKeys,
  type Hub,
  localBlobStore,
  type ModelSettings,
  openHub,
  s3BlobStore,
  seedDemo,
} from "@maity/hub";
import { type Settings, SettingsError } from "./config.ts";

// One hub per process: PGlite's data folder must be opened only once. The app server
// (apps/web/server.ts) loads this package in its one module graph (Next's bundle holds no API code:
// the server answers /api itself), so a module-level slot is the process's slot.
let slot: Promise<Hub> | undefined;

/** What opening the hub takes from the settings (config.ts), read once by the app server. */
export type HubSettings = Pick<
  Settings,
  | "databaseUrl"
  | "dataDir"
  | "seed"
  | "groupChatQuota"
  | "pingRate"
  | "publicUrl"
  | "webhookAllow"
  | "webhookConcurrency"
  | "signup"
  | "summaryUrl"
  | "summaryModel"
  | "summaryKey"
  | "summaryTimeoutMs"
  | "fileKey"
  | "uploadMaxBytes"
  | "s3Bucket"
  | "s3Region"
  | "s3Endpoint"
  | "s3AccessKeyId"
  | "s3SecretAccessKey"
  | "s3ForcePathStyle"
>;

/** The file store — the S3 bucket when MAITY_S3_BUCKET is set, else `<MAITY_DATA_DIR>/files`. */
export function fileStoreOf(settings: Partial<HubSettings> & Pick<HubSettings, "dataDir">): BlobStore {
  if (!settings.s3Bucket) return localBlobStore(join(settings.dataDir, "files"));
  return s3BlobStore({
    bucket: settings.s3Bucket,
    ...(settings.s3Region ? { region: settings.s3Region } : {}),
    ...(settings.s3Endpoint ? { endpoint: settings.s3Endpoint } : {}),
    ...(settings.s3AccessKeyId ? { accessKeyId: settings.s3AccessKeyId } : {}),
    ...(settings.s3SecretAccessKey ? { secretAccessKey: settings.s3SecretAccessKey } : {}),
    forcePathStyle: settings.s3ForcePathStyle ?? false,
  });
}

/**
 * The file key — MAITY_FILE_KEY, else `<MAITY_DATA_DIR>/file.key`, generated (mode 0600) on the
 * first start and read on later ones. A damaged key file stops the start, naming it: a new key would
 * make every stored name unreadable and every signed URL invalid.
 */
export async function fileKeyOf(settings: Pick<HubSettings, "dataDir" | "fileKey">): Promise<Uint8Array> {
  if (settings.fileKey) return settings.fileKey;
  const path = join(settings.dataDir, "file.key");
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (text === null) {
    const key = randomBytes(32);
    await mkdir(settings.dataDir, { recursive: true });
    // `wx`: two processes starting at once cannot both write one; the loser reads the winner's.
    const written = await writeFile(path, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "EEXIST") return false;
        throw error;
      },
    );
    return written ? new Uint8Array(key) : fileKeyOf(settings);
  }
  const bytes = Buffer.from(text.trim(), "base64");
  if (bytes.byteLength !== 32)
    throw new SettingsError([
      {
        variable: "MAITY_FILE_KEY",
        message: `${path} does not hold base64 of 32 bytes; restore it or set MAITY_FILE_KEY`,
      },
    ]);
  return new Uint8Array(bytes);
}

/** The summary's model when MAITY_SUMMARY_URL names one (readSettings makes sure a model is named too). */
export function summaryModelOf(
  settings: Partial<Pick<HubSettings, "summaryUrl" | "summaryModel" | "summaryKey" | "summaryTimeoutMs">>,
): ModelSettings | undefined {
  if (!settings.summaryUrl || !settings.summaryModel) return undefined;
  return {
    url: settings.summaryUrl,
    model: settings.summaryModel,
    key: settings.summaryKey,
    timeoutMs: settings.summaryTimeoutMs,
  };
}

export function getHub(settings: HubSettings, log: (line: string) => void = (line) => console.log(line)): Promise<Hub> {
  slot ??= (async () => {
    const hub = await openHub({
      databaseUrl: settings.databaseUrl,
      dataDir: settings.dataDir,
      groupChatQuota: settings.groupChatQuota,
      pingRate: settings.pingRate,
      ...(settings.publicUrl ? { publicUrl: settings.publicUrl } : {}),
      webhooks: { allow: settings.webhookAllow, concurrency: settings.webhookConcurrency },
      summary: { model: summaryModelOf(settings) },
      signup: settings.signup,
      files: {
        store: fileStoreOf(settings),
        keys: fileKeys(await fileKeyOf(settings)),
        maxUploadBytes: settings.uploadMaxBytes,
      },
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
