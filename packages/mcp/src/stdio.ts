import type { AgentClient, DeviceClient } from "@maity/client";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createMcpServer, createSessionMcpServer, type LocalOptions } from "./server.ts";

/**
 * The local MCP server on this process's stdin/stdout (`maity mcp`, 004 §2). Resolves when the
 * client goes away (stdin ends or the transport closes).
 */
export async function serveStdio(client: AgentClient, local: LocalOptions = {}): Promise<void> {
  // The local server reaches this machine's disk (004 §10): upload_file, files, download_attachment.
  await serve(createMcpServer(client, local));
}

/** `maity mcp` signed in as a person (DESIGN §4e): the session surface of one Bay over stdio. */
export async function serveSessionStdio(device: DeviceClient): Promise<void> {
  await serve(createSessionMcpServer(device));
}

async function serve(server: McpServer): Promise<void> {
  // stdout carries only protocol frames: a stray console.log would corrupt the stream the client
  // parses, so anything logged from here on goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  // The SDK's transport does not notice the end of stdin; without this the process lingers.
  process.stdin.once("end", () => void server.close());
  await server.connect(transport);
  await closed;
}
