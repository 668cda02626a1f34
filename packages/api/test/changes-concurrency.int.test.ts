import type { Hub, HubOptions } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "../src/node.ts";
import { restClient } from "./helpers.ts";
import { adminPoster, openLiveFeed, startInstances } from "./load.ts";

// Votes and reactions reach every reader of the dashboard live, under load: many
// writers, many listeners, received = acknowledged (as delivery-concurrency.int.test.ts proves for
// messages).
//
// One group chat of 12: 6 people listening on the dashboard's live.feed (tRPC subscription over
// SSE) and 6 writers — 3 people over Maity REST (PUT/DELETE …/reactions/{emoji}, POST
// …/polls/{id}/vote) and 3 agents over the agent API (POST/DELETE …/reactions, POST
// /agent-api/polls/{id}/vote) — who concurrently add and take back reactions on 6 messages (3
// plain, the 3 polls) and vote in the 3 polls (one single-choice, two multiple), 3 requests in
// flight per writer, every one over HTTP on a connection of its own.
// On PostgreSQL there are two app instances on one database (as agent-bus.int.test.ts and
// delivery-concurrency do): listeners 1–3 on A, 4–6 on B, and every writer alternates between A and
// B, so each change reaches half its listeners in process and the other half through the bus's
// LISTEN/NOTIFY (bus.ts: message_changed is a side message, no seq of the log, nothing to resume
// from — a lost NOTIFY would be lost for good). On PGlite (one process owns it) there is instance A
// only: the control run.
//
// What the hub promises (and so what is asserted): every write that changed something publishes
// one `message_changed` for its message (reactions.ts `change`, polls.ts `vote`: publishChanged only
// when a row changed), and live.feed yields every side message its reader is in the audience of,
// one by one from an unbounded queue: no coalescing anywhere. So each listener must receive EXACTLY
// one message_changed {seq, what} per acknowledged write that changed that message — and none for a
// write that changed nothing (the same vote again, B-229; a reaction already held, or not held,
// taken again). Each writer owns its rows (its reactions, its votes) and each of its lanes touches
// keys no other lane touches, so whether a write changed something follows from the writer's own
// acknowledged writes in order; its answer is checked to agree. Afterwards the reactions and the
// tallies read back from the hub equal what the acknowledged writes imply, and the log took no event
// (B-136: reactions and votes emit no /updates event).

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
/** Writes per lane; each writer runs 3 lanes at once (two of reactions, one of votes). */
const PER_LANE = Number(process.env.LOAD_CHANGES_PER_LANE ?? 14);
const LISTENERS = 6;
/**
 * Draining waits while events arrive: it ends when every listener has every expected event, or
 * when none received anything for QUIET_MS; DRAIN_MAX_MS only bounds the loop. No time limit on a
 * slow machine: a listener still receiving is waited for.
 */
const DRAIN_MAX_MS = 600_000;
const QUIET_MS = 4_000;
const OPTIONS: HubOptions = { limits: { agent: 1_000_000, updates: 1_000_000, ws: 1_000_000 } };
const PROJECT = "/api/projects/writer1/changes";
const AGENT_API = "/api/agent-api";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small seeded generator: the same writes every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What one listener got: message_changed counts by `${seq} ${what}`; faults fail its test. */
type Listener = {
  name: string;
  received: Map<string, number>;
  total: number;
  faults: string[];
  lastAt: number;
  ready: Promise<void>;
};

let a: Hub;
let b: Hub | null = null;
let apiA: ApiServer;
let apiB: ApiServer;
let instances: Awaited<ReturnType<typeof startInstances>> | undefined;
const T: Record<string, string> = {};
/** Writer handle → member id. */
const ids: Record<string, string> = {};
let group = "";
let groupKey = "";
/** Where the log ended before the writes. */
let start = 0;
const stops: (() => void | Promise<void>)[] = [];
let sseTransport = "";
const listeners: Listener[] = [];
/** A member of the project outside the chat, listening too: it must hear none of it (M-146). */
let outsider: Listener;

type Poll = { id: string; seq: number; options: number; multiple: boolean };
const polls: Poll[] = [];
/** The messages that take reactions: 3 plain ones, then the 3 polls. */
const targets: number[] = [];
const REACTION_LANES = [
  ["👍", "🎉"],
  ["❤️", "✅"],
];

// What the acknowledged writes imply.
/** `${seq} ${what}` → acknowledged writes that changed it: the events every listener must get. */
const expected = new Map<string, number>();
let acknowledged = 0;
let changing = 0;
let unchanged = 0;
const refused: string[] = [];
/** Answers that disagree with the writer's own state (what it held after its acknowledged writes). */
const wrongAnswers: string[] = [];
/** Final state: `${seq} ${emoji}` → members holding it; poll id → voter → held set. */
const reactionsHeld = new Map<string, Set<string>>();
const votesHeld = new Map<string, Map<string, number[]>>();
// What the hub holds afterwards, read back.
const readReactions = new Map<string, Set<string>>();
const readVotes = new Map<string, Map<string, number[]>>();
let appendedDuringWrites = -1;

// ---- listeners -----------------------------------------------------------------------------------

/**
 * A human's dashboard feed (load.ts openLiveFeed). `ready` resolves at the feed's first item,
 * `listening`: from there on it hears every change (routers/live.ts live.feed).
 */
function sseListener(hub: Hub, url: string, token: string, name: string): Listener {
  const into: Listener = { name, received: new Map(), total: 0, faults: [], lastAt: 0, ready: Promise.resolve() };
  into.ready = (async () => {
    let listening: () => void = () => {};
    const heard = new Promise<void>((r) => (listening = r));
    const feed = await openLiveFeed(hub, url, token, {}, (frame) => {
      if (frame.event !== undefined && frame.event !== "message") {
        // tRPC's own: `connected`, `ping`, and `restore-id` after an untracked item (message_changed
        // is one: nothing to resume from) to set the EventSource's last id back.
        if (!["connected", "ping", "restore-id"].includes(frame.event))
          into.faults.push(`event ${frame.event}: ${frame.data}`);
        return;
      }
      if (frame.data === undefined) return;
      const item = JSON.parse(frame.data) as {
        seq: number;
        kind: string;
        conversation_id: string | null;
        project: { owner: string; slug: string } | null;
        what?: string;
      };
      if (item.kind === "listening") return listening();
      if (item.kind !== "message_changed") {
        into.faults.push(`a ${item.kind} item (seq ${item.seq}) while only reactions and votes were written`);
        return;
      }
      if (item.conversation_id !== group || item.project?.owner !== "writer1" || item.project.slug !== "changes")
        into.faults.push(`message_changed of ${JSON.stringify(item)}`);
      const key = `${item.seq} ${item.what}`;
      into.received.set(key, (into.received.get(key) ?? 0) + 1);
      into.total += 1;
      into.lastAt = Date.now();
    });
    sseTransport = feed.transport;
    stops.push(feed.stop);
    const ended = feed.pump.then(() => Promise.reject(new Error(`${name}: the feed ended before listening`)));
    await Promise.race([heard, ended]);
  })();
  return into;
}

// ---- the load ------------------------------------------------------------------------------------

const WRITERS = ["writer1", "writer2", "writer3", "agent1", "agent2", "agent3"];
const isAgent = (who: string) => who.startsWith("agent");

type Answer = { status: number; body: unknown };
async function call(api: ApiServer, method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  return fetch(`${api.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  })
    .then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }))
    .catch((e: Error) => ({ status: 0, body: e.message }));
}

/** Records one write: acknowledged (200), whether it changed its message, and what its answer said. */
function settle(label: string, res: Answer, key: string, changed: boolean, answerRight: (body: never) => boolean) {
  if (res.status !== 200) {
    refused.push(`${label}: ${res.status} ${JSON.stringify(res.body)}`);
    return false;
  }
  acknowledged += 1;
  if (changed) {
    changing += 1;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  } else unchanged += 1;
  if (!answerRight(res.body as never)) wrongAnswers.push(`${label}: ${JSON.stringify(res.body)}`);
  return true;
}

async function writer(n: number): Promise<void> {
  const who = WRITERS[n] as string;
  const me = ids[who] as string;
  const token = T[who] as string;
  const api = (i: number) => (b && (n + i) % 2 === 1 ? apiB : apiA);

  // Reactions: each lane its own emojis, so the writer's rows of a lane change one write at a time.
  const reactions = async (lane: number) => {
    const next = random(1000 * n + lane);
    const emojis = REACTION_LANES[lane] as string[];
    const held = new Set<string>();
    for (let i = 0; i < PER_LANE; i++) {
      const seq = targets[Math.floor(next() * targets.length)] as number;
      const emoji = emojis[Math.floor(next() * emojis.length)] as string;
      const mine = `${seq} ${emoji}`;
      // One in six repeats what the writer already holds (or not): acknowledged, and no change.
      const add = next() < 1 / 6 ? held.has(mine) : !held.has(mine);
      const changed = add !== held.has(mine);
      const e = encodeURIComponent(emoji);
      const res = isAgent(who)
        ? add
          ? await call(api(i), "POST", `${AGENT_API}/conversations/${groupKey}/messages/evt-${seq}/reactions`, token, {
              emoji,
            })
          : await call(
              api(i),
              "DELETE",
              `${AGENT_API}/conversations/${groupKey}/messages/evt-${seq}/reactions?emoji=${e}`,
              token,
            )
        : await call(
            api(i),
            add ? "PUT" : "DELETE",
            `${PROJECT}/conversations/${group}/messages/${seq}/reactions/${e}`,
            token,
          );
      const holds = (body: never): boolean => {
        if (isAgent(who)) {
          const list = (body as { reactions: { emoji: string; reactors: { id: string }[] }[] }).reactions;
          return list.some((r) => r.emoji === emoji && r.reactors.some((x) => x.id === me)) === add;
        }
        const list = body as { emoji: string; members: string[] }[];
        return list.some((r) => r.emoji === emoji && r.members.includes(me)) === add;
      };
      if (settle(`${who} ${add ? "adds" : "takes back"} ${emoji} on ${seq}`, res, `${seq} reactions`, changed, holds)) {
        if (add) held.add(mine);
        else held.delete(mine);
        const all = reactionsHeld.get(mine) ?? new Set<string>();
        if (add) all.add(me);
        else all.delete(me);
        reactionsHeld.set(mine, all);
      }
    }
  };

  // Votes: the writer's complete set in one poll at a time (B-228); one in six is the set it holds.
  const votes = async () => {
    const next = random(1000 * n + 7);
    const held = new Map<string, number[]>(polls.map((p) => [p.id, []]));
    for (let i = 0; i < PER_LANE; i++) {
      const poll = polls[Math.floor(next() * polls.length)] as Poll;
      const before = held.get(poll.id) as number[];
      let set: number[];
      if (next() < 1 / 6) set = before;
      else if (poll.multiple) set = Array.from({ length: poll.options }, (_, k) => k).filter(() => next() < 0.5);
      else {
        const k = Math.floor(next() * (poll.options + 1));
        set = k === poll.options ? [] : [k];
      }
      const changed = set.join() !== before.join();
      const res = isAgent(who)
        ? await call(api(i), "POST", `${AGENT_API}/polls/${poll.id}/vote`, token, { optionIndexes: set })
        : await call(api(i), "POST", `${PROJECT}/polls/${poll.id}/vote`, token, { option_indexes: set });
      const holds = (body: never) => (body as { mine: number[] }).mine.join() === set.join();
      if (settle(`${who} votes [${set}] in ${poll.id}`, res, `${poll.seq} poll`, changed, holds)) {
        held.set(poll.id, set);
        const voters = votesHeld.get(poll.id) ?? new Map<string, number[]>();
        voters.set(me, set);
        votesHeld.set(poll.id, voters);
      }
    }
  };

  await Promise.all([reactions(0), reactions(1), votes()]);
}

const missing = (l: Listener) =>
  [...expected].flatMap(([key, count]) => {
    const got = l.received.get(key) ?? 0;
    return got === count ? [] : [`${key}: ${got}/${count}`];
  });
const unexpected = (l: Listener) => [...l.received.keys()].filter((key) => !expected.has(key));
const complete = (l: Listener) => [...expected].every(([key, count]) => (l.received.get(key) ?? 0) >= count);
const list = (xs: unknown[], max = 20) =>
  xs.length ? ` [${xs.slice(0, max).join("; ")}${xs.length > max ? " …" : ""}]` : "";

beforeAll(async () => {
  const t0 = Date.now();
  instances = await startInstances(OPTIONS);
  ({ a, b, apiA, apiB } = instances);

  // A group chat of 12 (the most a group chat holds): the writers and the readers.
  const rest = restClient(a);
  const admin = adminPoster(a);
  const readers = Array.from({ length: LISTENERS }, (_, i) => `reader${i + 1}`);
  const humans = [...WRITERS.filter((w) => !isAgent(w)), ...readers, "outsider"];
  for (const handle of humans) {
    await admin("/api/admin/humans", { handle, name: handle, password: `${handle}-password` });
    ids[handle] = `hum-${handle}`;
  }
  await admin("/api/admin/projects", { owner: "writer1", slug: "changes", name: "Changes" });
  for (const handle of WRITERS.filter(isAgent))
    ids[handle] = (
      await admin("/api/admin/agents", { owner: "writer1", handle, description: `Writes (${handle}).` })
    ).id;
  const others = [...humans.slice(1, -1), ...WRITERS.filter(isAgent)].map((h) => ids[h] as string);
  for (const id of [...others, "hum-outsider"])
    await admin("/api/admin/projects/writer1/changes/members", { member_id: id });
  for (const handle of [...humans, ...WRITERS.filter(isAgent)])
    T[handle] = (await admin("/api/admin/tokens", { member_id: ids[handle] })).token;
  const as = (who: string) => ({ token: T[who] as string });
  const created = await rest("POST", `${PROJECT}/conversations`, {
    ...as("writer1"),
    body: { title: "Votes and reactions under load", participants: others },
  });
  if (created.status !== 201)
    throw new Error(`the group chat answered ${created.status} ${JSON.stringify(created.body)}`);
  group = created.body.id;
  groupKey = (await a.db.conversation.findFirstOrThrow({ where: { publicId: group }, select: { id: true } })).id;

  // Three plain messages and three polls (one by a person over Maity, two by agents), before anyone listens.
  for (const [i, who] of ["writer1", "writer2", "writer3"].entries()) {
    const res = await rest("POST", `${PROJECT}/conversations/${group}/messages`, {
      ...as(who),
      body: { body: `React to me (${i + 1})` },
    });
    if (res.status !== 201) throw new Error(`a post answered ${res.status} ${JSON.stringify(res.body)}`);
    targets.push(res.body.seq);
  }
  const human = await rest("POST", `${PROJECT}/conversations/${group}/polls`, {
    ...as("writer2"),
    body: { question: "Ship on Friday?", options: ["Yes", "No", "Later"] },
  });
  if (human.status !== 201) throw new Error(`a poll answered ${human.status} ${JSON.stringify(human.body)}`);
  polls.push({ id: human.body.poll.id, seq: human.body.seq, options: 3, multiple: false });
  for (const [who, options] of [
    ["agent1", ["Mo", "Tu", "We", "Th"]],
    ["agent2", ["Red", "Green", "Blue"]],
  ] as const) {
    const res = await rest("POST", `${AGENT_API}/polls`, {
      ...as(who),
      body: { conversationId: groupKey, question: `Which (${who})?`, options, allowMultiple: true },
    });
    if (res.status !== 201) throw new Error(`a poll answered ${res.status} ${JSON.stringify(res.body)}`);
    const seq = Number(String(res.body.id).replace(/^evt-/, ""));
    polls.push({ id: res.body.cardPayload.pollId, seq, options: options.length, multiple: true });
  }
  targets.push(...polls.map((p) => p.seq));
  start = await a.messages.lastSeq();

  // Every listener hears the feed's `listening` before the first write: none can start late.
  for (const [i, handle] of readers.entries()) {
    const onB = b !== null && i >= LISTENERS / 2;
    listeners.push(
      sseListener(
        onB ? (b as Hub) : a,
        onB ? apiB.url : apiA.url,
        T[handle] as string,
        `${handle} (${onB ? "B" : "A"})`,
      ),
    );
  }
  outsider = sseListener(b ?? a, apiB.url, T.outsider as string, "outsider (not in the chat)");
  await Promise.all([...listeners, outsider].map((l) => l.ready));
  const t1 = Date.now();

  await Promise.all(WRITERS.map((_, n) => writer(n)));
  const t2 = Date.now();

  for (let i = 0; i < DRAIN_MAX_MS / 100; i++) {
    if (listeners.every(complete)) break;
    if (Date.now() - Math.max(t2, ...listeners.map((l) => l.lastAt)) > QUIET_MS) break;
    await sleep(100);
  }
  const t3 = Date.now();
  // A moment more for events beyond the expected (a doubled one, or one for a write that changed nothing).
  await sleep(500);

  // What the hub holds, read back by a reader over Maity REST on instance A.
  const page = await rest("GET", `${PROJECT}/conversations/${group}/messages?before=1000000`, as("reader1"));
  for (const m of page.body.items as { seq: number; reactions?: { emoji: string; members: string[] }[] }[])
    for (const r of m.reactions ?? []) readReactions.set(`${m.seq} ${r.emoji}`, new Set(r.members));
  for (const poll of polls) {
    const got = await rest("GET", `${PROJECT}/polls/${poll.id}`, as("reader1"));
    const voters = new Map<string, number[]>();
    for (const o of got.body.options as { index: number; voters: { member_id: string }[] }[])
      for (const v of o.voters) voters.set(v.member_id, [...(voters.get(v.member_id) ?? []), o.index]);
    readVotes.set(poll.id, voters);
  }
  appendedDuringWrites = await a.db.event.count({ where: { seq: { gt: start } } });

  console.info(
    [
      `changes-concurrency on ${onPostgres ? "PostgreSQL, instances A and B" : "PGlite, instance A"}: ${WRITERS.length} writers × 3 lanes × ${PER_LANE} writes (${targets.length} messages, ${polls.length} polls), ${acknowledged} acknowledged (${changing} changed a message, ${unchanged} changed nothing), ${refused.length} refused`,
      `setup ${t1 - t0} ms, writing ${t2 - t1} ms (${Math.round((acknowledged / Math.max(1, t2 - t1)) * 1000)} writes/s), draining ${t3 - t2} ms; live.feed over ${sseTransport}`,
      ...listeners.map((l) => {
        const lost = missing(l);
        return `${l.name}: received ${l.total}/${changing} message_changed, ${lost.length} messages off${list(lost)}, ${unexpected(l).length} unexpected${l.faults.length ? `; ${l.faults.slice(0, 5).join("; ")}` : ""}`;
      }),
      `${outsider.name}: received ${outsider.total}${outsider.faults.length ? `; ${outsider.faults.slice(0, 5).join("; ")}` : ""}`,
    ].join("\n  "),
  );
}, 600_000);

afterAll(async () => {
  for (const stop of stops.splice(0)) await stop();
  await instances?.close();
});

describe(`every acknowledged vote and reaction reaches every live.feed listener as message_changed (${onPostgres ? "PostgreSQL, two app instances" : "PGlite, one instance"})`, () => {
  it(`B-228 B-229 ${WRITERS.length} writers (people over Maity REST, agents over the agent API) write ${WRITERS.length * 3 * PER_LANE} reactions and votes concurrently: every write answers 200 with the writer's own state`, () => {
    expect(refused).toEqual([]);
    expect(wrongAnswers).toEqual([]);
    expect(acknowledged).toBe(WRITERS.length * 3 * PER_LANE);
    // The load holds both kinds of write: changes, and writes that change nothing.
    expect(changing).toBeGreaterThan(acknowledged / 2);
    expect(unchanged).toBeGreaterThan(0);
  });

  it("B-235 B-236 B-238 afterwards each poll's tally holds exactly the sets the acknowledged votes left", () => {
    const sorted = (m: Map<string, number[]> | undefined) =>
      [...(m ?? [])].filter(([, set]) => set.length > 0).sort(([x], [y]) => x.localeCompare(y));
    for (const poll of polls) expect(sorted(readVotes.get(poll.id)), poll.id).toEqual(sorted(votesHeld.get(poll.id)));
  });

  it("afterwards each message's reactions hold exactly the members the acknowledged writes left", () => {
    const sorted = (m: Map<string, Set<string>>) =>
      [...m]
        .map(([key, members]) => [key, [...members].sort()] as const)
        .filter(([, members]) => members.length > 0)
        .sort(([x], [y]) => x.localeCompare(y));
    expect(sorted(readReactions)).toEqual(sorted(reactionsHeld));
  });

  it("B-136 reactions and votes append no event to the log", () => {
    expect(appendedDuringWrites).toBe(0);
  });

  it("M-146 a member of the project outside the chat, listening all along, hears none of it", () => {
    expect({ total: outsider.total, faults: outsider.faults }).toEqual({ total: 0, faults: [] });
  });

  for (let i = 0; i < LISTENERS; i++)
    it(`B-238 listener ${i + 1}${onPostgres ? ` (instance ${i < LISTENERS / 2 ? "A" : "B"})` : ""}: exactly one message_changed per acknowledged write that changed a message, none for a write that changed nothing`, () => {
      const l = listeners[i] as Listener;
      const lost = missing(l);
      expect(
        { off: lost, unexpected: unexpected(l), faults: l.faults, total: l.total },
        `${l.name} received ${l.total} of ${changing} message_changed; off: ${lost.join("; ")}`,
      ).toEqual({ off: [], unexpected: [], faults: [], total: changing });
    });
});
