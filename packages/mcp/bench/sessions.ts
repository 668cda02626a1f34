// pnpm bench:sessions: terminal sessions against what they are built on, on one hub in one run
// (issue 30): (1) a person's message to the moment a session's monitor frame arrives, beside the
// moment an agent's own /ws event arrives for the same message — the same bus, so the ratio is the
// monitor's own cost; (2) get_messages over POST /api/mcp as a session (device credential +
// X-Maity-Session) beside the same call with an agent token; (3) join_session by title when the
// person is in 1 group and in 100 — how its cost grows with what the person is in.
import { startApiServer } from "@maity/api/node";
import { createHub, seedDemo } from "@maity/hub";
import { freshDatabase } from "@maity/db/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { WebSocket } from "ws";
import { handleMcp } from "../src/http.ts";

const N = Number(process.env.BENCH_ROUNDS ?? 100);
const hub = createHub(await freshDatabase(), {
  limits: { agent: 1_000_000, updates: 1_000_000, ws: 1_000_000, preauth: 1_000_000 },
});
await seedDemo(hub);
const api = await startApiServer(hub, { mcp: handleMcp });
const P = "/api/projects/maintainer/maity";
const person = (await hub.admin.mintToken({ member_id: "hum-maintainer" })).token;
const agentToken = (await hub.admin.mintToken({ member_id: "agt-a" })).token;

async function rest(method: string, path: string, token: string | null, body?: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.json() as Promise<Record<string, never>>;
}
const opened = await rest("POST", "/api/device-api/login", null, { label: "bench" });
const view = await rest("GET", `/api/device/${opened.code}`, person);
await rest("POST", `/api/device/${opened.code}/approve`, person, {
  bays: (view.bays as { id: string }[]).map((b) => b.id),
});
const polled = await rest("POST", `/api/device-api/login/${opened.id}/poll`, null, { secret: opened.secret });
const device = (polled.credentials as { token: string }[])[0]?.token as string;

async function mcpOf(token: string) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${api.url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
const asSession = await mcpOf(device);
const asAgent = await mcpOf(agentToken);
const tool = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, never>;
};
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
const line = (name: string, xs: number[]) =>
  `${name.padEnd(44)} p50 ${pct(xs, 0.5).toFixed(2)} ms  p95 ${pct(xs, 0.95).toFixed(2)} ms`;

// (1) wake latency: the monitor beside an agent's /ws, one message waking both.
const joined = await tool(asSession, "join_session", { session: "bench", group: "Release 0.2 go/no-go" });
const room = joined.conversation as unknown as { id: string; maityId: string };
const monitor = (await tool(asSession, "listen_messages", { session: "bench" })).monitor as unknown as {
  url: string;
  protocol: string;
};
const arrivals = new Map<string, { monitor?: number; ws?: number }>();
const seen = (id: string, key: "monitor" | "ws") => arrivals.set(id, { ...arrivals.get(id), [key]: performance.now() });
const mon = new WebSocket(monitor.url, monitor.protocol);
mon.on("message", (d) => {
  const f = JSON.parse(String(d)) as { items?: { messageId: string }[] };
  for (const i of f.items ?? []) seen(i.messageId, "monitor");
});
const ws = new WebSocket(api.url.replace(/^http/, "ws") + "/api/agent-api/ws", {
  headers: { authorization: `Bearer ${agentToken}` },
});
ws.on("open", () => ws.send(JSON.stringify({ t: "hello" })));
ws.on("message", (d) => {
  const f = JSON.parse(String(d)) as { t: string; message?: { id: string } };
  if (f.t === "event" && f.message) seen(f.message.id, "ws");
});
await new Promise((r) => setTimeout(r, 500));
const toMonitor: number[] = [];
const toWs: number[] = [];
for (let i = 0; i < N; i++) {
  const sent = performance.now();
  const m = await rest("POST", `${P}/conversations/${room.maityId}/messages`, person, {
    body: `@bench @agent-a round ${i}`,
  });
  const id = m.id as string;
  for (const end = Date.now() + 5000; Date.now() < end; ) {
    const a = arrivals.get(id);
    if (a?.monitor !== undefined && a.ws !== undefined) break;
    await new Promise((r) => setImmediate(r));
  }
  const a = arrivals.get(id);
  if (a?.monitor !== undefined) toMonitor.push(a.monitor - sent);
  if (a?.ws !== undefined) toWs.push(a.ws - sent);
}
console.log(`(1) a person's message until it is handed over, ${N} messages (the post's own answer included)`);
console.log(line("session monitor frame", toMonitor));
console.log(line("agent /ws event (same message)", toWs));
console.log(`    ratio monitor / ws at p50: ${(pct(toMonitor, 0.5) / pct(toWs, 0.5)).toFixed(2)}`);
mon.close();
ws.close();

// (2) one read as a session and as an agent token.
async function time(run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 10; i++) await run();
  const xs: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await run();
    xs.push(performance.now() - start);
  }
  return xs;
}
const agentRooms = (await tool(asAgent, "list_conversations", {})).conversations as unknown as { id: string }[];
const sessionRead = await time(() =>
  tool(asSession, "get_messages", { session: "bench", conversationId: room.id, limit: 20 }),
);
const agentRead = await time(() =>
  tool(asAgent, "get_messages", { conversationId: agentRooms.find((r) => r.id === room.id)?.id ?? room.id, limit: 20 }),
);
console.log(`(2) get_messages (20) over POST /api/mcp, ${N} calls each`);
console.log(line("as a session (bay_u_ + session)", sessionRead));
console.log(line("as an agent token", agentRead));
console.log(`    ratio session / agent at p50: ${(pct(sessionRead, 0.5) / pct(agentRead, 0.5)).toFixed(2)}`);

// (3) join_session by title: the person in 1 group, then in 100.
const joinTimes = async (label: string) => {
  const xs = await time(() => tool(asSession, "join_session", { session: "bench", group: "Release 0.2 go/no-go" }));
  console.log(line(label, xs));
  return xs;
};
console.log(`(3) join_session by exact title, ${N} joins each`);
const few = await joinTimes("the person in 2 groups");
for (let i = 0; i < 98; i++)
  await rest("POST", `${P}/conversations`, person, { title: `Room ${i}`, participants: ["agt-a", "hum-guest"] });
const many = await joinTimes("the person in 100 groups");
console.log(`    ratio 100 / 2 groups at p50: ${(pct(many, 0.5) / pct(few, 0.5)).toFixed(2)}`);

await asSession.close();
await asAgent.close();
await api.close();
await hub.close();
