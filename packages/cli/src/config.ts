import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { type AgentCredential, agentCredentialSchema } from "@maity/domain";
import { z } from "zod";

// Where the agent's credentials and the CLI's own state live, and how the environment overrides
// them (004 §2 "Credentials and environment", B-017 B-020…B-025). Every name is read first as
// MAITY_* and then as the protocol's BAYCHAT_*: a script written for BayChat's CLI runs unchanged.

/** B-023 names https://api.baychat.io; this CLI's hub is the local one `pnpm start` serves. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:3000";
export const CREDENTIALS_FILE = "credentials.json";
export const STATE_FILE = "state.json";

export type Env = Record<string, string | undefined>;

/** MAITY_<name>, else BAYCHAT_<name>; an empty value counts as unset. */
export const envOf = (env: Env, name: string): string | undefined =>
  env[`MAITY_${name}`] || env[`BAYCHAT_${name}`] || undefined;

/** B-021: MAITY_CONFIG_DIR / BAYCHAT_CONFIG_DIR, else ~/.maity. */
export const configDirOf = (env: Env): string => envOf(env, "CONFIG_DIR") ?? path.join(env.HOME || homedir(), ".maity");

export class ConfigError extends Error {}

/** How this process reaches the hub and as whom; `agent` is unknown with a bare token (B-024). */
export interface Identity {
  baseUrl: string;
  token: string;
  agent: { id: string; name: string } | null;
  /** "env" when the token came from MAITY_TOKEN/BAYCHAT_TOKEN, "file" from the credentials file. */
  source: "env" | "file";
  configDir: string;
}

/**
 * The token and base URL (B-022 B-023 B-025): a MAITY_TOKEN short-circuits the credentials file
 * entirely — it is not even opened, so a broken or foreign file cannot get in the way of CI.
 */
export function resolveIdentity(env: Env): Identity {
  const configDir = configDirOf(env);
  const urlOverride = envOf(env, "API_URL");
  const token = envOf(env, "TOKEN");
  if (token) return { baseUrl: trimUrl(urlOverride ?? DEFAULT_BASE_URL), token, agent: null, source: "env", configDir };
  const credentials = readCredentials(configDir);
  return {
    baseUrl: trimUrl(urlOverride ?? credentials.baseUrl),
    token: credentials.token,
    agent: credentials.agent,
    source: "file",
    configDir,
  };
}

const trimUrl = (url: string): string => url.replace(/\/+$/, "");

/** The hub a pre-auth command (pair, link) talks to: --url, else MAITY_API_URL, else the default. */
export const preauthBaseUrl = (env: Env, flag: string | undefined): string =>
  trimUrl(flag ?? envOf(env, "API_URL") ?? DEFAULT_BASE_URL);

export function readCredentials(configDir: string): AgentCredential {
  const file = path.join(configDir, CREDENTIALS_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ConfigError(`no credentials at ${file}: run maity pair <code> or maity link (or set MAITY_TOKEN)`);
    }
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`${file} is not valid JSON: run maity pair <code> or maity link again`);
  }
  const parsed = agentCredentialSchema.safeParse(json);
  if (!parsed.success)
    throw new ConfigError(
      `${file} is not a credentials file ({ baseUrl, token, agent: { id, name } }): run maity pair again`,
    );
  return parsed.data;
}

/**
 * Writes a file only its owner can read (0600) in a folder only its owner can enter (0700), B-017:
 * a temporary file renamed over the old one, so a reader never sees half a token.
 */
export function writePrivateFile(dir: string, name: string, content: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // An existing folder keeps its mode on mkdir: tighten it (it is the CLI's own folder).
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  const file = path.join(dir, name);
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

/** B-020: exactly `{ baseUrl, token, agent: { id, name } }`. */
export function writeCredentials(configDir: string, credential: AgentCredential): string {
  const { baseUrl, token, agent } = credential;
  return writePrivateFile(
    configDir,
    CREDENTIALS_FILE,
    `${JSON.stringify({ baseUrl, token, agent: { id: agent.id, name: agent.name } }, null, 2)}\n`,
  );
}

// ---- the CLI's state: cursors and the last protocol version seen, beside the credentials --------

/** B-093 B-094: where a room's reading stands: the last createdAt read and the ids read at it. */
export const roomCursorSchema = z.object({ since: z.string(), ids: z.array(z.string()) });
export type RoomCursor = z.infer<typeof roomCursorSchema>;

const agentStateSchema = z.object({
  /** B-035: the protocolVersion GET /me answered last. */
  protocolVersion: z.string().optional(),
  cursors: z.record(z.string(), roomCursorSchema).default({}),
  /** maity hook: its /updates cursor and when it last ran. */
  hook: z.object({ cursor: z.string(), at: z.string() }).optional(),
  /**
   * maity hook's context reports (B-278): the last usage sent (the throttle), the last usage seen
   * (a compaction's "before" when the transcript no longer says), the last problem said on stderr.
   * A broken one is dropped, not the whole file.
   */
  hookContext: z
    .object({
      sent: z.object({ percent: z.number(), at: z.string(), used: z.number() }).optional(),
      seen: z.number().optional(),
      said: z.string().optional(),
    })
    .optional()
    .catch(undefined),
});
export type AgentState = z.infer<typeof agentStateSchema>;
const stateFileSchema = z.object({ agents: z.record(z.string(), agentStateSchema).default({}) });

/** One agent of one hub: demo hubs all have an `agt-a`, so the key names the hub too. */
export const stateKey = (baseUrl: string, agentId: string): string => `${agentId}@${baseUrl}`;

function readStateFile(configDir: string): z.infer<typeof stateFileSchema> {
  try {
    const parsed = stateFileSchema.safeParse(JSON.parse(readFileSync(path.join(configDir, STATE_FILE), "utf8")));
    return parsed.success ? parsed.data : { agents: {} };
  } catch {
    // No state yet, or an unreadable one: start again (the first check anchors at now, B-093).
    return { agents: {} };
  }
}

export function readState(configDir: string, key: string): AgentState {
  return readStateFile(configDir).agents[key] ?? { cursors: {} };
}

/**
 * Changes one agent's state: read, change, write at once (0600), so two commands running side by
 * side (a watch and a hook) lose at most one cursor step, never the file.
 */
export function updateState(configDir: string, key: string, change: (state: AgentState) => void): AgentState {
  const file = readStateFile(configDir);
  const state = file.agents[key] ?? { cursors: {} };
  change(state);
  file.agents[key] = state;
  writePrivateFile(configDir, STATE_FILE, `${JSON.stringify(file, null, 2)}\n`);
  return state;
}

// ---- a person's device credentials (`maity login`, DESIGN §4e): one per Bay, beside the agent's ------

export const DEVICE_FILE = "device.json";
export const deviceFileSchema = z.object({
  baseUrl: z.string(),
  credentials: z.array(z.object({ bay: z.object({ id: z.string(), name: z.string() }), token: z.string() })),
});
export type DeviceFile = z.infer<typeof deviceFileSchema>;

/** `{ baseUrl, credentials: [{ bay, token }] }`, 0600 in a 0700 folder (the credentials file's rules, B-020). */
export function writeDeviceFile(configDir: string, device: DeviceFile): string {
  return writePrivateFile(configDir, DEVICE_FILE, `${JSON.stringify(device, null, 2)}\n`);
}

/** The device file, or null when this computer is not signed in (a broken file says so). */
export function readDeviceFile(configDir: string): DeviceFile | null {
  const file = path.join(configDir, DEVICE_FILE);
  if (!existsSync(file)) return null;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new ConfigError(`${file} is not valid JSON: run maity login again`);
  }
  const parsed = deviceFileSchema.safeParse(value);
  if (!parsed.success) throw new ConfigError(`${file} is not a device file: run maity login again`);
  return parsed.data;
}
