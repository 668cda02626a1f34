import type { AgentClient } from "@maity/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer, type LocalOptions } from "../src/server.ts";

/** An SDK Client talking to createMcpServer(client) in memory; `local` makes it the stdio server's set. */
export async function inMemory(client: AgentClient, local?: LocalOptions) {
  const server = createMcpServer(client, local);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const mcp = new Client({ name: "test", version: "0" });
  await mcp.connect(b);
  const close = async () => {
    await mcp.close();
    await server.close();
  };
  return { mcp, close };
}

/** An AgentClient whose calls the test supplies (the rest throw). */
export const fakeClient = (calls: Partial<Record<keyof AgentClient, unknown>>): AgentClient =>
  new Proxy({} as AgentClient, {
    get: (_, name: string) =>
      (calls as Record<string, unknown>)[name] ??
      (() => {
        throw new Error(`unexpected call ${name}`);
      }),
  });
