// pnpm bench:delivery — how fast a message reaches an agent: post → the held GET /updates answers
// with it, and post → the /ws event frame arrives, with 1, 100 and 1,000 listeners (the measured
// agent plus N-1 idle agents, each holding a socket and a long poll), beside a bare `ws` echo
// server with as many idle connections. Prints p50/p99 in ms. Everything runs in this one process
// on 127.0.0.1 (hub, server and clients share 2 cores): compare figures of one run, not runs.
// DATABASE_URL=postgresql://… runs the hub on PostgreSQL instead of in-memory PGlite.
// File descriptors: ~4 per idle agent at 1,000 (socket and poll, both ends) — `ulimit -n` ≥ 8192.
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { openDatabase } from "@maity/db";
import { createHub } from "@maity/hub";
import { Worker } from "node:worker_threads";
import type WebSocket from "ws";
import { WebSocketServer } from "ws";
import { startApiServer } from "../src/node.ts";
import { closeAll, inBatches, log, percentile, since, sleep, socket, within } from "./clients.ts";
import { type IdleOptions, type IdleTrouble, idleAgents } from "./idle-agents.ts";

/** BENCH_LEVELS=1000 (comma-separated) and BENCH_SAMPLES=… narrow a run while investigating one figure. */
const LEVELS = (process.env.BENCH_LEVELS ?? "1,100,1000").split(",").map(Number);
/** Samples per figure, and the time one figure may take before it stops with fewer. */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 5;
const FIGURE_BUDGET_MS = 120_000;
/** Between samples: the measured poll is held (and the previous batch settled) before the post. */
const GAP_MS = 100;
/** A sample that has not arrived after this is counted as lost, not waited for. */
const SAMPLE_TIMEOUT_MS = 10_000;
const IDLE_WAIT_S = 25;

interface Row {
  listeners: number;
  path: string;
  samples: number[];
  lost: number;
}
const rows: Row[] = [];
const started = performance.now();

/** Takes up to SAMPLES timings of `one` (after WARMUP unrecorded ones), within FIGURE_BUDGET_MS. */
async function figure(listeners: number, path: string, one: (i: number) => Promise<number | null>): Promise<void> {
  const row: Row = { listeners, path, samples: [], lost: 0 };
  // How long the one thread (hub, PGlite, clients) was busy elsewhere when a timer was due.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // BENCH_PROFILE=dir writes a CPU profile of each hub figure there (open it in Chrome's DevTools).
  const profile = process.env.BENCH_PROFILE && path.startsWith("hub") ? new Session() : null;
  if (profile) {
    profile.connect();
    await profile.post("Profiler.enable");
    await profile.post("Profiler.start");
  }
  const t = performance.now();
  for (let i = 0; i < WARMUP + SAMPLES && performance.now() - t < FIGURE_BUDGET_MS; i++) {
    await sleep(GAP_MS);
    const ms = await one(i);
    if (i < WARMUP) continue;
    if (ms === null) row.lost += 1;
    else row.samples.push(ms);
  }
  loop.disable();
  if (profile) {
    const { profile: taken } = await profile.post("Profiler.stop");
    const file = `${process.env.BENCH_PROFILE}/${listeners}-${path.replace(/\W+/g, "-")}.cpuprofile`;
    await writeFile(file, JSON.stringify(taken));
    profile.disconnect();
    log(`  profile: ${file}`);
  }
  rows.push(row);
  const delay = `event loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`;
  log(
    `  ${path} with ${listeners}: p50 ${percentile(row.samples, 0.5).toFixed(1)} ms, p99 ${percentile(row.samples, 0.99).toFixed(1)} ms, ${row.samples.length} samples${row.lost ? `, ${row.lost} lost` : ""}; ${delay} (${since(t)})`,
  );
}

// ---------------------------------------------------------------------------------------------
// 1. The baseline, alone in the process: a bare `ws` server that echoes each frame to its sender.
// ---------------------------------------------------------------------------------------------
log(`bare ws echo server: ${LEVELS.join(", ")} connections`);
{
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  wss.on("connection", (ws) => ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary })));
  const address = wss.address();
  const url = `ws://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const idle: WebSocket[] = [];
  let waiting: { text: string; done: (t: number) => void } | null = null;
  const measured = socket(url, {}, (data) => {
    if (waiting && data === waiting.text) waiting.done(performance.now());
  });
  await measured.opened;
  for (const level of LEVELS) {
    const t = performance.now();
    await inBatches(
      Array.from({ length: level - 1 - idle.length }, (_, i) => i),
      50,
      async () => {
        const s = socket(url, {}, () => {});
        await s.opened;
        idle.push(s.ws);
      },
    );
    log(` ${level} connections open (${since(t)})`);
    await figure(level, "bare ws: send → echo", async (i) => {
      const text = JSON.stringify({ t: "echo", level, i });
      const arrived = new Promise<number>((resolve) => {
        waiting = { text, done: resolve };
      });
      const t0 = performance.now();
      measured.ws.send(text);
      try {
        return (await within(arrived, SAMPLE_TIMEOUT_MS, "echo")) - t0;
      } catch {
        return null;
      } finally {
        waiting = null;
      }
    });
  }
  await closeAll([measured.ws, ...idle]);
  await new Promise<void>((resolve) => wss.close(() => resolve()));
}

// ---------------------------------------------------------------------------------------------
// 2. The hub: one human writes in the direct conversation of its agent, which listens.
// ---------------------------------------------------------------------------------------------
const database = await openDatabase(
  process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: "memory://" },
);
const unlimited = 1_000_000_000;
const hub = createHub(database, {
  limits: { agent: unlimited, updates: unlimited, ws: unlimited, preauth: unlimited },
});
await hub.start();
const api = await startApiServer(hub);
const wsUrl = `${api.url.replace("http", "ws")}/api/agent-api/ws`;
log(`hub on ${database.engine} at ${api.url}`);

await hub.admin.createHuman({ handle: "writer", name: "Writer", password: "bench-password" });
await hub.admin.createHuman({ handle: "idler", name: "Idler", password: "bench-password" });
await hub.admin.createProject({ owner: "writer", slug: "bench", name: "Bench" });
// The idle agents live in a project of their own, so the writer's direct conversation and its
// audience are the same at every level: only the number of listeners changes.
await hub.admin.createProject({ owner: "idler", slug: "idle", name: "Idle agents" });
const measuredAgent = await hub.admin.createAgent({
  owner: "writer",
  handle: "measured",
  description: "The agent whose delivery is timed.",
});
await hub.admin.addMember({ owner: "writer", slug: "bench" }, { member_id: measuredAgent.id });
const writerToken = (await hub.admin.mintToken({ member_id: "hum-writer" })).token;
const agentToken = (await hub.admin.mintToken({ member_id: measuredAgent.id })).token;
const postUrl = `${api.url}/api/projects/writer/bench/conversations/${measuredAgent.id}/messages`;

/** The writer's POST; resolves with the time its 201 arrived. */
async function post(content: string): Promise<number> {
  const res = await fetch(postUrl, {
    method: "POST",
    headers: { authorization: `Bearer ${writerToken}`, "content-type": "application/json" },
    body: JSON.stringify({ body: content }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST …/messages answered ${res.status}: ${text}`);
  return performance.now();
}
type UpdatesBody = { cursor: string; events: { message: { content: string } }[] };
async function updates(
  token: string,
  query: string,
  signal?: AbortSignal,
): Promise<{ status: number; body: UpdatesBody }> {
  const res = await fetch(`${api.url}/api/agent-api/updates?${query}`, {
    headers: { authorization: `Bearer ${token}` },
    ...(signal ? { signal } : {}),
  });
  const body = (await res.json()) as UpdatesBody;
  return { status: res.status, body };
}

// The idle agents live in a worker thread (idle-agents.ts): their own event loop, like the other
// processes real agents are. BENCH_IDLE_IN_THREAD=1 runs their clients on the hub's thread instead.
const idleInThread = process.env.BENCH_IDLE_IN_THREAD === "1";
const idleOptions: IdleOptions = { apiUrl: api.url, wsUrl, idleWaitS: IDLE_WAIT_S, maxAgents: Math.max(...LEVELS) };
const idle = idleInThread ? idleAgents(idleOptions) : idleWorker(idleOptions);
function idleWorker(options: IdleOptions): ReturnType<typeof idleAgents> {
  const worker = new Worker(new URL("./idle-agents.worker.mjs", import.meta.url), {
    workerData: { idleAgents: options },
  });
  type Reply = { opened?: { sockets: number; polls: number }; failed?: string; trouble?: IdleTrouble };
  const ask = (message: { add?: string[]; stop?: true }) =>
    new Promise<Reply>((resolve, reject) => {
      const on = (reply: Reply) => {
        worker.off("message", on);
        if (reply.failed) reject(new Error(`idle agents: ${reply.failed}`));
        else resolve(reply);
      };
      worker.on("message", on);
      worker.postMessage(message);
    });
  return {
    add: async (tokens) => (await ask({ add: tokens })).opened ?? { sockets: 0, polls: 0 },
    stop: async () => {
      const { trouble } = await ask({ stop: true });
      await worker.terminate();
      return trouble ?? { pollErrors: 0, pollStatus: {}, socketsClosed: 0, messages: [] };
    },
  };
}
let opened = { sockets: 0, polls: 0 };
let created = 0;

/** The hub's SQL statements a second over the next `ms`; `seen` counts them by their text. */
async function statementRate(ms: number, seen?: Map<string, number>): Promise<number> {
  let n = 0;
  const stop = database.observeQueries((sql) => {
    n++;
    if (seen) {
      const text = sql.replace(/\s+/g, " ").trim().slice(0, 100);
      seen.set(text, (seen.get(text) ?? 0) + 1);
    }
  });
  await sleep(ms);
  stop();
  return (n * 1000) / ms;
}
/** Waits (at most `maxMs`) until the idle agents' start-up burst is over: under `perSecond` statements a second. */
async function settle(perSecond: number, maxMs = 60_000): Promise<void> {
  const t = performance.now();
  while ((await statementRate(1000)) >= perSecond && performance.now() - t < maxMs) {}
}
const background = new Map<number, number>();

/** A sample slower than this is described on stderr (what each poll answered, when the POST did). */
const SLOW_MS = 1000;

/** The measured agent's DM as seen through /updates: hold with the cursor, post, time the answer. */
async function measureUpdates(level: number, writes: Row): Promise<void> {
  let cursor = (await updates(agentToken, "wait=0")).body.cursor;
  await figure(level, "hub: post → /updates", async (i) => {
    const content = `updates sample ${level}/${i}`;
    const cancel = new AbortController();
    const trace: string[] = [];
    let t0 = 0;
    let t1 = 0;
    const at = () => `${(performance.now() - t0).toFixed(0)} ms`;
    const held = (async () => {
      // Hold until this sample's message comes (the first answer carries it unless it raced).
      for (let tries = 0; tries < 5; tries++) {
        const { status, body } = await updates(agentToken, `wait=${IDLE_WAIT_S}&cursor=${cursor}`, cancel.signal);
        trace.push(`poll ${tries + 1} answered ${status} at ${at()} with ${body.events?.length ?? 0} events`);
        if (status !== 200) throw new Error(`measured /updates answered ${status}: ${JSON.stringify(body)}`);
        cursor = body.cursor;
        if (body.events.some((e) => e.message.content === content)) {
          t1 = performance.now();
          return;
        }
      }
      throw new Error("the sample's message never came in five polls");
    })();
    held.catch(() => {});
    await sleep(GAP_MS); // the poll is held at the hub before the post
    t0 = performance.now();
    const wrote = post(content).then((t) => {
      trace.push(`POST answered 201 at ${at()}`);
      return t;
    });
    try {
      await within(held, SAMPLE_TIMEOUT_MS, "post → /updates");
      const written = (await wrote) - t0;
      if (i >= WARMUP) writes.samples.push(written);
      if (t1 - t0 > SLOW_MS) log(`  slow sample ${i}: ${trace.join("; ")}`);
      return t1 - t0;
    } catch (error) {
      // Stop this sample's poll loop, so it cannot displace the next sample's poll (B-140).
      cancel.abort();
      await wrote.catch(() => {});
      log(`  lost sample ${i}: ${(error as Error).message}; ${trace.join("; ")}`);
      cursor = (await updates(agentToken, "wait=0")).body.cursor;
      return null;
    }
  });
}

/** The same over the measured agent's socket: post, time the event frame. */
async function measureSocket(level: number, writes: Row): Promise<void> {
  let waiting: { content: string; done: (t: number) => void } | null = null;
  let ready: () => void = () => {};
  const cursor = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const s = socket(wsUrl, { authorization: `Bearer ${agentToken}` }, (data) => {
    const frame = JSON.parse(data) as { t: string; message?: { content: string } };
    if (frame.t === "cursor") ready();
    if (frame.t === "event" && waiting && frame.message?.content === waiting.content) waiting.done(performance.now());
  });
  await s.opened;
  s.ws.send(JSON.stringify({ t: "hello", resume: null }));
  await within(cursor, 30_000, "measured socket's first cursor frame");
  await figure(level, "hub: post → /ws frame", async (i) => {
    const content = `ws sample ${level}/${i}`;
    const arrived = new Promise<number>((resolve) => {
      waiting = { content, done: resolve };
    });
    const t0 = performance.now();
    const wrote = post(content);
    try {
      const t1 = await within(arrived, SAMPLE_TIMEOUT_MS, "post → /ws frame");
      const written = (await wrote) - t0;
      if (i >= WARMUP) writes.samples.push(written);
      if (t1 - t0 > SLOW_MS)
        log(`  slow sample ${i}: frame at ${(t1 - t0).toFixed(0)} ms, POST answered 201 at ${written.toFixed(0)} ms`);
      return t1 - t0;
    } catch (error) {
      const written = (await wrote.catch(() => Number.NaN)) - t0;
      log(`  lost sample ${i}: ${(error as Error).message}; POST answered 201 at ${written.toFixed(0)} ms`);
      return null;
    } finally {
      waiting = null;
    }
  });
  await closeAll([s.ws]);
}

for (const level of LEVELS) {
  log(
    `hub with ${level} listener${level === 1 ? "" : "s"} (${level - 1} idle agents, each with a socket and a held /updates)`,
  );
  let t = performance.now();
  const fresh: string[] = [];
  while (created < level - 1) {
    created += 1;
    const agent = await hub.admin.createAgent({ owner: "idler", handle: `idle-${String(created).padStart(4, "0")}` });
    await hub.admin.addMember({ owner: "idler", slug: "idle" }, { member_id: agent.id });
    fresh.push((await hub.admin.mintToken({ member_id: agent.id })).token);
  }
  if (fresh.length) log(` created ${fresh.length} idle agents (${since(t)})`);
  t = performance.now();
  if (fresh.length) opened = await idle.add(fresh);
  if (fresh.length) await settle(Math.max(50, level / 2));
  const idleStatements = new Map<string, number>();
  background.set(level, await statementRate(5000, idleStatements));
  // What the idle agents still cost, most frequent first: each should be 0 (DESIGN §5).
  for (const [text, n] of [...idleStatements].sort((x, y) => y[1] - x[1]).slice(0, 5)) log(`  ${n}× ${text}`);
  log(
    ` ${opened.sockets} idle sockets open, ${opened.polls} idle polls running; idle load ${background.get(level)?.toFixed(0)} SQL statements/s (${since(t)})`,
  );
  const writes: Row = { listeners: level, path: "hub: post → 201 (writer)", samples: [], lost: 0 };
  await measureUpdates(level, writes);
  await measureSocket(level, writes);
  rows.push(writes);
}

const idleTrouble: IdleTrouble | undefined = await idle.stop();
await api.close();
await hub.close();

// ---------------------------------------------------------------------------------------------
const order = ["bare ws: send → echo", "hub: post → /ws frame", "hub: post → /updates", "hub: post → 201 (writer)"];
rows.sort((a, b) => a.listeners - b.listeners || order.indexOf(a.path) - order.indexOf(b.path));
console.log(
  `\nDelivery latency on ${database.engine}, one process on 127.0.0.1 (${SAMPLES} samples a figure unless the ${FIGURE_BUDGET_MS / 1000} s budget ran out)`,
);
console.log("listeners  path                       p50 ms   p99 ms   max ms  samples");
for (const r of rows) {
  console.log(
    `${String(r.listeners).padStart(9)}  ${r.path.padEnd(25)} ${percentile(r.samples, 0.5).toFixed(1).padStart(7)}  ${percentile(r.samples, 0.99).toFixed(1).padStart(7)}  ${percentile(r.samples, 1).toFixed(1).padStart(7)}  ${String(r.samples.length).padStart(7)}${r.lost ? `  (${r.lost} lost)` : ""}`,
  );
}
const p50 = (listeners: number, path: string) =>
  percentile(rows.find((r) => r.listeners === listeners && r.path === path)?.samples ?? [], 0.5);
for (const path of order.slice(1, 3)) {
  console.log(
    `${path} p50 vs bare ws at the same level: ${LEVELS.map((l) => `${l}: ×${(p50(l, path) / p50(l, order[0] as string)).toFixed(1)}`).join(", ")}`,
  );
  console.log(
    `${path} p50 vs the writer's own POST at the same level: ${LEVELS.map((l) => `${l}: ×${(p50(l, path) / p50(l, order[3] as string)).toFixed(2)}`).join(", ")}`,
  );
}
console.log(
  `hub SQL statements a second from the idle agents alone: ${LEVELS.map((l) => `${l}: ${background.get(l)?.toFixed(0)}`).join(", ")}`,
);
const trouble = Object.entries(idleTrouble?.pollStatus ?? {}).map(([s, n]) => `${n}× ${s}`);
if (idleTrouble && (idleTrouble.pollErrors || trouble.length || idleTrouble.socketsClosed))
  console.log(
    `idle agents: ${idleTrouble.pollErrors} poll errors${idleTrouble.messages.length ? ` (${idleTrouble.messages.join("; ")})` : ""}, statuses ${trouble.join(", ") || "none"}, ${idleTrouble.socketsClosed} sockets closed early`,
  );
log(`done in ${since(started)}`);
