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
// the ratios of one run, not absolute figures across runs.
import { Agent, createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { eventId } from "@maity/domain";
import { type Database, openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { APPEND_LOCK_KEY, createHub } from "@maity/hub";
import { startApiServer } from "../src/node.ts";

// The limit takes the hub's own gap-free append lock (packages/hub/src/delivery/append.ts): the same
// durable work includes serialising appends, so commit order is seq order.

const ROUNDS = 4;
/** Per round and side: sequential posts (latency), then posts by 8 clients at once (throughput). */
const SEQUENTIAL = 100;
const CONCURRENT = 200;
const CONCURRENCY = 8;
const WARMUP = 40;
const REQUEST_TIMEOUT_MS = 10_000;
/** The whole run stops by itself after this, whatever happens. */
const RUN_BUDGET_MS = 10 * 60_000;

const HUMANS = ["ann", "ben", "cai", "dee", "eli", "fay"];
const AGENTS = ["scout", "tester", "planner", "coder", "critic", "scribe"];
const ADMIN_TOKEN = "bench-send-admin-token";

const log = (line: string) => process.stderr.write(`${line}\n`);
const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] as number;
};
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
// B. The limit: the same POST, by hand-written SQL on the hub's driver.
// ---------------------------------------------------------------------------------------------

type Sql = Database["sql"];
type Participant = { id: string; kind: "human" | "agent" };

/** 1. The bearer token by its SHA-256 (access_tokens → humans). */
const AUTH_SQL = `SELECT h.id FROM access_tokens t JOIN humans h ON h.id = t.human_id
 WHERE t.hash = $1 AND t.kind = 'human' AND t.revoked_at IS NULL`;
/** 2. The conversation by its route (the writer an active project member) and its current participants. */
const ROOM_SQL = `SELECT c.id, c.public_id, c.kind, c.project_id, c.closed_at IS NOT NULL AS closed,
  COALESCE((SELECT json_agg(json_build_object('id', p.member_id, 'kind', p.member_kind) ORDER BY p.joined_at, p.id)
            FROM participations p WHERE p.conversation_id = c.id AND p.left_at IS NULL), '[]') AS participants
 FROM bays b JOIN projects pr ON pr.bay_id = b.id JOIN conversations c ON c.project_id = pr.id
 WHERE b.handle = $1 AND pr.slug = $2 AND c.public_id = $3
   AND EXISTS (SELECT 1 FROM memberships m WHERE m.project_id = pr.id AND m.member_id = $4 AND m.status = 'active')`;
/** 3–8, one transaction: the append lock, the event, its audience, the verdicts, the head, the marker and counters. */
const LOCK_SQL = "SELECT pg_advisory_xact_lock($1)";
const EVENT_SQL = `INSERT INTO events (kind, type, project_id, conversation_id, from_id, to_id, body, mentions, sent_at)
 VALUES ('message', 'chat', $1, $2, $3, $4, $5, '[]', $6::timestamptz AT TIME ZONE 'UTC') RETURNING seq`;
const AUDIENCE_SQL = "INSERT INTO event_audience (event_seq, member_id) SELECT $1, unnest($2::text[])";
const VERDICTS_SQL =
  "INSERT INTO routing_verdicts (event_seq, agent_id, should_respond, reason) SELECT $1, unnest($2::text[]), false, 'not_addressed'";
const HEAD_SQL = `UPDATE conversations SET last_seq = $2, last_message_at = $3::timestamptz AT TIME ZONE 'UTC'
 WHERE id = $1 AND (last_seq IS NULL OR last_seq < $2)`;
/**
 * The writer's marker and every participant's counters (§9.2 unread, mentions_unread), as the hub's
 * write keeps them: one UPDATE over the chat's participations (the bench's bodies mention nobody).
 */
const MARKER_SQL = `UPDATE participations SET
   read_marker_seq = CASE WHEN member_id = $2 THEN GREATEST(read_marker_seq, $3) ELSE read_marker_seq END,
   unread = CASE WHEN member_id = $2 THEN 0 ELSE unread + 1 END,
   mentions_unread = CASE WHEN member_id = $2 THEN 0 ELSE mentions_unread END
 WHERE conversation_id = $1 AND left_at IS NULL`;

const ROUTE = /^\/api\/projects\/([^/]+)\/([^/]+)\/conversations\/([^/]+)\/messages$/;

/** The limit server; `statements` counts what it sends (BEGIN and COMMIT included). */
async function startLimitServer(sql: Sql): Promise<{ url: string; statements: () => number; close(): Promise<void> }> {
  let statements = 0;
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  };
  const fail = (res: ServerResponse, status: number, code: string) =>
    answer(res, status, { error: { code, message: code, details: {} } });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const route = req.method === "POST" ? ROUTE.exec(new URL(req.url ?? "/", "http://127.0.0.1").pathname) : null;
    if (!route) return fail(res, 404, "not_found");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let input: { body?: unknown };
    try {
      input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return fail(res, 400, "invalid");
    }
    const body = input?.body;
    if (typeof body !== "string" || !body.trim() || body.length > 20_000) return fail(res, 400, "invalid");
    const token = /^Bearer\s+(mty_\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!token) return fail(res, 401, "unauthenticated");
    statements += 1;
    const [writer] = await sql.query<{ id: string }>(AUTH_SQL, [createHash("sha256").update(token).digest("hex")]);
    if (!writer) return fail(res, 401, "unauthenticated");
    const [owner, slug, publicId] = route.slice(1).map(decodeURIComponent) as [string, string, string];
    statements += 1;
    const [room] = await sql.query<{
      id: string;
      public_id: string;
      kind: string;
      project_id: string;
      closed: boolean;
      participants: Participant[];
    }>(ROOM_SQL, [owner, slug, publicId, writer.id]);
    if (!room?.participants.some((p) => p.id === writer.id)) return fail(res, 404, "not_found");
    if (room.kind !== "group") return fail(res, 400, "invalid"); // the bench writes in a group chat only
    if (room.closed) return fail(res, 409, "conversation_closed");
    const sentAt = new Date();
    const at = sentAt.toISOString();
    const seq = await sql.transaction(async (tx) => {
      statements += 8; // BEGIN, six statements, COMMIT
      await tx.query(LOCK_SQL, [APPEND_LOCK_KEY]);
      const [event] = await tx.query<{ seq: number }>(EVENT_SQL, [
        room.project_id,
        room.id,
        writer.id,
        room.public_id,
        body,
        at,
      ]);
      const s = (event as { seq: number }).seq;
      await tx.query(AUDIENCE_SQL, [s, room.participants.map((p) => p.id)]);
      await tx.query(VERDICTS_SQL, [s, room.participants.filter((p) => p.kind === "agent").map((p) => p.id)]);
      await tx.query(HEAD_SQL, [room.id, s, at]);
      await tx.query(MARKER_SQL, [room.id, writer.id, s]);
      return s;
    });
    answer(res, 201, {
      id: eventId(seq),
      seq,
      conversation_id: room.public_id,
      from: writer.id,
      to: room.public_id,
      body,
      sent_at: at,
      mentions: [],
      attachments: [],
      from_instance: null,
      to_instance: null,
      redacted: false,
      redaction: null,
    });
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`limit server: ${(error as Error).message}`);
      if (!res.headersSent) fail(res, 500, "internal");
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    statements: () => statements,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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

const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
const pgUrl =
  process.env.DATABASE_URL && /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL)
    ? process.env.DATABASE_URL
    : undefined;
const engines = (["pglite", "postgresql"] as const).filter((e) => (only ? e === only : e === "pglite" || pgUrl));
if (engines.includes("postgresql") && !pgUrl) throw new Error("--only=postgresql needs DATABASE_URL=postgresql://…");
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
