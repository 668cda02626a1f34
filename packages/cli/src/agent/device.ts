import { AgentApiError, connectDevice, type DeviceClient } from "@maity/client";
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError, CREDENTIALS_FILE, configDirOf, type DeviceFile, envOf, readDeviceFile } from "../config.ts";
import { sanitize } from "../render.ts";
import { CommandError, type Io, insecureAllowed, json } from "./io.ts";
import { loadMcp } from "./mcp.ts";

// The person's side of the CLI (issue 30, DESIGN §4e): with the device credentials of `maity login`,
// `maity sessions` lists this computer's terminal sessions and `maity mcp` serves the session
// surface (join_session, …, every base tool with a required session) to Claude Code, Codex or Cursor
// over stdio. One connection is one Bay (B-324): the first Bay of the login by default, --bay names another.

/** Whether this process has an agent's credentials (MAITY_TOKEN or credentials.json): `maity mcp` then serves the agent. */
export function hasAgentCredential(io: Io): boolean {
  return Boolean(envOf(io.env, "TOKEN")) || existsSync(path.join(configDirOf(io.env), CREDENTIALS_FILE));
}

function signedIn(io: Io): DeviceFile {
  const device = readDeviceFile(configDirOf(io.env));
  if (!device) throw new ConfigError("this computer is not signed in: run maity login");
  return device;
}

/** The device client of one Bay of this computer's login: `bay` by name, else the login's first. */
export function deviceFor(
  io: Io,
  bay: string | undefined,
): { client: DeviceClient; bay: { id: string; name: string } } {
  const device = signedIn(io);
  const chosen = bay === undefined ? device.credentials[0] : device.credentials.find((c) => c.bay.name === bay);
  if (!chosen) {
    const names = device.credentials.map((c) => c.bay.name).join(", ");
    throw new ConfigError(`this computer is not signed in to Bay "${bay}" (it is to: ${names})`);
  }
  const baseUrl = envOf(io.env, "API_URL") ?? device.baseUrl;
  return {
    client: connectDevice({ baseUrl, token: chosen.token, allowInsecureHttp: insecureAllowed(io) }),
    bay: chosen.bay,
  };
}

/** `maity sessions [--bay <name>]`: the live sessions of each Bay (or one), and this computer's registrations. */
export async function sessionsCommand(bay: string | undefined, asJson: boolean, io: Io): Promise<number> {
  const device = signedIn(io);
  const bays = bay === undefined ? device.credentials.map((c) => c.bay.name) : [bay];
  const answers = [];
  for (const name of bays) {
    const { client, bay: ref } = deviceFor(io, name);
    try {
      answers.push({ bay: ref, ...(await client.sessions()) });
    } catch (error) {
      if (error instanceof AgentApiError && error.status === 401)
        throw new ConfigError(
          `this computer was signed out of ${ref.name} (or the Bay is no longer yours): run maity login`,
        );
      throw new CommandError(error, client.options.baseUrl, undefined, undefined);
    }
  }
  if (asJson) {
    io.out(json({ bays: answers }));
    return 0;
  }
  const lines: string[] = [];
  for (const a of answers) {
    lines.push(`Bay ${sanitize(a.bay.name)}: ${a.sessions.length ? `${a.sessions.length} session(s)` : "no sessions"}`);
    for (const s of a.sessions) {
      const codex = a.registrations.find((r) => r.session === s.name);
      lines.push(
        `  ${sanitize(s.name)} (${s.id})${s.runtime ? ` ${s.runtime}` : ""} — last joined ${s.lastJoinedAt}` +
          (codex ? ` · Codex thread ${codex.threadId} on this computer` : ""),
      );
    }
  }
  if (!answers.some((a) => a.sessions.length))
    lines.push("A terminal joins with the MCP tool join_session (maity mcp serves it).");
  io.out(lines.join("\n"));
  return 0;
}

/** `maity mcp` with the device credentials: the session surface over stdio (B-310…B-312). */
export async function deviceMcp(bay: string | undefined, io: Io): Promise<number> {
  const { client } = deviceFor(io, bay);
  const module = await loadMcp(io);
  if (!module) return 1;
  if (typeof module.serveSessionStdio !== "function") {
    io.err("maity mcp: @maity/mcp has no serveSessionStdio(device)");
    return 1;
  }
  await module.serveSessionStdio(client);
  return 0;
}
