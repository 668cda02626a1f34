import type { AgentClient } from "@maity/client";
import type { Io } from "./io.ts";
import type { Session } from "./session.ts";

/**
 * The local stdio MCP server (B-347) of @maity/mcp, on the same credentials as every command
 * (B-027). Loaded only here, by name, so the CLI runs where that package is not installed; stdout
 * is the protocol's alone from here on.
 */
export async function mcp(session: Session, io: Io): Promise<number> {
  const name = "@maity/mcp";
  let module: { serveStdio?: (client: AgentClient, local: object) => Promise<void> };
  try {
    module = await import(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      io.err("maity mcp: the MCP server (@maity/mcp) is not installed in this build of the CLI");
      return 1;
    }
    throw error;
  }
  if (typeof module.serveStdio !== "function") {
    io.err("maity mcp: @maity/mcp has no serveStdio(client)");
    return 1;
  }
  await module.serveStdio(session.client, {});
  return 0;
}
