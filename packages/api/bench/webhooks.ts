// pnpm bench:webhooks — the hub's webhook deliveries beside a bare Node loop sending the same signed
// bodies to the same receiver, in one run. 100 agents with a webhook sit in one group chat (OPEN
// policy, so every human message wakes each of them: 004 §4), with a receiver on 127.0.0.1 in a
// worker thread (webhook-receiver.ts). Each round has three phases of 100 × N deliveries:
//   A. end to end: a human posts N messages through REST (startApiServer), the worker running; the
//      time runs from just before the first POST to the receiver's last request, so it holds the
//      hub's N writes (a 101-participant message each) as well as the deliveries;
//   D. the delivery phase (the headline): the worker held (hub.webhooks.pause()), the N messages
//      posted, then the worker resumed; the time runs from the resume to the last request. This is
//      what the bare loop does: send N × 100 bodies; the hub also claims, builds and signs them;
//   B. the bare loop (webhook-sides.ts): the bodies the receiver got in D, signed again with each
//      agent's secret (HMAC-SHA256, as the hub signs), POSTed by node:http exactly as the hub posts
//      (a connection per request), each agent's in order, at most MAITY_WEBHOOK_CONCURRENCY at once.
// Every phase is checked: every agent received every message exactly once, in seq order, with a
// good signature, and every delivery row is delivered after one attempt. Prints deliveries per
// second, the ratios, the hub's SQL statements per delivery (in A the writes' own taken out) and
// this process's CPU per delivery and how busy its main thread was (event-loop utilization).
//
// §9.2 caps a group chat at 12 participants; the bench seats the 89 others by SQL on purpose, to
// measure a fan-out of 100 per message (the delivery path never reads the cap).
//
// Engines: PGlite on a throwaway data folder, as the app runs it (BENCH_PGLITE_DIR=memory:// for
// the tests' in-memory PGlite); then PostgreSQL when DATABASE_URL=postgresql://… (a throwaway
// database beside it, dropped at the end). `--only=pglite|postgresql`. BENCH_MESSAGES (default 20),
// BENCH_ROUNDS (default 2); BENCH_STATEMENTS=1 lists the hub's statements of the run by text,
// BENCH_PROFILE=dir writes a CPU profile of each phase. Compare the ratios of one run, not absolute
// figures across runs.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance as nodePerformance } from "node:perf_hooks";
import { type Database, openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { type AgentCaller, createHub, type HumanCaller } from "@maity/hub";
import { readSettings } from "../src/config.ts";
import { startApiServer } from "../src/node.ts";
import { benchEngines } from "./engines.ts";
import { profiled } from "./profile.ts";
import { bareLoop, check, startReceiver } from "./webhook-sides.ts";

const AGENTS = 100;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** The hub's bound (MAITY_WEBHOOK_CONCURRENCY, its default unless set), the bare loop's too. */
const CONCURRENCY = readSettings({
  MAITY_WEBHOOK_CONCURRENCY: process.env.MAITY_WEBHOOK_CONCURRENCY,
}).webhookConcurrency;
const ADMIN_TOKEN = "bench-webhooks-admin-token";
const RUN_BUDGET_MS = 15 * 60_000;
const UNLIMITED = 1_000_000_000;

const log = (line: string) => process.stderr.write(`${line}\n`);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const fmt = (n: number, digits = 1) => n.toFixed(digits);
const elu = () => nodePerformance.eventLoopUtilization();
const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

const watchdog = setTimeout(() => {
  log(`bench:webhooks: still running after ${RUN_BUDGET_MS / 60_000} min, stopping`);
  process.exit(2);
}, RUN_BUDGET_MS);
watchdog.unref();

// ---- one engine ------------------------------------------------------------------------------------

interface Phase {
  deliveries: number;
  ms: number;
  /** The hub's: from the first POST to the last one's answer. */
  postsMs: number;
  cpuMs: number;
  /** The main thread's event-loop utilization over the phase (1: never idle). */
  busy: number;
  statements: number;
  problems: string[];
}
interface EngineResult {
  engine: string;
  /** A. end to end (the writes inside the span). */
  hub: Phase[];
  /** D. the delivery phase (the worker resumed after the writes). */
  held: Phase[];
  bare: Phase[];
  writeStatements: number;
  /** The bytes of the hub's bodies (what the bare loop sends again). */
  bodyBytes: number;
  load: number[];
  seconds: number;
}

async function runEngine(engine: "pglite" | "postgresql", pgUrl: string | undefined): Promise<EngineResult> {
  const t0 = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  let database: Database;
  // PGlite as the app runs it (`pnpm start`): on a data folder, a throwaway one here. In memory
  // (BENCH_PGLITE_DIR=memory://, what the tests use) PGlite grows its files by copying them.
  const ownDir = engine === "pglite" && !process.env.BENCH_PGLITE_DIR;
  const pgliteDir = ownDir ? mkdtempSync(path.join(tmpdir(), "maity-bench-webhooks-")) : process.env.BENCH_PGLITE_DIR;
  const removeDir = () => {
    if (ownDir && pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
  };
  if (engine === "pglite") database = await openDatabase({ dataDir: pgliteDir });
  else {
    process.env.TEST_DATABASE_URL = pgUrl;
    database = await freshDatabase();
  }
  const hub = createHub(database, {
    limits: { agent: UNLIMITED, updates: UNLIMITED, ws: UNLIMITED, preauth: UNLIMITED },
    webhooks: { allow: ["127.0.0.1"], concurrency: CONCURRENCY },
  });
  await hub.start();
  const api = await startApiServer(hub, { adminToken: ADMIN_TOKEN });
  const secrets = Array.from({ length: AGENTS }, (_, i) => `bench-secret-of-agent-${String(i).padStart(3, "0")}`);
  const receiver = startReceiver(secrets);
  const port = await receiver.listening;
  try {
    // Setup through the hub's services: a writer, a project, 100 agents with webhooks, one more without.
    await hub.admin.createHuman({ handle: "writer", name: "Writer", password: "bench-password" });
    await hub.admin.createProject({ owner: "writer", slug: "bench", name: "Bench" });
    const ref = { owner: "writer", slug: "bench" };
    const writer: HumanCaller = { kind: "human", id: "hum-writer", handle: "writer", name: "Writer" };
    const agents: AgentCaller[] = [];
    for (let i = 0; i <= AGENTS; i++) {
      const handle = `agent-${String(i).padStart(3, "0")}`;
      const agent = await hub.admin.createAgent({ owner: "writer", handle, description: `Bench agent ${i}.` });
      await hub.admin.addMember(ref, { member_id: agent.id });
      agents.push({ kind: "agent", id: agent.id, handle, ownerId: writer.id, instanceId: null });
    }
    const quiet = agents.pop() as AgentCaller; // no webhook: its direct conversation measures the write alone
    for (const [i, agent] of agents.entries())
      await hub.webhooks.set(agent, { url: `http://127.0.0.1:${port}/hook/${i}`, secret: secrets[i] as string });
    const { view } = await hub.groups.create(writer, ref, {
      title: "Bench",
      participants: agents.slice(0, 11).map((a) => a.id),
    });
    const [room] = await database.sql.query<{ id: string; head: number }>(
      "SELECT id, (SELECT coalesce(max(seq), 0)::int FROM events) AS head FROM conversations WHERE public_id = $1",
      [view.id],
    );
    if (!room) throw new Error("no group chat");
    await database.sql.query(
      `INSERT INTO participations (id, conversation_id, member_id, member_kind, joined_seq, read_marker_seq, project_id)
       SELECT 'bench-' || m, $1, m, 'agent', $2, $2, (SELECT project_id FROM conversations WHERE id = $1)
       FROM unnest($3::text[]) AS m`,
      [room.id, room.head, agents.slice(11).map((a) => a.id)],
    );
    await hub.groups.update(writer, ref, view.id, { reply_policy: "OPEN" });
    const token = (await hub.admin.mintToken({ member_id: writer.id })).token;
    const postMessage = async (conversation: string, body: string): Promise<number> => {
      const res = await fetch(`${api.url}/api/projects/writer/bench/conversations/${conversation}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ body }),
        signal: AbortSignal.timeout(10_000),
      });
      const answer = (await res.json()) as { seq: number };
      if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${JSON.stringify(answer)}`);
      return answer.seq;
    };
    let said = 0;
    const line = () => `Status update ${++said}: the nightly build finished; please check your part and report.`;
    log(`${engine}: ${AGENTS} agents with webhooks in one group chat (${view.id}), receiver on 127.0.0.1:${port}`);

    // Warm up (JIT, connections, plans), unrecorded.
    receiver.phase("warm-up");
    for (let i = 0; i < 3; i++) await postMessage(view.id, line());
    await receiver.until(3 * AGENTS);
    await hub.webhooks.idle();

    // The write's own statements (a message to an agent without a webhook: nothing is queued).
    let statements = 0;
    const texts = new Map<string, number>();
    const stop = database.observeQueries((text) => {
      statements += 1;
      if (process.env.BENCH_STATEMENTS) {
        const key = text.replace(/\s+/g, " ").slice(0, 110);
        texts.set(key, (texts.get(key) ?? 0) + 1);
      }
    });
    const before = statements;
    await postMessage(quiet.id, line());
    const writeStatements = statements - before;

    const result: EngineResult = {
      engine,
      hub: [],
      held: [],
      bare: [],
      writeStatements,
      bodyBytes: 0,
      load: [],
      seconds: 0,
    };
    /** The delivery rows of `seqs`: every one delivered after one attempt. */
    const rowProblems = async (seqs: number[]): Promise<string[]> => {
      const [rows] = await database.sql.query<{ delivered: number; retried: number }>(
        `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
                count(*) FILTER (WHERE attempts <> 1)::int AS retried
         FROM webhook_deliveries WHERE event_seq = ANY($1::int[])`,
        [seqs],
      );
      return rows?.delivered === MESSAGES * AGENTS && !rows.retried
        ? []
        : [`rows: ${JSON.stringify(rows)} of ${MESSAGES * AGENTS}`];
    };
    const posts = async (seqs: number[]) => {
      for (let i = 0; i < MESSAGES; i++) seqs.push(await postMessage(view.id, line()));
    };
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        // A. end to end: the writes and the deliveries, the worker running.
        receiver.phase(`hub ${round}`);
        await sleep(50);
        let startStatements = statements;
        let cpu = process.cpuUsage();
        let loop = elu();
        let start = now();
        const seqs: number[] = [];
        let postedAt = 0;
        const hubReport = await profiled(`${engine}-hub-${round}`, async () => {
          await posts(seqs);
          postedAt = now();
          const report = await receiver.until(MESSAGES * AGENTS);
          await hub.webhooks.idle();
          return report;
        });
        result.hub.push({
          deliveries: hubReport.requests,
          ms: hubReport.lastAt - start,
          postsMs: postedAt - start,
          cpuMs: cpuMs(cpu),
          busy: nodePerformance.eventLoopUtilization(loop).utilization,
          statements: statements - startStatements - MESSAGES * writeStatements,
          problems: [...check(hubReport, seqs, AGENTS), ...(await rowProblems(seqs))],
        });

        // D. the delivery phase: the messages written while the worker is held, then sent.
        hub.webhooks.pause();
        receiver.phase(`held ${round}`, true);
        const heldSeqs: number[] = [];
        await posts(heldSeqs);
        await sleep(50);
        startStatements = statements;
        cpu = process.cpuUsage();
        loop = elu();
        start = now();
        const heldReport = await profiled(`${engine}-held-${round}`, async () => {
          hub.webhooks.resume();
          const report = await receiver.until(MESSAGES * AGENTS);
          await hub.webhooks.idle();
          return report;
        });
        result.held.push({
          deliveries: heldReport.requests,
          ms: heldReport.lastAt - start,
          postsMs: 0,
          cpuMs: cpuMs(cpu),
          busy: nodePerformance.eventLoopUtilization(loop).utilization,
          statements: statements - startStatements,
          problems: [...check(heldReport, heldSeqs, AGENTS), ...(await rowProblems(heldSeqs))],
        });

        // B. the bare loop, the delivery phase's bodies.
        const bodies = await receiver.bodies();
        result.bodyBytes += bodies.buffer.byteLength;
        receiver.phase(`bare ${round}`);
        await sleep(50);
        const bareCpu = process.cpuUsage();
        const bareLoopStart = elu();
        const bareStart = now();
        const failures = await profiled(`${engine}-bare-${round}`, () => bareLoop(port, secrets, bodies, CONCURRENCY));
        const bareReport = await receiver.until(MESSAGES * AGENTS);
        const bareProblems = check(bareReport, heldSeqs, AGENTS);
        if (failures) bareProblems.push(`${failures} requests not answered 2xx`);
        result.bare.push({
          deliveries: bareReport.requests,
          ms: bareReport.lastAt - bareStart,
          postsMs: 0,
          cpuMs: cpuMs(bareCpu),
          busy: nodePerformance.eventLoopUtilization(bareLoopStart).utilization,
          statements: 0,
          problems: bareProblems,
        });
        const [h, d, b] = [result.hub, result.held, result.bare].map((p) => p.at(-1) as Phase) as [Phase, Phase, Phase];
        const perS = (p: Phase) => fmt((p.deliveries * 1000) / p.ms, 0);
        log(
          `  round ${round}: end to end ${perS(h)}/s (the ${MESSAGES} posts took ${fmt(h.postsMs, 0)} of ${fmt(h.ms, 0)} ms), ` +
            `delivery phase ${perS(d)}/s, bare ${perS(b)}/s; ${fmt(d.statements / d.deliveries, 3)} statements a delivery; ` +
            `${h.problems.length + d.problems.length + b.problems.length} problems`,
        );
      }
    } finally {
      stop();
    }
    if (process.env.BENCH_STATEMENTS)
      for (const [text, n] of [...texts].sort((a, b) => b[1] - a[1]).slice(0, 40))
        log(`${String(n).padStart(7)}  ${text}`);
    result.load = [loadBefore, loadavg()[0] ?? 0];
    result.seconds = (performance.now() - t0) / 1000;
    return result;
  } finally {
    await receiver.stop();
    await api.close();
    await hub.close();
    removeDir();
  }
}

// ---------------------------------------------------------------------------------------------------

const { engines, pgUrl } = benchEngines();
const results: EngineResult[] = [];
for (const engine of engines) results.push(await runEngine(engine, pgUrl));

const sum = (phases: Phase[], f: (p: Phase) => number) => phases.reduce((s, p) => s + f(p), 0);
const rate = (phases: Phase[]) => (sum(phases, (p) => p.deliveries) * 1000) / sum(phases, (p) => p.ms);
console.log(
  `\nbench:webhooks — ${AGENTS} webhook agents in one group chat, ${MESSAGES} messages a round (${MESSAGES * AGENTS} deliveries), ` +
    `${ROUNDS} rounds; at most ${CONCURRENCY} requests in flight (MAITY_WEBHOOK_CONCURRENCY); receiver on 127.0.0.1 in a worker thread`,
);
let failed = false;
for (const r of results) {
  const deliveries = (phases: Phase[]) => sum(phases, (p) => p.deliveries);
  console.log(`\n${r.engine}:`);
  console.log(
    "side                 deliveries/s   rounds            CPU ms/delivery   main thread busy   SQL statements/delivery",
  );
  for (const [name, phases] of [
    ["hub, delivery phase", r.held],
    ["hub, end to end", r.hub],
    ["bare", r.bare],
  ] as const) {
    const rounds = phases.map((p) => fmt((p.deliveries * 1000) / p.ms, 0)).join(", ");
    const statements = phases === r.bare ? "–" : fmt(sum(phases, (p) => p.statements) / deliveries(phases), 3);
    const cpu = fmt(sum(phases, (p) => p.cpuMs) / deliveries(phases), 3);
    const busy = `${fmt((100 * sum(phases, (p) => p.busy * p.ms)) / sum(phases, (p) => p.ms), 0)} %`;
    console.log(
      `${name.padEnd(19)}  ${fmt(rate(phases), 0).padStart(12)}   ${rounds.padEnd(16)}  ${cpu.padStart(15)}   ` +
        `${busy.padStart(16)}   ${statements}`,
    );
  }
  const ratio = (phases: Phase[]) =>
    `${fmt((100 * rate(phases)) / rate(r.bare))} % (rounds ${phases
      .map((p, i) => {
        const b = r.bare[i] as Phase;
        return `${fmt(((p.deliveries / p.ms) * 100) / (b.deliveries / b.ms))} %`;
      })
      .join(", ")})`;
  console.log(`delivery phase ÷ bare: ${ratio(r.held)}  <- the headline`);
  console.log(
    `end to end ÷ bare: ${ratio(r.hub)}; from the first POST (${r.writeStatements} statements each, not counted above) ` +
      `to the last receipt; bodies of ${fmt(r.bodyBytes / deliveries(r.bare) / 1024)} kB on average`,
  );
  const problems = [...r.hub, ...r.held, ...r.bare].flatMap((p) => p.problems);
  console.log(
    problems.length
      ? `check FAILED: ${problems.slice(0, 5).join("; ")}`
      : `check: every agent received every message exactly once, in seq order, signed, every row delivered (${ROUNDS} rounds)`,
  );
  if (problems.length) failed = true;
  console.log(
    `${r.seconds.toFixed(0)} s; load average ${r.load.map((l) => l.toFixed(1)).join(" → ")} on ${cpus().length} cores`,
  );
}
if (failed) process.exitCode = 1;
