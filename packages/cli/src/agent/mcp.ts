import type { AgentClient, DeviceClient } from "@maity/client";
import type { Io } from "./io.ts";
import type { Session } from "./session.ts";

type McpModule = {
  serveStdio?: (client: AgentClient, local: object) => Promise<void>;
  serveSessionStdio?: (device: DeviceClient) => Promise<void>;
};

/**
 * @maity/mcp, loaded only here, by name, so the CLI runs where that package is not installed; null
 * (said on stderr) when it is missing. stdout is the protocol's alone from here on.
 */
export async function loadMcp(io: Io): Promise<McpModule | null> {
  const name = "@maity/mcp";
  try {
    return (await import(name)) as McpModule;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      io.err("maity mcp: the MCP server (@maity/mcp) is not installed in this build of the CLI");
      return null;
    }
    throw error;
  }
}

/** The local stdio MCP server (B-347) of @maity/mcp, on the same credentials as every command (B-027). */
export async function mcp(session: Session, io: Io): Promise<number> {
  const module = await loadMcp(io);
  if (!module) return 1;
  if (typeof module.serveStdio !== "function") {
    io.err("maity mcp: @maity/mcp has no serveStdio(client)");
    return 1;
  }
  await module.serveStdio(session.client, {});
  return 0;
}
