// pnpm bench:summary — what the rolling summary costs (004 §6, DESIGN §4b), in one run per engine:
// 1. the extractive update of 500 new messages: the rules alone (pure), and the whole regeneration
//    as the hub runs it in the background (read the 500 with their senders, the rules, the
//    citations checked, the compare-and-swap write); target p95 < 200 ms on these 2 cores;
// 2. GET /api/agent-api/conversations/:id/summary while the provider HANGS (a local server that
//    never answers: a regeneration is in flight the whole time) beside a plain GET …/messages of the
//    same chat (50 newest), taken alternately so both see the same seconds; target: within 2×;
// 3. how the summary read grows with the chat: the same read at 500 and at ROUNDS × 500 messages.
// PGlite (a throwaway data folder, as `pnpm start` runs it), then PostgreSQL when DATABASE_URL names
// one (`--only=pglite|postgresql`). BENCH_ROUNDS (default 20) rounds of 500 messages.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "@maity/db";
import { type SummaryMessage, extractiveSummary } from "@maity/domain";
import { createHub, type HumanCaller } from "@maity/hub";
import { handleRest } from "../src/rest/index.ts";
import { summaryStub } from "../test/summaryStub.ts";
import { benchEngines } from "./engines.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BATCH = 500;
const READS = Number(process.env.BENCH_READS ?? 200);
const ADMIN = "bench-admin-token";

/** A working chat's lines: decisions, tasks, questions, facts and talk, varied by i. */
const TOPICS = ["checkout", "billing page", "search index", "release notes", "staging deploy", "login flow", "docs"];
function line(i: number): string {
  const t = TOPICS[i % TOPICS.length];
  switch (i % 9) {
    case 0:
      return `We decided to move the ${t} work to sprint ${Math.floor(i / 9)}.`;
    case 1:
      return `@Ana will review the ${t} changes before Friday.`;
    case 2:
      return `Does anyone know why the ${t} tests are flaky on CI?`;
    case 3:
      return `The ${t} p95 went from ${200 + (i % 50)} ms to ${150 + (i % 40)} ms after the cache change.`;
    case 4:
      return `I'll pair with Ben on the ${t} tomorrow morning. It should not take long.`;
    case 5:
      return `Looks good to me, thanks for the quick turnaround on the ${t}.`;
    case 6:
      return `The ${t} dashboard is at https://grafana.example.org/d/${i} if you want to look.`;
    case 7:
      return `Done, the ${t} fix is merged and deployed to staging.`;
    default:
      return `Let's keep the ${t} scope small this week and revisit it on Monday.`;
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;
const row = (label: string, xs: number[], base?: number) =>
  `  ${label.padEnd(58)}${pct(xs, 0.5).toFixed(2).padStart(9)}${pct(xs, 0.95).toFixed(2).padStart(9)}${
    base === undefined ? "" : `×${(pct(xs, 0.5) / base).toFixed(2)}`.padStart(9)
  }`;

async function run(engine: "pglite" | "postgresql", pgUrl: string | undefined) {
  const dir = engine === "pglite" ? mkdtempSync(path.join(tmpdir(), "maity-bench-summary-")) : null;
  const stub = await summaryStub("ok");
  const database = await openDatabase(dir ? { dataDir: dir } : { databaseUrl: pgUrl as string });
  const hub = createHub(database, {
    limits: { agent: 1_000_000, updates: 1_000_000 },
    pingRate: { pings: 1_000_000, windowSeconds: 1 },
    // The model: a local stub that answers, then hangs (the regeneration stays in flight: 60 s timeout).
    summary: { model: { url: stub.url, model: "bench", timeoutMs: 60_000 }, log: () => {} },
  });
  const rules = createHub(database, { limits: { agent: 1_000_000 }, summary: { claimMs: 0 } });
  const call = async (method: string, route: string, token: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const res = await handleRest(
      hub,
      new Request(`http://127.0.0.1${route}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { adminToken: ADMIN },
    );
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  try {
    const suffix = Date.now().toString(36);
    const owner = `bench${suffix}`;
    await hub.admin.createHuman({ handle: owner, name: "Bench", password: "bench-password" });
    await hub.admin.createHuman({ handle: `ana${suffix}`, name: "Ana", password: "bench-password" });
    const me: HumanCaller = { kind: "human", id: `hum-${owner}`, handle: owner, name: "Bench" };
    const ref = { owner, slug: "summary" };
    await hub.admin.createProject({ ...ref, name: "Summary" });
    await hub.admin.addMember(ref, { member_id: `hum-ana${suffix}` });
    const agent = await hub.admin.createAgent({ owner, handle: `reader-${suffix}`, description: "Reads." });
    await hub.admin.addMember(ref, { member_id: agent.id });
    const token = (await hub.admin.mintToken({ member_id: agent.id })).token;
    const people = [
      (await hub.admin.mintToken({ member_id: me.id })).token,
      (await hub.admin.mintToken({ member_id: `hum-ana${suffix}` })).token,
    ];
    const chat = (
      await hub.groups.create(me, ref, { title: "Bench room", participants: [agent.id, `hum-ana${suffix}`] })
    ).view;
    const key = (await hub.db.conversation.findFirstOrThrow({ where: { publicId: chat.id }, select: { id: true } })).id;
    const P = `/api/projects/${owner}/summary/conversations/${chat.id}/messages`;
    let written = 0;
    const post = async (n: number) => {
      for (let i = 0; i < n; i++, written++)
        await call("POST", P, people[written % 2] as string, { body: line(written) });
    };
    const A = `/api/agent-api/conversations/${key}`;
    const timed = async (route: string) => {
      const t = performance.now();
      await call("GET", route, token);
      return performance.now() - t;
    };

    // The provider's record first (it answers), then it hangs for the rest of the run: every summary
    // read below finds a regeneration in flight, as when a model endpoint stops answering.
    await post(BATCH);
    await call("GET", `${A}/summary`, token);
    await hub.summaries.records.settle();
    const answered = stub.requests.length;
    stub.mode = "hang";
    const readsPlain: number[] = [];
    const reads = { small: [] as number[], large: [] as number[], largePlain: [] as number[] };
    let stale = 0;
    const readBoth = async (into: number[], plain: number[]) => {
      await post(25);
      await call("GET", `${A}/summary`, token);
      // The regeneration this read started is at the provider (and hangs there) before anything is timed.
      for (let i = 0; i < 500 && stub.requests.length === answered; i++) await new Promise((r) => setTimeout(r, 20));
      if (stub.requests.length === answered) throw new Error("the hanging provider was never called");
      for (let i = 0; i < READS; i++) {
        into.push(await timed(`${A}/summary`));
        const m = await timed(`${A}/messages`);
        plain.push(m);
      }
      if ((await call("GET", `${A}/summary`, token)).status === "stale") stale += 1;
    };
    await readBoth(reads.small, readsPlain);
    // `rules` (the built-in generator on the same database) takes the chat over: claimMs 0 lets it
    // past the hanging regeneration's claim, whose late write the version then refuses.
    await rules.summaries.records.regenerate(key);

    // 1. The extractive update of 500 new messages: the hub's whole job, and the rules alone on them.
    const regen: number[] = [];
    const pure: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const state = await rules.summaries.records.state(key);
      await post(BATCH);
      const rows = await database.sql.query<{ seq: number; body: string; sent_at: Date | string }>(
        "SELECT seq, body, sent_at FROM events WHERE conversation_id = $1 AND kind = 'message' AND seq > $2 " +
          "ORDER BY seq LIMIT $3",
        [key, state.throughSeq, BATCH],
      );
      const t = performance.now();
      await rules.summaries.records.regenerate(key);
      regen.push(performance.now() - t);
      const messages: SummaryMessage[] = rows.map((r, i) => ({
        id: `evt-${r.seq}`,
        seq: Number(r.seq),
        senderName: i % 2 ? "Ana" : "Bench",
        senderHandle: i % 2 ? "ana" : "bench",
        text: r.body,
        createdAt: new Date(r.sent_at).toISOString(),
        replyToId: null,
      }));
      if (messages.length !== BATCH) throw new Error(`round ${round}: ${messages.length} messages, not ${BATCH}`);
      const t2 = performance.now();
      extractiveSummary(state.record, messages);
      pure.push(performance.now() - t2);
    }
    const version = (await hub.db.conversationSummary.findUniqueOrThrow({ where: { conversationId: key } })).version;
    await readBoth(reads.large, reads.largePlain);
    console.log(
      `${engine}: ${ROUNDS} rounds of ${BATCH} new messages (${written} in the chat at the end; the lists hold at ` +
        "most 15 items each); median and p95 ms",
    );
    console.log(`  ${"".padEnd(58)}${"median".padStart(9)}${"p95".padStart(9)}`);
    console.log(row("extractive update of 500 messages: the rules alone", pure));
    console.log(row("extractive update of 500 messages: the hub's whole job", regen));
    const base = pct(readsPlain, 0.5);
    console.log(`  reads, ${READS} each, alternating, while the provider hangs (${stale} of 2 answered stale):`);
    console.log(row(`GET …/messages (50 newest), at ${BATCH + 25} messages`, readsPlain, base));
    console.log(row(`GET …/summary (record + 25 raw), at ${BATCH + 25} messages`, reads.small, base));
    console.log(row(`GET …/messages (50 newest), at ${written} messages`, reads.largePlain, base));
    console.log(row(`GET …/summary (record + 25 raw), at ${written} messages`, reads.large, base));
    console.log(
      `  record version ${version} at the end; stub requests: ` +
        `${stub.requests.length} (${answered} answered, one per 150 messages; the rest hung until the run ended)`,
    );
  } finally {
    await stub.close();
    await hub.close();
    await rules.summaries.records.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
const { engines, pgUrl } = benchEngines();
for (const engine of engines) await run(engine, pgUrl);
