// pnpm --filter @maity/mcp bench: one agent's sends over REST, over the SDK (connect().send) and
// over POST /api/mcp (send_message, a stateless server per request), on one hub in one run;
// prints each path's time per send and its ratio to REST (the same write underneath).
import { startApiServer } from "@maity/api/node";
import { connect } from "@maity/client";
import { createHub, seedDemo } from "@maity/hub";
import { freshDatabase } from "@maity/db/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { handleMcp } from "../src/http.ts";

const N = Number(process.env.BENCH_SENDS ?? 200);
const hub = createHub(await freshDatabase(), { limits: { agent: 1_000_000, updates: 1_000_000 } });
await seedDemo(hub);
const api = await startApiServer(hub, { mcp: handleMcp });
const token = (await hub.admin.mintToken({ member_id: "agt-a" })).token;
const agent = connect({ baseUrl: api.url, token });
const room = (await agent.conversations()).find((r) => r.type === "DM")?.id as string;

async function time(name: string, send: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await send(-i - 1); // warm up
  const start = performance.now();
  for (let i = 0; i < N; i++) await send(i);
  const ms = (performance.now() - start) / N;
  console.log(`${name.padEnd(22)} ${ms.toFixed(2)} ms/send`);
  return ms;
}

const rest = await time("REST fetch", (i) =>
  fetch(`${api.url}/api/agent-api/conversations/${room}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ content: `rest ${i}` }),
  }).then((r) => r.text()),
);
const sdk = await time("SDK send", (i) => agent.send(room, { content: `sdk ${i}` }));
const mcp = new Client({ name: "bench", version: "1" });
await mcp.connect(
  new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  }),
);
const viaMcp = await time("MCP send_message", (i) =>
  mcp.callTool({ name: "send_message", arguments: { conversationId: room, content: `mcp ${i}` } }),
);
console.log(
  `ratios to REST: SDK ${(sdk / rest).toFixed(2)}, MCP ${(viaMcp / rest).toFixed(2)} (${N} sends each, PGlite)`,
);
await mcp.close();
await api.close();
await hub.close();
