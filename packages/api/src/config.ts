import { DEFAULT_PING_RATE, parseAllowList, parsePingRate, type PingRate } from "@maity/domain";
import { UPLOAD_HARD_CAP_BYTES } from "@maity/domain";
import { DEFAULT_GROUP_CHAT_QUOTA, DEFAULT_WEBHOOK_CONCURRENCY } from "@maity/hub";
import { z } from "zod";

// The server's settings: one zod schema of the environment, read once at start by the
// app server (apps/web/server.ts); services and handlers get typed options, never `process.env`.
// A bad value stops the start with the variable named. README's "Configuration" table is generated
// from `SETTINGS` (`pnpm docs:settings` prints it), and a test keeps the two equal.

/** One setting: its variable, the default as README shows it, what it means, and its parser. */
interface Setting<T> {
  name: string;
  shown: string;
  meaning: string;
  schema: z.ZodType<T>;
}
const setting = <T>(name: string, shown: string, meaning: string, schema: z.ZodType<T>): Setting<T> => ({
  name,
  shown,
  meaning,
  schema,
});

const unset = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());
const optionalText = z.preprocess(unset, z.string().optional());
const flag = (fallback: boolean) =>
  z
    .preprocess(unset, z.enum(["0", "1", "true", "false"], { error: "0 or 1" }).optional())
    .transform((v) => (v === undefined ? fallback : v === "1" || v === "true"));
const count = (fallback: number, what: string) =>
  z
    .preprocess(unset, z.coerce.number({ error: what }).int(what).positive(what).optional())
    .transform((v) => v ?? fallback);

export const SETTINGS = {
  host: setting(
    "HOST",
    "`127.0.0.1`",
    "the address the server listens on",
    z.preprocess(unset, z.string().optional()).transform((v) => v ?? "127.0.0.1"),
  ),
  port: setting(
    "PORT",
    "`3000`",
    "the port the server listens on",
    z
      .preprocess(
        unset,
        z.coerce
          .number({ error: "a port, 1–65535" })
          .int()
          .min(1, "a port, 1–65535")
          .max(65535, "a port, 1–65535")
          .optional(),
      )
      .transform((v) => v ?? 3000),
  ),
  dataDir: setting(
    "MAITY_DATA_DIR",
    "`./.maity/data`",
    "the data folder: PGlite's database, uploaded files (`files/`) and `file.key` (relative to where you start)",
    z.preprocess(unset, z.string().optional()).transform((v) => v ?? "./.maity/data"),
  ),
  databaseUrl: setting(
    "DATABASE_URL",
    "unset",
    "`postgresql://…` switches from PGlite to PostgreSQL",
    z.preprocess(
      unset,
      z
        .string()
        .regex(/^postgres(ql)?:\/\/./, "a postgresql:// URL")
        .optional(),
    ),
  ),
  adminToken: setting(
    "MAITY_ADMIN_TOKEN",
    "unset",
    "enables the operator routes `/api/admin/*` (404 while unset)",
    optionalText,
  ),
  seed: setting("MAITY_SEED", "`1`", "`0` turns the demo data off", flag(true)),
  groupChatQuota: setting(
    "MAITY_GROUP_CHAT_QUOTA",
    `\`${DEFAULT_GROUP_CHAT_QUOTA}\``,
    "open group chats per project (§1.7); the next answers `conversation_quota`",
    count(DEFAULT_GROUP_CHAT_QUOTA, "a whole number of chats, at least 1"),
  ),
  pingRate: setting(
    "MAITY_PING_RATE",
    `\`${DEFAULT_PING_RATE.pings}/${DEFAULT_PING_RATE.windowSeconds}\``,
    "mentions a writer may ping per window, `<pings>/<seconds>` (§1.7); over it: `rate_limited`",
    z.preprocess(unset, z.string().optional()).transform((v, ctx): PingRate => {
      const rate = v === undefined ? { ...DEFAULT_PING_RATE } : parsePingRate(v);
      if (rate) return rate;
      ctx.addIssue({ code: "custom", message: "<pings>/<seconds>, both at least 1" });
      return z.NEVER;
    }),
  ),
  publicUrl: setting(
    "MAITY_PUBLIC_URL",
    "the request's origin",
    "the base URL pairing and link answers give agents (`https://hub.example.org`)",
    z
      .preprocess(unset, z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional())
      .transform((v) => v?.replace(/\/+$/, "")),
  ),
  webhookAllow: setting(
    "MAITY_WEBHOOK_ALLOW",
    "unset",
    "comma-separated host names, IP addresses and CIDR ranges webhooks may reach although not public (`127.0.0.1,localhost,10.0.0.0/8`, local development); a bad entry stops the start",
    optionalText.transform((v, ctx) => {
      const entries = v
        ? v
            .split(",")
            .map((e) => e.trim())
            .filter(Boolean)
        : [];
      const { invalid } = parseAllowList(entries);
      if (!invalid.length) return entries;
      ctx.addIssue({ code: "custom", message: `not a host name, IP address or CIDR range: ${invalid.join(", ")}` });
      return z.NEVER;
    }),
  ),
  webhookConcurrency: setting(
    "MAITY_WEBHOOK_CONCURRENCY",
    `\`${DEFAULT_WEBHOOK_CONCURRENCY}\``,
    "webhook requests this instance has in flight at most; each agent's deliveries still go one at a time, in order",
    count(DEFAULT_WEBHOOK_CONCURRENCY, "a whole number of requests, at least 1"),
  ),
  signup: setting(
    "MAITY_SIGNUP",
    "`invite`",
    "`open` lets anyone sign up on the login page; `invite` (the default) only with a project's invite link",
    z
      .preprocess(unset, z.enum(["invite", "open"], { error: "invite or open" }).optional())
      .transform((v) => v ?? "invite"),
  ),
  // The rolling summary (DESIGN §4b): an OpenAI-compatible model when named, else the built-in rules.
  summaryUrl: setting(
    "MAITY_SUMMARY_URL",
    "unset: the built-in extractive summary",
    "an OpenAI-compatible chat-completions base URL that writes the chats' rolling summaries (`http://127.0.0.1:11434/v1` for Ollama); needs `MAITY_SUMMARY_MODEL`",
    z
      .preprocess(unset, z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional())
      .transform((v) => v?.replace(/\/+$/, "")),
  ),
  summaryModel: setting("MAITY_SUMMARY_MODEL", "unset", "the model `MAITY_SUMMARY_URL` is asked for", optionalText),
  summaryKey: setting(
    "MAITY_SUMMARY_KEY",
    "unset",
    "the API key sent to `MAITY_SUMMARY_URL`, if it wants one",
    optionalText,
  ),
  summaryTimeoutMs: setting(
    "MAITY_SUMMARY_TIMEOUT_MS",
    "`20000`",
    "how long one summary call may take; a failed call is tried once more, then the chat waits a minute",
    count(20_000, "a whole number of milliseconds, at least 1"),
  ),
  // Files (004 §13): where they live and the key of their names and URLs.
  fileKey: setting(
    "MAITY_FILE_KEY",
    "generated into `<MAITY_DATA_DIR>/file.key`",
    "base64 of 32 random bytes: encrypts file names at rest and signs download URLs (B-184, B-185); " +
      "every instance of one hub needs the same key",
    optionalText.transform((v, ctx) => {
      if (v === undefined) return undefined;
      const bytes = Buffer.from(v, "base64");
      if (/^[A-Za-z0-9+/]+={0,2}$/.test(v) && bytes.byteLength === 32) return new Uint8Array(bytes);
      ctx.addIssue({ code: "custom", message: "base64 of exactly 32 bytes (`openssl rand -base64 32`)" });
      return z.NEVER;
    }),
  ),
  uploadMaxBytes: setting(
    "MAITY_UPLOAD_MAX_BYTES",
    `\`${UPLOAD_HARD_CAP_BYTES}\``,
    "the plan's limit on a stored file in bytes (B-188), at most the 25 MB hard cap; over it: 413",
    z
      .preprocess(
        unset,
        z.coerce
          .number({ error: `a number of bytes, 1–${UPLOAD_HARD_CAP_BYTES}` })
          .int(`a number of bytes, 1–${UPLOAD_HARD_CAP_BYTES}`)
          .min(1, `a number of bytes, 1–${UPLOAD_HARD_CAP_BYTES}`)
          .max(UPLOAD_HARD_CAP_BYTES, `at most the hard cap, ${UPLOAD_HARD_CAP_BYTES}`)
          .optional(),
      )
      .transform((v) => v ?? UPLOAD_HARD_CAP_BYTES),
  ),
  s3Bucket: setting(
    "MAITY_S3_BUCKET",
    "unset",
    "store files in this S3-compatible bucket instead of `<MAITY_DATA_DIR>/files`",
    optionalText,
  ),
  s3Region: setting("MAITY_S3_REGION", "`us-east-1`", "the bucket's region", optionalText),
  s3Endpoint: setting(
    "MAITY_S3_ENDPOINT",
    "AWS",
    "an S3-compatible service's URL (MinIO, R2, …)",
    z.preprocess(unset, z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional()),
  ),
  s3AccessKeyId: setting("MAITY_S3_ACCESS_KEY_ID", "the AWS default chain", "the bucket's access key id", optionalText),
  s3SecretAccessKey: setting("MAITY_S3_SECRET_ACCESS_KEY", "unset", "the bucket's secret key", optionalText),
  s3ForcePathStyle: setting(
    "MAITY_S3_FORCE_PATH_STYLE",
    "`0`",
    "`1` addresses the bucket by path (`<endpoint>/<bucket>/<key>`), as most S3-compatible services want",
    flag(false),
  ),
} satisfies Record<string, Setting<unknown>>;

export type Settings = { [K in keyof typeof SETTINGS]: z.output<(typeof SETTINGS)[K]["schema"]> };

export class SettingsError extends Error {
  override name = "SettingsError";
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`bad settings: ${problems.map((p) => `${p.variable}: ${p.message}`).join("; ")}`);
  }
}

/** The settings from an environment (the process's by default); every bad variable is named. */
export function readSettings(env: Record<string, string | undefined> = process.env): Settings {
  const problems: { variable: string; message: string }[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const parsed = s.schema.safeParse(env[s.name]);
    if (parsed.success) out[key] = parsed.data;
    else
      problems.push({
        variable: s.name,
        message: `${parsed.error.issues[0]?.message ?? "invalid"} (got ${JSON.stringify(env[s.name])})`,
      });
  }
  if (out.summaryUrl && !out.summaryModel)
    problems.push({ variable: "MAITY_SUMMARY_MODEL", message: "required when MAITY_SUMMARY_URL is set" });
  if (problems.length) throw new SettingsError(problems);
  return out as Settings;
}

/** README's "Configuration" table rows for the server's settings. */
export function settingsTable(): string {
  const rows = Object.values(SETTINGS).map((s: Setting<unknown>) => `| \`${s.name}\` | ${s.shown} | ${s.meaning} |`);
  return ["| variable | default | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}
