// pnpm bench:send — what one chat message costs the hub, beside the physical limit. The same
// `POST /api/projects/{owner}/{slug}/conversations/{id}/messages {body}` into a 12-participant
// group chat (6 humans, 6 agents), answered by
//   A. the hub: startApiServer on 127.0.0.1 (REST → tRPC caller → messages.write → Prisma), and
//   B. the limit: a bare node:http server on 127.0.0.1 doing the same durable work by hand-written
//      SQL on the SAME database and driver, without Prisma (statement by statement below).
// Rounds alternate A, B, A, B… in one run, each round: 100 sequential posts to A, then to B
// (latency p50/p99 at concurrency 1), then 200 posts by 8 clients to A, then to B (throughput at
// concurrency 8: each client keeps one request in flight). Prints a table per engine: statements
// per message of each side, latency, throughput, CPU of this process per message, and the ratios
// hub/limit. The clients are node:http with keep-alive, the same for both sides.
//
// Engines: PGlite in memory always; then PostgreSQL when DATABASE_URL=postgresql://… (a throwaway
// database is created beside it and dropped at the end). `--only=pglite` / `--only=postgresql`.
// Everything (both servers and the clients) shares this process and the machine's cores: compare
// the ratios of one run, not absolute figures across runs. BENCH_PROFILE=dir writes a CPU profile of
// each side's sequential posts (after the warm-up, outside the timed rounds).
import { Agent, request } from "node:http";
import { cpus, loadavg } from "node:os";
import { type Database, openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { createHub } from "@maity/hub";
import { startApiServer } from "../src/node.ts";
import { log, percentile } from "./clients.ts";
import { benchEngines } from "./engines.ts";
import { profileDir, profiled } from "./profile.ts";
import { type Sql, startLimitServer } from "./send-limit.ts";

// The limit takes the hub's own gap-free append lock (packages/hub/src/delivery/append.ts): the same
// durable work includes serialising appends, so commit order is seq order.

const ROUNDS = 4;
/** Per round and side: sequential posts (latency), then posts by 8 clients at once (throughput). */
const SEQUENTIAL = 100;
const CONCURRENT = 200;
const CONCURRENCY = 8;
const WARMUP = 40;
/** BENCH_PROFILE=dir: sequential posts to each side under the profiler. */
const PROFILED = 400;
const REQUEST_TIMEOUT_MS = 10_000;
/** The whole run stops by itself after this, whatever happens. */
const RUN_BUDGET_MS = 10 * 60_000;

const HUMANS = ["ann", "ben", "cai", "dee", "eli", "fay"];
const AGENTS = ["scout", "tester", "planner", "coder", "critic", "scribe"];
const ADMIN_TOKEN = "bench-send-admin-token";

const median = (xs: number[]) => percentile(xs, 0.5);
const fmt = (n: number, digits = 1) => n.toFixed(digits);
/** This process's CPU time since `start`, in ms. */
const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

const watchdog = setTimeout(() => {
  log(
    `bench:send: still running after ${RUN_BUDGET_MS / 60_000} min, stopping (a PostgreSQL throwaway database may be left behind)`,
  );
  process.exit(2);
}, RUN_BUDGET_MS);
watchdog.unref();

// ---------------------------------------------------------------------------------------------
// The clients: the same fetch for both sides.
// ---------------------------------------------------------------------------------------------

// node:http with a keep-alive agent, not fetch: undici's fetch spends ~0.6 ms more CPU a request
// here, which would be a fifth of the limit's cost and say nothing about either server.
const agent = new Agent({ keepAlive: true, maxSockets: 4 * CONCURRENCY });
let posted = 0;
/** One POST …/messages; its latency in ms (to the end of the 201's body). */
function post(url: string, token: string): Promise<number> {
  posted += 1;
  const body = JSON.stringify({
    body: `Status update ${posted}: the nightly build finished and the numbers look fine.`,
  });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const ms = performance.now() - t0;
          if (res.statusCode === 201) resolve(ms);
          else
            reject(
              new Error(
                `POST ${url} answered ${res.statusCode}: ${Buffer.concat(chunks).toString("utf8").slice(0, 300)}`,
              ),
            );
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** `count` posts by `clients` clients, each with one request in flight; the latencies and the wall time. */
async function burst(
  url: string,
  tokens: string[],
  count: number,
  clients: number,
): Promise<{ latencies: number[]; ms: number }> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const token = tokens[c % tokens.length] as string;
      while (next < count) {
        next += 1;
        latencies.push(await post(url, token));
      }
    }),
  );
  return { latencies, ms: performance.now() - t0 };
}

// ---------------------------------------------------------------------------------------------
// One engine: set up through the hub's own routes, then the alternating rounds.
// ---------------------------------------------------------------------------------------------

interface Side {
  name: "hub" | "limit";
  sequential: number[];
  concurrent: number[];
  /** Messages/s of each round at concurrency 8. */
  rounds: number[];
  /** The c1 p50 of each round. */
  roundP50: number[];
  messages: number;
  concurrentMs: number;
  statements: number;
  /** CPU time of this process (servers, clients; on PGlite the database too), in ms. */
  cpuMs: number;
}
interface EngineResult {
  engine: string;
  where: string;
  hub: Side;
  limit: Side;
  /** The statements Prisma logged for one message of the hub. */
  hubStatements: string[];
  /** Whether the hub's BEGIN is missing from Prisma's log (then counted by the bench). */
  beginUnlogged: boolean;
  /** The hub's NOTIFYs for one message (PostgreSQL: the bus, outside Prisma). */
  notifies: number;
  /** The machine's 1-minute load average at the start and the end of the engine's run. */
  load: number[];
  seconds: number;
}

async function runEngine(engine: "pglite" | "postgresql", pgUrl: string | undefined): Promise<EngineResult> {
  const t0 = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  let database: Database;
  let limitSql: Sql;
  let closeLimitDb = async () => {};
  let where: string;
  if (engine === "pglite") {
    database = await openDatabase({ dataDir: "memory://" });
    limitSql = database.sql; // the same PGlite instance, its own query/transaction
    where = "PGlite in memory (memory://), one instance shared by both sides";
  } else {
    // freshDatabase creates (and on close drops) a throwaway database beside TEST_DATABASE_URL.
    process.env.TEST_DATABASE_URL = pgUrl;
    const fresh = await freshDatabase();
    database = fresh;
    // The limit's own pg.Pool (max 10, like the hub's) on the same database; its Prisma client is never used.
    const limitDb = await openDatabase({ databaseUrl: fresh.url ?? "", migrate: false });
    limitSql = limitDb.sql;
    closeLimitDb = () => limitDb.close();
    where = `PostgreSQL ${new URL(fresh.url ?? "").host}, throwaway database, a pool of 10 a side`;
  }
  // PostgreSQL: the hub NOTIFYs every bus message through its pool, outside Prisma — counted here.
  let notifies = 0;
  if (database.pubsub) {
    const pubsub = database.pubsub;
    const notify = pubsub.notify.bind(pubsub);
    pubsub.notify = (channel, payload) => {
      notifies += 1;
      return notify(channel, payload);
    };
  }
  const hub = createHub(database);
  await hub.start();
  const api = await startApiServer(hub, { adminToken: ADMIN_TOKEN });
  const limit = await startLimitServer(limitSql);
  try {
    log(`${engine}: hub at ${api.url}, limit at ${limit.url}`);
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(`${api.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    // Setup through the operator's routes (MAITY_ADMIN_TOKEN) and the writer's REST route.
    const [owner] = HUMANS as [string];
    for (const handle of HUMANS)
      await call("POST", "/api/admin/humans", ADMIN_TOKEN, {
        handle,
        name: handle.toUpperCase(),
        password: "bench-password",
      });
    await call("POST", "/api/admin/projects", ADMIN_TOKEN, { owner, slug: "bench", name: "Bench" });
    const members: string[] = HUMANS.slice(1).map((h) => `hum-${h}`);
    for (const [i, handle] of AGENTS.entries()) {
      const agent = await call("POST", "/api/admin/agents", ADMIN_TOKEN, {
        owner: HUMANS[i],
        handle,
        description: `The ${handle} of the bench.`,
      });
      members.push(agent.id);
    }
    for (const id of members)
      await call("POST", `/api/admin/projects/${owner}/bench/members`, ADMIN_TOKEN, { member_id: id });
    const tokens: string[] = [];
    for (const handle of HUMANS)
      tokens.push((await call("POST", "/api/admin/tokens", ADMIN_TOKEN, { member_id: `hum-${handle}` })).token);
    const chat = await call("POST", `/api/projects/${owner}/bench/conversations`, tokens[0] as string, {
      title: "Bench",
      participants: members,
    });
    const participants = (chat.participants as unknown[]).length;
    if (participants !== 12) throw new Error(`the group chat has ${participants} participants, not 12`);
    const path = `/api/projects/${owner}/bench/conversations/${chat.id}/messages`;
    const urls = { hub: `${api.url}${path}`, limit: `${limit.url}${path}` };
    log(
      `${engine}: group chat ${chat.id} with ${participants} participants (${HUMANS.length} humans, ${AGENTS.length} agents); ${tokens.length} writers`,
    );

    // Warm up both sides (JIT, connections, Prisma's query plans), unrecorded.
    for (const side of ["hub", "limit"] as const) {
      await burst(urls[side], tokens, WARMUP, 1);
      await burst(urls[side], tokens, WARMUP, CONCURRENCY);
    }
    // BENCH_PROFILE=dir: a CPU profile of this process for PROFILED sequential posts to each side
    // (`<engine>-hub.cpuprofile`, `<engine>-limit.cpuprofile`), taken apart from the timed rounds.
    if (profileDir)
      for (const side of ["hub", "limit"] as const)
        await profiled(`${engine}-${side}`, () => burst(urls[side], tokens, PROFILED, 1));
    // The hub's statements for one message, as Prisma sends them.
    const hubStatements: string[] = [];
    const stopOne = database.observeQueries((sql) => hubStatements.push(sql));
    const notifiesBefore = notifies;
    await post(urls.hub, tokens[0] as string);
    stopOne();
    const notifiesPerMessage = notifies - notifiesBefore;

    const sides: Record<"hub" | "limit", Side> = {
      hub: {
        name: "hub",
        sequential: [],
        concurrent: [],
        rounds: [],
        roundP50: [],
        messages: 0,
        concurrentMs: 0,
        statements: 0,
        cpuMs: 0,
      },
      limit: {
        name: "limit",
        sequential: [],
        concurrent: [],
        rounds: [],
        roundP50: [],
        messages: 0,
        concurrentMs: 0,
        statements: 0,
        cpuMs: 0,
      },
    };
    // Prisma logs a transaction's COMMIT ("-- Implicit "COMMIT" query…") but not always its BEGIN:
    // the hub's count adds the BEGIN it did not see, so both sides count the same round trips.
    const beginUnlogged = hubStatements.some((s) => /COMMIT/.test(s)) && !hubStatements.some((s) => /BEGIN/.test(s));
    let hubCount = 0;
    const stopCount = database.observeQueries((sql) => {
      hubCount += beginUnlogged && /COMMIT/.test(sql) ? 2 : 1;
    });
    const counted = (side: Side) => (side.name === "hub" ? hubCount + notifies : limit.statements());
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        // Each phase runs on the hub, then on the limit, so the two figures of a pair are taken
        // seconds apart, under the same load of the machine.
        for (const side of [sides.hub, sides.limit]) {
          const before = counted(side);
          const cpu = process.cpuUsage();
          const { latencies } = await burst(urls[side.name], tokens.slice(0, 1), SEQUENTIAL, 1);
          side.cpuMs += cpuMs(cpu);
          side.statements += counted(side) - before;
          side.messages += SEQUENTIAL;
          side.sequential.push(...latencies);
          side.roundP50.push(median(latencies));
        }
        for (const side of [sides.hub, sides.limit]) {
          const before = counted(side);
          const cpu = process.cpuUsage();
          const { latencies, ms } = await burst(urls[side.name], tokens, CONCURRENT, CONCURRENCY);
          side.cpuMs += cpuMs(cpu);
          side.statements += counted(side) - before;
          side.messages += CONCURRENT;
          side.concurrent.push(...latencies);
          side.concurrentMs += ms;
          side.rounds.push((CONCURRENT * 1000) / ms);
        }
        log(
          `  round ${round}: c1 p50 hub ${fmt(sides.hub.roundP50.at(-1) ?? 0, 2)} ms, limit ${fmt(sides.limit.roundP50.at(-1) ?? 0, 2)} ms; ` +
            `c${CONCURRENCY} hub ${fmt(sides.hub.rounds.at(-1) ?? 0, 0)} msg/s, limit ${fmt(sides.limit.rounds.at(-1) ?? 0, 0)} msg/s`,
        );
      }
    } finally {
      stopCount();
    }

    // Both sides wrote the same rows: every message has 12 audience rows and 6 verdicts, none waking.
    const [check] = await database.sql.query<{ messages: number; odd: number; waking: number }>(
      `SELECT count(*)::int AS messages,
        count(*) FILTER (WHERE (SELECT count(*) FROM event_audience a WHERE a.event_seq = e.seq) <> 12
                            OR (SELECT count(*) FROM routing_verdicts v WHERE v.event_seq = e.seq) <> 6)::int AS odd,
        (SELECT count(*) FROM routing_verdicts WHERE should_respond)::int AS waking
       FROM events e WHERE e.kind = 'message'`,
    );
    if (check?.odd !== 0 || check.waking !== 0) throw new Error(`rows differ: ${JSON.stringify(check)}`);
    log(`${engine}: ${check.messages} messages, each with 12 audience rows and 6 verdicts (not_addressed)`);
    return {
      engine,
      where,
      hub: sides.hub,
      limit: sides.limit,
      hubStatements,
      beginUnlogged,
      notifies: notifiesPerMessage,
      load: [loadBefore, loadavg()[0] ?? 0],
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    await limit.close();
    await api.close();
    await closeLimitDb();
    await hub.close();
  }
}

// ---------------------------------------------------------------------------------------------

const { engines, pgUrl } = benchEngines();
const started = performance.now();
const results: EngineResult[] = [];
for (const engine of engines) results.push(await runEngine(engine, pgUrl));

const throughput = (s: Side) => (CONCURRENT * ROUNDS * 1000) / s.concurrentMs;
console.log(
  `\nbench:send — POST …/messages into a 12-participant group chat (6 humans, 6 agents); ${ROUNDS} rounds, each: ` +
    `${SEQUENTIAL} sequential posts to the hub, then to the limit; ${CONCURRENT} posts by ${CONCURRENCY} clients to the hub, then to the limit`,
);
for (const r of results) {
  console.log(`\n${r.engine}: ${r.where}`);
  console.log("side    statements/msg   c1 p50 ms   c1 p99 ms   c8 msg/s   c8 p50 ms   c8 p99 ms   CPU ms/msg");
  for (const s of [r.hub, r.limit]) {
    const perMessage = s.statements / s.messages;
    console.log(
      `${s.name.padEnd(6)}  ${fmt(perMessage).padStart(14)}  ${fmt(median(s.sequential), 2).padStart(10)}  ${fmt(percentile(s.sequential, 0.99), 2).padStart(10)}  ${fmt(throughput(s), 0).padStart(9)}  ${fmt(median(s.concurrent), 2).padStart(10)}  ${fmt(percentile(s.concurrent, 0.99), 2).padStart(10)}  ${fmt(s.cpuMs / s.messages, 2).padStart(11)}`,
    );
  }
  const perRound = r.hub.rounds.map((h, i) => h / (r.limit.rounds[i] as number));
  const pct = (x: number) => `${fmt(100 * x)} %`;
  const cpuPerMessage = (s: Side) => s.cpuMs / s.messages;
  console.log(
    `hub/limit throughput at c${CONCURRENCY} (hub ÷ limit): ${pct(throughput(r.hub) / throughput(r.limit))} (rounds ${pct(Math.min(...perRound))}–${pct(Math.max(...perRound))})`,
  );
  console.log(
    `hub/limit latency at c1 (limit ÷ hub): p50 ${pct(median(r.limit.sequential) / median(r.hub.sequential))}, p99 ${pct(percentile(r.limit.sequential, 0.99) / percentile(r.hub.sequential, 0.99))}`,
  );
  console.log(
    `hub/limit CPU of this process a message (limit ÷ hub): ${pct(cpuPerMessage(r.limit) / cpuPerMessage(r.hub))}${r.engine === "postgresql" ? " (PostgreSQL's own CPU not included)" : " (PGlite included)"}`,
  );
  console.log(
    `statements per message: hub ${r.hubStatements.length} observed${r.beginUnlogged ? " + its unlogged BEGIN" : ""}${r.notifies ? ` + ${r.notifies} pg_notify (the bus, outside Prisma)` : ""}; ` +
      "limit 2 before the transaction + BEGIN, 6, COMMIT",
  );
  console.log(
    `${r.seconds.toFixed(0)} s; load average ${r.load.map((l) => l.toFixed(1)).join(" → ")} on ${cpus().length} cores`,
  );
  log(`${r.engine}: the hub's statements for one message, as Prisma logs them:`);
  for (const [i, sql] of r.hubStatements.entries())
    log(`  ${String(i + 1).padStart(2)}. ${sql.replace(/\s+/g, " ").slice(0, 160)}`);
}
agent.destroy();
log(`done in ${fmt((performance.now() - started) / 1000)} s`);
