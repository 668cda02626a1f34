// pnpm bench:search — message search (DESIGN §4d) at 100,000 messages in 1,000 chats of 20
// projects, read by a member of 5 of them (250 chats, ~25,000 messages it may read) and, in the
// same loop, by a member of all 20 (every chat: how the cost grows with what a reader is in):
//   1. 200 mixed queries (common, middling and rare words, two words, a prefix, a phrase, from:,
//      in:, a CJK substring; a tenth by relevance), each followed by a plain read of one chat
//      (GET …/messages?before=…&limit=20, history: nothing marked) in the same loop, so both meet
//      the same moment of a noisy machine: p50/p95 of each and the ratio;
//   2. the write cost the index adds to a send: the same chat post into two databases seeded alike,
//      one with the search column and indexes (migration _search) and one with them dropped,
//      alternating rounds; the ratio of the medians.
// Through the REST adapter in-process (authentication included), like bench:list. PGlite in
// memory always; PostgreSQL when DATABASE_URL=postgresql://… (throwaway databases, dropped at the
// end); `--only=pglite|postgresql`. The bodies come from a fixed vocabulary with a Zipf-like skew
// (setseed), so the common words really are common (the commonest is in about half the messages).
import { type Database, openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { createHub, type Hub } from "@maity/hub";
import { handleRest } from "../src/rest/index.ts";
import { log, percentile, since } from "./clients.ts";
import { benchEngines } from "./engines.ts";

/** SEARCH_BENCH_SCALE=0.1 makes a tenth of the chats (a quick look; the numbers are at 1). */
const SCALE = Number(process.env.SEARCH_BENCH_SCALE ?? 1);
const PROJECTS = 20;
const CHATS_PER_PROJECT = Math.max(2, Math.round(50 * SCALE));
const MESSAGES_PER_CHAT = 100;
const READER_PROJECTS = 5;
const QUERIES = 200;
const SEND_ROUNDS = 4;
const SENDS_PER_ROUND = 60;
const ADMIN = "bench-search-admin-token";
const RUN_BUDGET_MS = 40 * 60_000;

const watchdog = setTimeout(() => {
  log(`bench:search: still running after ${RUN_BUDGET_MS / 60_000} min, stopping`);
  process.exit(2);
}, RUN_BUDGET_MS);
watchdog.unref();

// ---- the vocabulary --------------------------------------------------------------------------

const COMMON = (
  "the we to release build it is deploy and for on check review plan test ship fix team data " +
  "update merge branch docs meeting customer pricing decision api latency query index migration"
).split(" ");
/** Deterministic pseudo-words: the numbers from 400 written in base 20 with a syllable a digit (unique). */
function made(n: number): string[] {
  const syllables = "ka lo mi ru te sa no vi de po ga re zu fi ta mo ne li so ba".split(" ");
  const out: string[] = [];
  for (let i = 400; out.length < n; i++) {
    let w = "";
    for (let x = i; x > 0; x = Math.floor(x / 20)) w += syllables[x % 20];
    out.push(w);
  }
  return out;
}
const VOCAB = [...COMMON, ...made(2000 - COMMON.length)];
const CJK = ["我们的会议记录在这里", "发布计划已经确认", "请检查测试结果", "数据迁移完成了"];

// ---- the hub and its data ----------------------------------------------------------------------

type Side = { hub: Hub; database: Database; call: Call; token: string; wide: string; rooms: string[]; ref: string };
type Call = (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

const callOf =
  (hub: Hub): Call =>
  async (method, path, token, body) => {
    const res = await handleRest(
      hub,
      new Request(`http://127.0.0.1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { adminToken: ADMIN },
    );
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

async function openSide(engine: "pglite" | "postgresql", pgUrl: string | undefined): Promise<Database> {
  if (engine === "pglite") return openDatabase({ dataDir: "memory://" });
  process.env.TEST_DATABASE_URL = pgUrl;
  return freshDatabase();
}

/**
 * 20 projects of 4 owners, 50 group chats each (the owner, one peer, and the reader in the
 * reader's 5 projects), 100 messages per chat written in bulk by SQL (the generated column fills
 * the index as a send would). `withSearch: false` drops the column and indexes first.
 */
async function seed(database: Database, withSearch: boolean): Promise<Side> {
  if (!withSearch)
    await database.sql.exec(
      "DROP INDEX IF EXISTS events_search_unspaced_idx; ALTER TABLE events DROP COLUMN IF EXISTS search_vector",
    );
  const hub = createHub(database, { groupChatQuota: 10_000, pingRate: { pings: 1_000_000, windowSeconds: 60 } });
  const owners = ["ada", "bo", "cy", "di"];
  for (const h of ["reader", "wide", ...owners, "peer"])
    await hub.admin.createHuman({ handle: h, name: h[0]?.toUpperCase() + h.slice(1), password: "bench-password" });
  const rooms: string[] = [];
  for (let p = 0; p < PROJECTS; p++) {
    const owner = owners[p % owners.length] as string;
    const ref = { owner, slug: `project-${p}` };
    await hub.admin.createProject({ ...ref, name: `Project ${p}` });
    const reader = p < READER_PROJECTS;
    await hub.admin.addMember(ref, { member_id: "hum-peer" });
    if (reader) await hub.admin.addMember(ref, { member_id: "hum-reader" });
    // "wide" is in every chat of every project: how the cost grows with what a reader is in.
    await hub.admin.addMember(ref, { member_id: "hum-wide" });
    const caller = { kind: "human" as const, id: `hum-${owner}`, handle: owner, name: owner };
    for (let c = 0; c < CHATS_PER_PROJECT; c++) {
      const participants = reader ? ["hum-reader", "hum-peer", "hum-wide"] : ["hum-peer", "hum-wide"];
      const made = await hub.groups.create(caller, ref, { title: `Chat ${p}-${c}`, participants });
      if (reader && p === 0) rooms.push(made.view.id);
    }
  }
  log(`  ${database.engine}: ${PROJECTS} projects, ${PROJECTS * CHATS_PER_PROJECT} chats made`);
  // The bodies: 6–19 words, skewed to the vocabulary's front; 1 in 97 a CJK sentence, 1 in 53
  // carries the phrase "pricing decision". Writers alternate between the chat's owner and the peer.
  // The vocabulary as a table: an array subscript per word re-reads the whole array (minutes at 1.2M words).
  await database.sql.exec("CREATE TEMP TABLE bench_vocab (id int PRIMARY KEY, w text NOT NULL)");
  await database.sql.query("INSERT INTO bench_vocab SELECT i, w FROM unnest($1::text[]) WITH ORDINALITY AS t(w, i)", [
    VOCAB,
  ]);
  await database.sql.exec("SELECT setseed(0.42)");
  await database.sql.query(
    `INSERT INTO events (kind, type, project_id, conversation_id, from_id, body, sent_at, mentions)
     SELECT 'message', 'chat', c.project_id, c.id,
            CASE WHEN g % 2 = 0 THEN c.created_by_id ELSE 'hum-peer' END,
            CASE WHEN g % 97 = 0 THEN ($1::text[])[1 + (g / 97) % 4]
                 ELSE (SELECT string_agg(v.w, ' ' ORDER BY r.n)
                       FROM (SELECT s AS n, 1 + floor(power(random(), 2.5) * $2)::int AS id
                             FROM generate_series(1, 6 + (g * 7 + length(c.id)) % 14) s) r
                       JOIN bench_vocab v ON v.id = r.id)
                      || CASE WHEN g % 53 = 0 THEN ' pricing decision' ELSE '' END
            END,
            now() - make_interval(mins => ${MESSAGES_PER_CHAT} - g), '[]'::jsonb
     FROM conversations c CROSS JOIN generate_series(1, ${MESSAGES_PER_CHAT}) g
     ORDER BY c.id, g`,
    [CJK, VOCAB.length],
  );
  if (database.engine === "postgresql") await database.sql.exec("ANALYZE");
  const token = (await hub.admin.mintToken({ member_id: "hum-reader" })).token;
  const wide = (await hub.admin.mintToken({ member_id: "hum-wide" })).token;
  return { hub, database, call: callOf(hub), token, wide, rooms, ref: "ada/project-0" };
}

// ---- the queries -------------------------------------------------------------------------------

/** 200 queries of the kinds people and agents type, in a fixed mix and order. */
function queries(): { q: string; sort?: "relevance"; kind: string }[] {
  const at = (rank: number) => VOCAB[rank % VOCAB.length] as string;
  const out: { q: string; sort?: "relevance"; kind: string }[] = [];
  for (let i = 0; out.length < QUERIES; i++) {
    const k = i % 20;
    const pick = (from: number, span: number) => at(from + ((i * 37) % span));
    if (k < 6) out.push({ q: pick(0, 15), kind: "common word" });
    else if (k < 10) out.push({ q: pick(100, 400), kind: "middling word" });
    else if (k < 13) out.push({ q: pick(1000, 900), kind: "rare word" });
    else if (k < 15) out.push({ q: `${pick(0, 15)} ${pick(100, 400)}`, kind: "two words" });
    else if (k === 15) out.push({ q: pick(100, 400).slice(0, 4), kind: "prefix" });
    else if (k === 16) out.push({ q: '"pricing decision"', kind: "phrase" });
    else if (k === 17) out.push({ q: `from:@peer ${pick(30, 100)}`, kind: "from:" });
    else if (k === 18) out.push({ q: `in:"Chat 1-7" ${pick(0, 15)}`, kind: "in:" });
    else out.push({ q: (CJK[i % CJK.length] as string).slice(2, 5), kind: "CJK substring" });
    if (i % 10 === 3) (out.at(-1) as { sort?: string }).sort = "relevance";
  }
  return out;
}

const fmt = (n: number) => n.toFixed(1);
const p50 = (xs: number[]) => percentile(xs, 0.5);
const p95 = (xs: number[]) => percentile(xs, 0.95);

async function searchRun(side: Side) {
  const list = queries();
  const search: number[] = [];
  const read: number[] = [];
  const wide: number[] = [];
  const byKind = new Map<string, number[]>();
  let found = 0;
  let statements = 0;
  // Warm-up: the statement's plan and the first pages of the indexes.
  for (const q of list.slice(0, 10)) await side.call("GET", `/api/search?q=${encodeURIComponent(q.q)}`, side.token);
  for (const [i, q] of list.entries()) {
    const params = new URLSearchParams({ q: q.q, ...(q.sort ? { sort: q.sort } : {}) });
    let n = 0;
    const stop = side.database.observeQueries(() => n++);
    const t0 = performance.now();
    const answer = await side.call("GET", `/api/search?${params}`, side.token);
    const ms = performance.now() - t0;
    stop();
    statements = Math.max(statements, n);
    search.push(ms);
    byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), ms]);
    found += (answer.body as { items: unknown[] }).items.length;
    // The same query by the reader of all 1,000 chats, in the same seconds.
    const tw = performance.now();
    await side.call("GET", `/api/search?${params}`, side.wide);
    wide.push(performance.now() - tw);
    const room = side.rooms[(i * 13) % side.rooms.length] as string;
    const t1 = performance.now();
    await side.call(
      "GET",
      `/api/projects/${side.ref}/conversations/${room}/messages?before=2000000000&limit=20`,
      side.token,
    );
    read.push(performance.now() - t1);
  }
  return { search, read, wide, byKind, found, statements };
}

/** Sequential posts into one chat, alternating the two sides round by round. */
async function sendRun(a: Side, b: Side) {
  const times = { a: [] as number[], b: [] as number[] };
  let n = 0;
  const post = async (side: Side) => {
    n++;
    const t0 = performance.now();
    await side.call("POST", `/api/projects/${side.ref}/conversations/${side.rooms[0]}/messages`, side.token, {
      body: `Status update ${n}: the nightly build finished, the pricing decision holds and the numbers look fine.`,
    });
    return performance.now() - t0;
  };
  for (const side of [a, b]) for (let i = 0; i < 20; i++) await post(side); // warm-up
  for (let r = 0; r < SEND_ROUNDS; r++)
    for (const [name, side] of [
      ["a", a],
      ["b", b],
    ] as const)
      for (let i = 0; i < SENDS_PER_ROUND; i++) times[name].push(await post(side));
  return times;
}

const { engines, pgUrl } = benchEngines();
for (const engine of engines) {
  const t = performance.now();
  const withIndex = await seed(await openSide(engine, pgUrl), true);
  log(`${engine}: seeded ${PROJECTS * CHATS_PER_PROJECT * MESSAGES_PER_CHAT} messages with the index in ${since(t)}`);
  const t2 = performance.now();
  const without = await seed(await openSide(engine, pgUrl), false);
  log(`${engine}: seeded the same without the index in ${since(t2)}`);

  const s = await searchRun(withIndex);
  console.log(
    `\n${engine}: ${QUERIES} searches by a member of ${READER_PROJECTS} of ${PROJECTS} projects ` +
      `(${READER_PROJECTS * CHATS_PER_PROJECT} chats, ${READER_PROJECTS * CHATS_PER_PROJECT * MESSAGES_PER_CHAT} messages it may read)`,
  );
  console.log("                     p50 ms   p95 ms");
  console.log(`search               ${fmt(p50(s.search)).padStart(6)}   ${fmt(p95(s.search)).padStart(6)}`);
  console.log(`GET …/messages (20)  ${fmt(p50(s.read)).padStart(6)}   ${fmt(p95(s.read)).padStart(6)}`);
  console.log(
    `ratio search ÷ read  ×${(p50(s.search) / p50(s.read)).toFixed(2)}    ×${(p95(s.search) / p95(s.read)).toFixed(2)}`,
  );
  console.log(
    `search by a reader of all ${PROJECTS * CHATS_PER_PROJECT} chats (×4 what it is in): ` +
      `p50 ${fmt(p50(s.wide))} ms, p95 ${fmt(p95(s.wide))} ms — ×${(p50(s.wide) / p50(s.search)).toFixed(2)} / ` +
      `×${(p95(s.wide) / p95(s.search)).toFixed(2)} the reader of ${READER_PROJECTS} projects`,
  );
  console.log(
    `results returned: ${s.found} (${fmt(s.found / QUERIES)} a query); statements per search ≤ ${s.statements}`,
  );
  for (const [kind, xs] of s.byKind)
    console.log(
      `  ${kind.padEnd(14)} n=${String(xs.length).padStart(3)}  p50 ${fmt(p50(xs))} ms  p95 ${fmt(p95(xs))} ms`,
    );

  const w = await sendRun(withIndex, without);
  const ratio = p50(w.a) / p50(w.b);
  console.log(
    `send (${SEND_ROUNDS} alternating rounds of ${SENDS_PER_ROUND}): with the index p50 ${fmt(p50(w.a))} ms, ` +
      `without ${fmt(p50(w.b))} ms — ×${ratio.toFixed(2)} (mean ×${(mean(w.a) / mean(w.b)).toFixed(2)})`,
  );
  await withIndex.hub.close();
  await without.hub.close();
}
function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
