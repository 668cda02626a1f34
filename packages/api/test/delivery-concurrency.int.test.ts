import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import { encodeUpdatesCursor } from "@maity/domain";
import type { Hub, HubOptions } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { ApiServer } from "../src/node.ts";
import { restClient } from "./helpers.ts";
import { adminPoster, openLiveFeed, startInstances } from "./load.ts";

// Proof under load: every message the hub acknowledged (answered 201) reaches every
// listener exactly once, in seq order (M-022), whatever the concurrency and the engine.
//
// On PostgreSQL 8 humans post 504 messages into one group chat over HTTP REST, 2 posts in flight
// each (16 at a time), through two app instances on the same database (as agent-bus.int.test.ts
// does), every writer alternating between them. On PGlite (one process owns it) there is instance A
// only and 8 × 25 posts, one in flight each: PGlite serialises writes on its one connection, so it
// is the control run, and the full load there costs over a minute of CPU today (LOAD_PER_WRITER=63
// runs it). Listening from before the first post, all from the same explicit position (the log's
// head), so none can miss a message by starting late:
//   - agent 1 on /ws of instance A, a compliant client: events are its own once the cursor frame
//     after them arrives (B-152), and a closed socket is reopened with hello.resume = that cursor;
//   - agent 2 on a /updates long-poll loop on instance B (A on PGlite), each answer's cursor passed
//     to the next call (B-144);
//   - agent 3's webhook: a receiver on 127.0.0.1 that checks every signature;
//   - a human's dashboard feed: the tRPC subscription live.feed as text/event-stream.
//
// What this catches on PostgreSQL (messages were lost there): the log's seq is a
// serial taken at insert, so two writers can commit N+1 before N; a reader that sees N+1 moves its
// position past N, and N is never delivered to it. PGlite serialises writes on its one connection.

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
// The load; the environment may raise it (LOAD_WRITERS at most 9: the chat's 12 seats hold the
// writers, the reading human and 3 agents; LOAD_IN_FLIGHT posts per writer at a time).
const WRITERS = Number(process.env.LOAD_WRITERS ?? 8);
const PER_WRITER = Number(process.env.LOAD_PER_WRITER ?? (onPostgres ? 63 : 25));
const IN_FLIGHT = Number(process.env.LOAD_IN_FLIGHT ?? (onPostgres ? 2 : 1));
/** Draining ends when every listener has every acknowledged message, after QUIET_MS without an arrival (and no webhook pending), or after DRAIN_MAX_MS. */
/**
 * Draining waits while deliveries progress: it ends when every listener has everything, or when
 * none received anything for QUIET_MS with no webhook delivery pending, or for STALL_MS whatever
 * is pending (a stuck worker); DRAIN_MAX_MS only bounds the loop. No time limit on a slow machine.
 */
const DRAIN_MAX_MS = 600_000;
const QUIET_MS = 4_000;
const STALL_MS = 30_000;
const SECRET = "delivery-concurrency-secret-0123";
const OPTIONS: HubOptions = {
  limits: { agent: 1_000_000, updates: 1_000_000, ws: 1_000_000 },
  // The receiver answers 200 at once: a retry could only come from this busy process missing the timeout.
  // The receiver is on 127.0.0.1, reachable (against SSRF) only through the operator's allow list.
  webhooks: { backoffMs: [50, 100, 200], timeoutMs: 30_000, allow: ["127.0.0.1"] },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seqOf = (id: string) => Number(id.replace(/^evt-/, ""));

/** What one listener got: message seqs in arrival order; faults fail its test, notes only inform. */
type Listener = { name: string; arrivals: number[]; faults: string[]; notes: string[]; lastAt: number };
const listener = (name: string): Listener => ({ name, arrivals: [], faults: [], notes: [], lastAt: 0 });
const L = {
  ws: listener("/ws agent (A)"),
  updates: listener(`/updates agent (${onPostgres ? "B" : "A"})`),
  webhook: listener("webhook agent"),
  sse: listener("live.feed human (A)"),
};

let a: Hub;
let b: Hub | null = null;
let apiA: ApiServer;
let apiB: ApiServer;
let hook: Server | null = null;
let instances: Awaited<ReturnType<typeof startInstances>> | undefined;
const T: Record<string, string> = {};
const PROJECT = "/api/projects/writer1/load";
let group = "";
const acknowledged = new Map<number, string>(); // seq → id of every 201 answer
const refused: string[] = [];
const stops: (() => void | Promise<void>)[] = [];
let sseTransport = "";
/** The poll agent's messages read again from the start position once the writes are done: the log itself. */
const reread: number[] = [];

// ---- listeners -----------------------------------------------------------------------------------

/** Agent 1: /ws with the protocol's resume rule (B-144, B-152, B-154). Resolves at the first cursor frame. */
function socketListener(url: string, token: string, start: string, into: Listener): Promise<void> {
  let cursor = start;
  let stopped = false;
  let ws: WebSocket | null = null;
  let opens = 0;
  let ready: () => void = () => {};
  const first = new Promise<void>((r) => (ready = r));
  const open = () => {
    opens += 1;
    if (opens > 1) into.notes.push(`reopened with resume ${cursor}`);
    const socket = new WebSocket(`${url.replace("http", "ws")}/api/agent-api/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    ws = socket;
    // Events of a batch whose cursor frame has not come yet; a socket that closes before it drops them (they come again).
    let pending: number[] = [];
    socket.on("open", () => socket.send(JSON.stringify({ t: "hello", resume: cursor })));
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { t: string; cursor?: string; message?: { id: string } };
      if (frame.t === "event") pending.push(seqOf(frame.message?.id ?? ""));
      else if (frame.t === "cursor") {
        if (pending.length) into.lastAt = Date.now();
        into.arrivals.push(...pending.splice(0));
        cursor = frame.cursor as string;
        ready();
      } else if (frame.t === "reset") into.faults.push("reset: the hub no longer held the cursor");
    });
    socket.on("error", (e) => into.notes.push(`socket error: ${e.message}`));
    socket.on("close", (code) => {
      pending = [];
      if (stopped) return;
      into.notes.push(`closed ${code}`);
      // Bounded: a socket that keeps closing is a failure to report, not to retry forever.
      if (opens < 20) setTimeout(open, 100);
      else into.faults.push(`closed ${opens} times`);
    });
  };
  open();
  stops.push(() => {
    stopped = true;
    ws?.close();
  });
  return first;
}

/** Agent 2: a /updates long-poll loop, each answer's cursor into the next call (B-127, B-144). */
function pollListener(url: string, token: string, start: string, into: Listener): void {
  const controller = new AbortController();
  let cursor = start;
  const loop = (async () => {
    for (let i = 0; i < 100_000 && !controller.signal.aborted; i++) {
      try {
        const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(60_000)]);
        const res = await fetch(`${url}/api/agent-api/updates?wait=5&cursor=${cursor}`, {
          headers: { authorization: `Bearer ${token}` },
          signal,
        });
        const body = (await res.json()) as { cursor: string; events: { message: { id: string } }[] };
        if (res.status !== 200) {
          into.faults.push(`answered ${res.status} ${JSON.stringify(body)}`);
          await sleep(200);
          continue;
        }
        if (body.events.length) into.lastAt = Date.now();
        into.arrivals.push(...body.events.map((e) => seqOf(e.message.id)));
        cursor = body.cursor;
      } catch (e) {
        if (!controller.signal.aborted) into.notes.push(`poll failed: ${(e as Error).message}`);
      }
    }
  })();
  stops.push(async () => {
    controller.abort();
    await loop;
  });
}

/** Agent 3: a webhook receiver on 127.0.0.1 checking every signature (B-162, B-163); answers 200 at once. */
async function webhookListener(into: Listener): Promise<string> {
  const deliveries = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString("utf8")) as { deliveryId: string; message: { id: string } };
      if (req.headers["x-maity-signature"] !== `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`)
        into.faults.push(`bad signature on ${body.deliveryId}`);
      if (deliveries.has(body.deliveryId))
        into.notes.push(`delivery ${body.deliveryId} (${body.message.id}) sent again`);
      deliveries.add(body.deliveryId);
      into.arrivals.push(seqOf(body.message.id));
      into.lastAt = Date.now();
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  hook = server;
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
}

/** A human's dashboard feed (load.ts openLiveFeed), from `start` on: this chat's messages in arrival order. */
async function sseListener(hub: Hub, url: string, token: string, start: number, into: Listener): Promise<void> {
  const feed = await openLiveFeed(hub, url, token, { lastEventId: String(start) }, (frame) => {
    if (frame.event !== undefined && frame.event !== "message") {
      if (frame.event !== "connected" && frame.event !== "ping")
        into.faults.push(`event ${frame.event}: ${frame.data}`);
      return;
    }
    if (frame.data === undefined) return;
    const item = JSON.parse(frame.data) as { seq: number; kind: string; conversation_id: string | null };
    if (item.kind !== "message" || item.conversation_id !== group) return;
    if (frame.id !== String(item.seq)) into.faults.push(`item ${item.seq} tracked as ${frame.id}`);
    into.arrivals.push(item.seq);
    into.lastAt = Date.now();
  });
  sseTransport = feed.transport;
  stops.push(feed.stop);
}

// ---- the load ------------------------------------------------------------------------------------

async function writer(n: number): Promise<void> {
  const who = `writer${n}`;
  const lane = async (first: number) => {
    for (let i = first; i < PER_WRITER; i += IN_FLIGHT) {
      // Both instances take writes all the time: each writer alternates, offset by its number.
      const api = b && (n + i) % 2 === 1 ? apiB : apiA;
      const res = await fetch(`${api.url}${PROJECT}/conversations/${group}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${T[who]}`, "content-type": "application/json" },
        body: JSON.stringify({ body: `${who} #${i}` }),
        signal: AbortSignal.timeout(60_000),
      })
        .then(async (r) => ({ status: r.status, body: (await r.json()) as { id: string; seq: number } }))
        .catch((e: Error) => ({ status: 0, body: { id: e.message, seq: 0 } }));
      if (res.status === 201) acknowledged.set(res.body.seq, res.body.id);
      else refused.push(`${who} #${i}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, k) => lane(k)));
}

function verdict(l: Listener) {
  const counts = new Map<number, number>();
  for (const s of l.arrivals) counts.set(s, (counts.get(s) ?? 0) + 1);
  const lost = [...acknowledged.keys()].filter((s) => !counts.has(s)).sort((x, y) => x - y);
  const highest = Math.max(0, ...l.arrivals);
  return {
    lost,
    /** Lost below a seq the listener did get: its position stepped over them, they will never come. */
    steppedOver: lost.filter((s) => s < highest).length,
    doubled: [...counts].filter(([, c]) => c > 1).map(([s]) => s),
    unknown: [...counts.keys()].filter((s) => !acknowledged.has(s)),
    /** Each arrival not above the one before it, as "before→after". */
    outOfOrder: l.arrivals.flatMap((s, i) =>
      i > 0 && s <= (l.arrivals[i - 1] as number) ? [`${l.arrivals[i - 1]}→${s}`] : [],
    ),
  };
}
const complete = (l: Listener) => {
  const got = new Set(l.arrivals);
  return [...acknowledged.keys()].every((s) => got.has(s));
};
const list = (xs: unknown[], max = 40) =>
  xs.length ? ` [${xs.slice(0, max).join(" ")}${xs.length > max ? " …" : ""}]` : "";

beforeAll(async () => {
  const t0 = Date.now();
  instances = await startInstances(OPTIONS);
  ({ a, b, apiA, apiB } = instances);

  // A project of 9 humans and 3 agents, all in one group chat (12: the most a group chat holds).
  const rest = restClient(a);
  const admin = adminPoster(a);
  const humans = [...Array.from({ length: WRITERS }, (_, i) => `writer${i + 1}`), "reader"];
  for (const handle of humans)
    await admin("/api/admin/humans", { handle, name: handle, password: `${handle}-password` });
  await admin("/api/admin/projects", { owner: "writer1", slug: "load", name: "Load" });
  const agents: Record<string, string> = {};
  for (const handle of ["ws-agent", "poll-agent", "hook-agent"])
    agents[handle] = (
      await admin("/api/admin/agents", { owner: "writer1", handle, description: `Listens (${handle}).` })
    ).id;
  const others = [...humans.slice(1).map((h) => `hum-${h}`), ...Object.values(agents)];
  for (const id of others) await admin("/api/admin/projects/writer1/load/members", { member_id: id });
  for (const handle of humans) T[handle] = (await admin("/api/admin/tokens", { member_id: `hum-${handle}` })).token;
  for (const [handle, id] of Object.entries(agents))
    T[handle] = (await admin("/api/admin/tokens", { member_id: id })).token;
  const created = await rest("POST", `${PROJECT}/conversations`, {
    token: T.writer1,
    body: { title: "Under load", participants: others },
  });
  if (created.status !== 201)
    throw new Error(`the group chat answered ${created.status} ${JSON.stringify(created.body)}`);
  group = created.body.id;
  const set = await fetch(`${apiA.url}/api/agent-api/webhook`, {
    method: "POST",
    headers: { authorization: `Bearer ${T["hook-agent"]}`, "content-type": "application/json" },
    body: JSON.stringify({ url: await webhookListener(L.webhook), secret: SECRET }),
  });
  if (set.status !== 200) throw new Error(`POST /webhook answered ${set.status} ${await set.text()}`);

  // Every listener from one position: the log's head before the first post.
  const start = await a.messages.lastSeq();
  pollListener(apiB.url, T["poll-agent"] as string, encodeUpdatesCursor(start), L.updates);
  await Promise.all([
    socketListener(apiA.url, T["ws-agent"] as string, encodeUpdatesCursor(start), L.ws),
    sseListener(a, apiA.url, T.reader as string, start, L.sse),
  ]);
  const t1 = Date.now();

  await Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i + 1)));
  const t2 = Date.now();

  const all = Object.values(L);
  const pending = async () => (await a.db.webhookDelivery.count({ where: { status: "pending" } })) > 0;
  for (let i = 0; i < DRAIN_MAX_MS / 100; i++) {
    if (all.every(complete)) break;
    const quiet = Date.now() - Math.max(t2, ...all.map((l) => l.lastAt));
    if (quiet > STALL_MS || (quiet > QUIET_MS && !(await pending()))) break;
    await sleep(100);
  }
  const t3 = Date.now();
  const logged = await a.db.eventAudience.findMany({
    where: { memberId: agents["poll-agent"] as string, eventSeq: { gt: start }, event: { kind: "message" } },
    orderBy: { eventSeq: "asc" },
    select: { eventSeq: true },
  });
  reread.push(...logged.map((r) => r.eventSeq));

  console.info(
    [
      `delivery-concurrency on ${onPostgres ? "PostgreSQL, instances A and B" : "PGlite, instance A"}: ${WRITERS} writers × ${PER_WRITER} (${IN_FLIGHT} in flight each), ${acknowledged.size} acknowledged, ${refused.length} refused`,
      `setup ${t1 - t0} ms, writing ${t2 - t1} ms, draining ${t3 - t2} ms; live.feed over ${sseTransport}`,
      `the log read again from the start position afterwards: ${reread.length} messages for the poll agent`,
      ...all.map((l) => {
        const v = verdict(l);
        const extra = [...l.faults, ...l.notes];
        return `${l.name}: received ${acknowledged.size - v.lost.length}/${acknowledged.size}, lost ${v.lost.length}${list(v.lost)} (${v.steppedOver} stepped over), doubled ${v.doubled.length}${list(v.doubled)}, out of order ${v.outOfOrder.length}${list(v.outOfOrder, 10)}${extra.length ? `; ${extra.slice(0, 5).join("; ")}` : ""}`;
      }),
    ].join("\n  "),
  );
}, 300_000);

afterAll(async () => {
  for (const stop of stops.splice(0)) await stop();
  await instances?.close();
  if (hook) {
    hook.closeAllConnections();
    await new Promise<void>((resolve) => hook?.close(() => resolve()));
  }
});

describe(`every acknowledged message reaches every listener exactly once, in seq order (${onPostgres ? "PostgreSQL, two app instances" : "PGlite, one instance"})`, () => {
  const expectEvery = (l: Listener, inOrder = true) => {
    const v = verdict(l);
    const message = `${l.name} lost ${v.lost.length} of ${acknowledged.size} acknowledged messages${list(v.lost, 1000)}, ${v.steppedOver} of them below a seq it received; doubled ${v.doubled.length}; out of order ${v.outOfOrder.length}`;
    expect(
      {
        lost: v.lost,
        doubled: v.doubled,
        unknown: v.unknown,
        outOfOrder: inOrder ? v.outOfOrder : [],
        faults: l.faults,
      },
      message,
    ).toEqual({
      lost: [],
      doubled: [],
      unknown: [],
      outOfOrder: [],
      faults: [],
    });
  };

  it(`M-022 M-149 ${WRITERS} humans post ${WRITERS * PER_WRITER} messages concurrently over REST${onPostgres ? ", through instances A and B" : ""}: every post answers 201 with a seq of its own`, () => {
    expect(refused).toEqual([]);
    expect(acknowledged.size).toBe(WRITERS * PER_WRITER);
  });

  it("M-022 M-149 afterwards the log holds every acknowledged message for the listening agent, in seq order (what the live readers had to deliver)", () => {
    expect(reread).toEqual([...acknowledged.keys()].sort((x, y) => x - y));
  });

  it("B-146 B-151 B-152 B-144 /ws on instance A, resumed from its last cursor frame: every acknowledged message once, in seq order", () =>
    expectEvery(L.ws));

  it(`B-127 B-129 B-131 B-144 /updates long-poll on instance ${onPostgres ? "B" : "A"}, each answer's cursor into the next call: every acknowledged message once, in seq order`, () =>
    expectEvery(L.updates));

  // In order too: each agent's oldest pending delivery goes first (webhooks.ts), on every instance.
  it("B-162 B-163 the webhook receiver, every signature checked: every acknowledged message once, in seq order", () =>
    expectEvery(L.webhook));

  it("M-146 M-149 the dashboard's live.feed over SSE, tracked by seq: every acknowledged message once, in seq order", () =>
    expectEvery(L.sse));
});
