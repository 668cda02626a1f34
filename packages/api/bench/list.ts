// pnpm bench:list — GET /api/me/conversations for a human in 1, 10 and 100 projects (20 chats
// each: 2 direct conversations with its agents and 18 group chats, a few realistic messages in
// each). Prints the median latency of the call and the SQL statements it issues. Ratios matter,
// not absolute numbers: the machine is noisy. DATABASE_URL=postgresql://… runs it on PostgreSQL.
// Beside the reader, a second human ("solo") stays in 1 project of the same shape in the same
// database; each level times the two calls alternately, so the "× solo" ratio compares latencies
// taken in the same seconds, whatever the machine's load does between levels.
import { openDatabase } from "@maity/db";
import { createHub, type HumanCaller } from "@maity/hub";
import { handleRest } from "../src/rest/index.ts";

const LEVELS = [1, 10, 100];
const CHATS_PER_PROJECT = 20;
const RUNS = 25;
const ADMIN = "bench-admin-token";
const LINES = [
  "Morning! Can you look over the conversations API before the release?",
  "The list shape matches §9.3; I will check the bands next and report back here.",
  "@agent-a can we tag today? The changelog is drafted and CI was green on main this morning.",
  "I reran the migration on a copy of production: 4.2 s, no locks held longer than 80 ms. 👍",
  "Let's keep the pin limit at 20 — Slack and Zulip both cap it lower, nobody complained.",
];

// The bench writer mentions agents often; the ping rate is not what is measured.
const database = await openDatabase(
  process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: "memory://" },
);
const hub = createHub(database, { groupChatQuota: 1000, pingRate: { pings: 1_000_000, windowSeconds: 60 } });
const call = async (method: string, path: string, token: string, body?: unknown) => {
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
  return text ? JSON.parse(text) : null;
};

const me: HumanCaller = { kind: "human", id: "hum-reader", handle: "reader", name: "Reader" };
const peer: HumanCaller = { kind: "human", id: "hum-peer", handle: "peer", name: "Peer" };
await hub.admin.createHuman({ handle: "reader", name: "Reader", password: "bench-password" });
await hub.admin.createHuman({ handle: "peer", name: "Peer", password: "bench-password" });
const agentA = await hub.admin.createAgent({ owner: "reader", handle: "agent-a", description: "Reviews the API." });
const agentB = await hub.admin.createAgent({ owner: "reader", handle: "agent-b", description: "Writes changelogs." });
const agentP = await hub.admin.createAgent({ owner: "peer", handle: "agent-p", description: "Runs release checks." });
const token = (await hub.admin.mintToken({ member_id: me.id })).token;
const solo: HumanCaller = { kind: "human", id: "hum-solo", handle: "solo", name: "Solo" };
await hub.admin.createHuman({ handle: "solo", name: "Solo", password: "bench-password" });
const soloA = await hub.admin.createAgent({ owner: "solo", handle: "solo-a", description: "Reviews the API." });
const soloB = await hub.admin.createAgent({ owner: "solo", handle: "solo-b", description: "Writes changelogs." });
const soloToken = (await hub.admin.mintToken({ member_id: solo.id })).token;

let projects = 0;
async function addProject(): Promise<void> {
  projects += 1;
  await fillProject(me, `project-${String(projects).padStart(3, "0")}`, [agentA.id, agentB.id]);
}

/** A project of `owner` with its two agents, the peer and agent-p: 2 direct conversations, 18 group chats. */
async function fillProject(owner: HumanCaller, slug: string, agents: [string, string]): Promise<void> {
  const me = owner;
  const [agentAId, agentBId] = agents;
  const ref = { owner: owner.handle, slug };
  await hub.admin.createProject({ owner: owner.handle, slug, name: `Project ${slug}` });
  for (const id of [peer.id, agentAId, agentBId, agentP.id]) await hub.admin.addMember(ref, { member_id: id });
  const ids: string[] = [agentAId, agentBId];
  for (let i = 0; i < CHATS_PER_PROJECT - 2; i++) {
    const participants = i % 3 === 0 ? [peer.id] : i % 3 === 1 ? [peer.id, agentAId] : [agentP.id, agentBId];
    ids.push((await hub.groups.create(me, ref, { title: i % 4 === 0 ? null : `Thread ${i}`, participants })).view.id);
  }
  for (const [i, id] of ids.entries()) {
    const writers = id.startsWith("cnv-") ? [me, peer] : [me];
    for (let k = 0; k < 2 + (i % 3); k++) {
      const writer = writers[k % writers.length] as HumanCaller;
      try {
        await hub.messages.post(writer, ref, id, { body: LINES[(i + k) % LINES.length] as string });
      } catch {
        await hub.messages.post(me, ref, id, { body: LINES[(i + k) % LINES.length] as string });
      }
    }
  }
  await hub.conversations.pin(me, ref, ids[3] as string).catch(() => {});
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

console.log(
  `GET /api/me/conversations?limit=50 on ${database.engine}, ${CHATS_PER_PROJECT} chats per project, median of ${RUNS} calls`,
);
console.log("projects  items  median ms  solo (1 project) ms  × solo  SQL statements per call (list + auth)");
await fillProject(solo, "solo-project", [soloA.id, soloB.id]);
const results: { projects: number; ms: number; ratio: number }[] = [];
for (const level of LEVELS) {
  const t = performance.now();
  while (projects < level) await addProject();
  process.stderr.write(`(set up ${level} projects in ${((performance.now() - t) / 1000).toFixed(0)} s)\n`);
  await call("GET", "/api/me/conversations?limit=50", token); // warm up
  await call("GET", "/api/me/conversations?limit=50", soloToken);
  const times: number[] = [];
  const soloTimes: number[] = [];
  let statements = 0;
  let listStatements = 0;
  let items = 0;
  for (let r = 0; r < RUNS; r++) {
    let n = 0;
    const stop = database.observeQueries(() => n++);
    const t0 = performance.now();
    const page = await call("GET", "/api/me/conversations?limit=50", token);
    times.push(performance.now() - t0);
    stop();
    statements = n;
    items = page.totals !== undefined ? page.items.length : 0;
    const t1 = performance.now();
    await call("GET", "/api/me/conversations?limit=50", soloToken);
    soloTimes.push(performance.now() - t1);
  }
  let m = 0;
  const stop = database.observeQueries(() => m++);
  await hub.conversations.mine(me, { limit: 50, observed: false });
  stop();
  listStatements = m;
  const ms = median(times);
  const soloMs = median(soloTimes);
  results.push({ projects: level, ms, ratio: ms / soloMs });
  console.log(
    `${String(level).padStart(8)}  ${String(items).padStart(5)}  ${ms.toFixed(1).padStart(9)}  ${soloMs.toFixed(1).padStart(19)}  ${`×${(ms / soloMs).toFixed(1)}`.padStart(6)}  ${listStatements} + ${statements - listStatements} = ${statements}`,
  );
}
const first = results[0] as { ms: number };
console.log(
  `latency ratio vs 1 project: ${results.map((r) => `${r.projects}: ×${(r.ms / first.ms).toFixed(1)}`).join(", ")}; vs solo in the same seconds: ${results.map((r) => `${r.projects}: ×${r.ratio.toFixed(1)}`).join(", ")}`,
);
await hub.close();
