import { type AgentClient, connect } from "@maity/client";
import { PROTOCOL_VERSION } from "@maity/domain";
import { type Identity, readState, resolveIdentity, stateKey, updateState } from "../config.ts";
import { insecureAllowed, type Io } from "./io.ts";

// ---- B-035: the protocol version --------------------------------------------------------------

/**
 * B-035: a minor change is one quiet line, a major one a warning a person notices; neither stops
 * the command (refusing over a number is worse than the disease, 004 §2). Compared with the
 * version seen last, or — the first time — with the one this CLI was built against.
 */
export function versionNote(
  previous: string | undefined,
  current: string,
): { level: "none" | "quiet" | "loud"; text: string } {
  const before = previous ?? PROTOCOL_VERSION;
  if (before === current) return { level: "none", text: "" };
  const major = (v: string) => v.split(".")[0];
  if (major(before) === major(current)) {
    return {
      level: "quiet",
      text: `note: the hub speaks agent protocol ${current} (last seen ${before}); its changelog says what is new`,
    };
  }
  const bar = "!".repeat(72);
  return {
    level: "loud",
    text: [
      bar,
      `WARNING: the hub's agent protocol changed MAJOR version: ${before} → ${current}.`,
      "Calls this agent makes may now break. Read the changelog at the top of the protocol document",
      "before trusting its answers. (The command goes on: a version number never stops it.)",
      bar,
    ].join("\n"),
  };
}

// ---- a session: the client, and who the agent is ------------------------------------------------

export interface Session {
  identity: Identity;
  client: AgentClient;
  /** The agent: from the credentials file, or (a bare token, B-024) GET /me once per process. */
  me(): Promise<{ id: string; name: string }>;
  key(): Promise<string>;
}

export function openSession(io: Io): Session {
  const identity = resolveIdentity(io.env);
  const client = connect({ baseUrl: identity.baseUrl, token: identity.token, allowInsecureHttp: insecureAllowed(io) });
  let who: Promise<{ id: string; name: string }> | null = identity.agent ? Promise.resolve(identity.agent) : null;
  const me = () => {
    who ??= client.me().then((answer) => {
      noteVersion(io, identity, answer.id, answer.protocolVersion);
      return { id: answer.id, name: answer.name };
    });
    return who;
  };
  return { identity, client, me, key: async () => stateKey(identity.baseUrl, (await me()).id) };
}

export function noteVersion(io: Io, identity: Identity, agentId: string, current: string): void {
  const key = stateKey(identity.baseUrl, agentId);
  const note = versionNote(readState(identity.configDir, key).protocolVersion, current);
  if (note.level !== "none") io.err(note.text);
  updateState(identity.configDir, key, (state) => {
    state.protocolVersion = current;
  });
}
