import { isHubError, listMessagesQuery } from "@maity/domain";
import { type Database, openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { type AgentCaller, type Caller, createHub, type Hub, type HumanCaller } from "@maity/hub";
import { readFileSync } from "node:fs";
import { agentsInRoom } from "../../hub/src/access/agentsInRoom.ts";
import { type KeyRow, readKeys } from "../../hub/src/access/visibility.ts";
import { afterAll, describe, expect, it } from "vitest";

// §9.2 "Read and unread" kept as counters on the participation (M-166, M-117, M-058, M-186, M-224):
// after a seeded random run of posts (humans and agents, with mentions), reads (…/messages and the
// explicit marker), joins, leaves, rejoins, redactions and an agent leaving and rejoining its
// project (a new direct participation), every open participation's unread and mentions_unread
// equal a recount from the log by the query the list used to run at read time, and so does the
// list's order key kept beside them (M-227: activity_at, and the copies of the conversation's project
// and direct agent). Then the same after writers and readers run at once — on PostgreSQL through two
// app instances on one database.

const SEED = 26;
const STEPS = 360;

/** The list's former read-time count (read.ts before the counters), for every open participation. */
const RECOUNT_SQL = `
SELECT p.id, p.member_id, c.public_id, pr.slug, p.unread, p.mentions_unread,
  (SELECT count(*)::int FROM events e
    WHERE e.conversation_id = c.id AND e.kind = 'message' AND e.seq > GREATEST(p.joined_seq, p.read_marker_seq)
      AND e.from_id <> p.member_id) AS recount_unread,
  CASE WHEN c.kind = 'direct' THEN 0 ELSE (SELECT count(*)::int FROM events e
    WHERE e.conversation_id = c.id AND e.kind = 'message' AND e.seq > GREATEST(p.joined_seq, p.read_marker_seq)
      AND e.from_id <> p.member_id
      AND e.mentions @> jsonb_build_array(jsonb_build_object('member_id', p.member_id))) END AS recount_mentions,
  p.activity_at, coalesce(CASE WHEN c.last_seq > p.joined_seq THEN c.last_message_at END,
    CASE WHEN c.kind = 'direct' THEN (SELECT am.joined_at FROM memberships am
      WHERE am.project_id = c.project_id AND am.member_id = c.agent_id) END, c.created_at) AS recount_activity,
  p.project_id, c.project_id AS conversation_project_id, p.direct_agent_id,
  CASE WHEN c.kind = 'direct' THEN c.agent_id END AS conversation_direct_agent_id
FROM participations p JOIN conversations c ON c.id = p.conversation_id JOIN projects pr ON pr.id = c.project_id
WHERE p.left_at IS NULL
ORDER BY p.id`;

type Recount = {
  id: string;
  member_id: string;
  public_id: string;
  slug: string;
  unread: number;
  mentions_unread: number;
  recount_unread: number;
  recount_mentions: number;
  activity_at: Date | string;
  recount_activity: Date | string;
  project_id: string;
  conversation_project_id: string;
  direct_agent_id: string | null;
  conversation_direct_agent_id: string | null;
};

const time = (v: Date | string) => new Date(v).getTime();

/** mulberry32: the same run for the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const databases: Database[] = [];
afterAll(async () => {
  for (const d of databases.reverse()) await d.close();
});

async function world() {
  const database = await freshDatabase();
  const hub = createHub(database, { groupChatQuota: 1000, pingRate: { pings: 1_000_000, windowSeconds: 60 } });
  databases.push({ ...database, close: () => hub.close() });
  const humans: HumanCaller[] = [];
  for (const handle of ["ann", "ben", "cai", "dee"]) {
    // One Bay for all (DESIGN §4c): anyone adds anyone's agent, as §9 has it among a team.
    const bay = handle === "ann" ? undefined : "ann";
    const h = await hub.admin.createHuman({ handle, name: handle.toUpperCase(), password: "password-123", bay });
    humans.push({ kind: "human", id: h.id, handle, name: handle.toUpperCase() });
  }
  const agents: AgentCaller[] = [];
  for (const [owner, handle] of [
    [0, "scout"],
    [0, "coder"],
    [1, "critic"],
    [2, "scribe"],
  ] as const) {
    const o = humans[owner] as HumanCaller;
    const a = await hub.admin.createAgent({ owner: o.handle, handle, description: `${handle} agent` });
    agents.push({ kind: "agent", id: a.id, handle, ownerId: o.id, instanceId: null });
  }
  // Both projects live in the one Bay (its handle "ann"); ben makes the second.
  const refs = [
    { owner: "ann", slug: "lab" },
    { owner: "ann", slug: "ops" },
  ];
  for (const [i, ref] of refs.entries()) {
    const by = i === 0 ? "ann" : "ben";
    await hub.admin.createProject({ owner: by, slug: ref.slug, name: ref.slug });
    for (const m of [...humans, ...agents]) if (m.handle !== by) await hub.admin.addMember(ref, { member_id: m.id });
  }
  return { database, hub, humans, agents, refs };
}

type World = Awaited<ReturnType<typeof world>>;
type Chat = { ref: { owner: string; slug: string }; id: string; creator: HumanCaller; direct: boolean };

async function chatsOf(w: World): Promise<Chat[]> {
  const chats: Chat[] = [];
  const members = [...w.humans, ...w.agents];
  for (const [p, ref] of w.refs.entries()) {
    const creator = w.humans.find((h) => h.handle === ref.owner) as HumanCaller;
    for (let i = 0; i < 3; i++) {
      const others = members.filter((m) => m.id !== creator.id).filter((_, k) => (k + i + p) % 2 === 0);
      const created = await w.hub.groups.create(creator, ref, {
        title: `chat ${p}-${i}`,
        participants: others.map((m) => m.id),
      });
      chats.push({ ref, id: created.view.id, creator, direct: false });
    }
    for (const a of w.agents) {
      const owner = w.humans.find((h) => h.id === a.ownerId) as HumanCaller;
      chats.push({ ref, id: a.id, creator: owner, direct: true });
    }
  }
  return chats;
}

const member = (w: World, id: string): Caller =>
  (w.humans.find((h) => h.id === id) ?? w.agents.find((a) => a.id === id)) as Caller;

async function participantsOf(w: World, chat: Chat): Promise<string[]> {
  const rows = await w.database.sql.query<{ member_id: string }>(
    "SELECT p.member_id FROM participations p JOIN conversations c ON c.id = p.conversation_id JOIN projects pr ON pr.id = c.project_id WHERE c.public_id = $1 AND pr.slug = $2 AND p.left_at IS NULL",
    [chat.id, chat.ref.slug],
  );
  return rows.map((r) => r.member_id).sort();
}

/** Refusals (closed chats, lost access, …) are part of a random run; anything else fails the test. */
async function tolerate(done: Record<string, number>, op: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
    done[op] = (done[op] ?? 0) + 1;
  } catch (error) {
    if (!isHubError(error)) throw error;
    done[`${op} refused`] = (done[`${op} refused`] ?? 0) + 1;
  }
}

/** One random step over the world's chats. */
async function step(w: World, chats: Chat[], rnd: () => number, done: Record<string, number>, n: number) {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const chat = pick(chats);
  const inChat = await participantsOf(w, chat);
  if (inChat.length === 0) return;
  const who = member(w, pick(inChat));
  const r = rnd();
  if (r < 0.45) {
    // A post, naming up to two people of the chat (and sometimes one who is not in it).
    const named = [pick([...w.humans, ...w.agents]), pick([...w.humans, ...w.agents])].slice(0, Math.floor(rnd() * 3));
    const body = `${named.map((m) => `@${m.handle}`).join(" ")} step ${n}`.trim();
    await tolerate(done, "post", () => w.hub.messages.post(who, chat.ref, chat.id, { body }));
  } else if (r < 0.65) {
    const limit = 1 + Math.floor(rnd() * 4);
    await tolerate(done, "read", () =>
      w.hub.messages.list(who, chat.ref, chat.id, listMessagesQuery.parse({ limit: String(limit) })),
    );
  } else if (r < 0.7) {
    const [head] = await w.database.sql.query<{ head: number }>(
      "SELECT coalesce(max(seq), 0)::int AS head FROM events",
    );
    const upTo = Math.floor(rnd() * Number(head?.head ?? 0));
    await tolerate(done, "mark read", () => w.hub.messages.markReadUpTo(who, chat.ref, chat.id, upTo));
  } else if (r < 0.78 && !chat.direct) {
    // Anyone but the creator leaves (the creator keeps the chat open and adds people back).
    if (who.id !== chat.creator.id)
      await tolerate(done, "leave", () => w.hub.groups.removeParticipant(who, chat.ref, chat.id, who.id));
  } else if (r < 0.88 && !chat.direct) {
    const out = [...w.humans, ...w.agents].filter((m) => !inChat.includes(m.id));
    if (out.length > 0) {
      const joining = pick(out);
      await tolerate(done, "join", () =>
        w.hub.groups.addParticipant(chat.creator, chat.ref, chat.id, { member_id: joining.id }),
      );
    }
  } else if (r < 0.97) {
    const seqs = await w.database.sql.query<{ seq: number }>(
      "SELECT e.seq FROM events e JOIN conversations c ON c.id = e.conversation_id JOIN projects pr ON pr.id = c.project_id WHERE c.public_id = $1 AND pr.slug = $2 AND e.kind = 'message' AND NOT e.redacted",
      [chat.id, chat.ref.slug],
    );
    const humanThere = w.humans.find((h) => inChat.includes(h.id));
    if (seqs.length > 0 && humanThere)
      await tolerate(done, "redact", () =>
        w.hub.messages.redact(humanThere, chat.ref, chat.id, String(pick(seqs).seq), { reason: null }),
      );
  } else {
    // An agent leaves its project and comes back: its direct conversation gets a new participation.
    const agent = pick(w.agents);
    await tolerate(done, "agent leaves project", () => w.hub.admin.removeMember(chat.ref, agent.id));
    await tolerate(done, "agent rejoins project", () => w.hub.admin.addMember(chat.ref, { member_id: agent.id }));
  }
}

async function expectCountersEqualRecount(w: World): Promise<Recount[]> {
  const rows = await w.database.sql.query<Recount>(RECOUNT_SQL);
  const off = rows.filter(
    (r) => Number(r.unread) !== Number(r.recount_unread) || Number(r.mentions_unread) !== Number(r.recount_mentions),
  );
  expect(off, JSON.stringify(off.slice(0, 5))).toStrictEqual([]);
  // M-227: the list's order key kept on the participation (activity_at, moved by the write, set at
  // the join) and its copies of the conversation's project and direct agent equal the read-time values.
  const orderOff = rows.filter(
    (r) =>
      time(r.activity_at) !== time(r.recount_activity) ||
      r.project_id !== r.conversation_project_id ||
      r.direct_agent_id !== r.conversation_direct_agent_id,
  );
  expect(orderOff, JSON.stringify(orderOff.slice(0, 5))).toStrictEqual([]);
  return rows;
}

describe("participation counters", () => {
  it("M-166 M-117 M-058 after a random run of posts, reads, joins, leaves, rejoins and redactions, every participation's unread, mentions_unread and activity_at equal a recount", async () => {
    const w = await world();
    const chats = await chatsOf(w);
    const rnd = random(SEED);
    const done: Record<string, number> = {};
    for (let n = 0; n < STEPS; n++) await step(w, chats, rnd, done, n);
    // The run did what it says: every kind of step happened, and something is left unread.
    for (const op of ["post", "read", "mark read", "leave", "join", "redact", "agent rejoins project"])
      expect(done[op] ?? 0, `${op}: ${JSON.stringify(done)}`).toBeGreaterThan(0);
    const rows = await expectCountersEqualRecount(w);
    expect(rows.some((r) => Number(r.unread) > 0)).toBe(true);
    expect(rows.some((r) => Number(r.mentions_unread) > 0)).toBe(true);

    // The migration's backfill computes the same counters from the log as the writes kept.
    const migration = readFileSync(
      new URL("../../../prisma/migrations/20261206210000_participation_counters/migration.sql", import.meta.url),
      "utf8",
    );
    const backfill = migration.slice(migration.indexOf("UPDATE"));
    await w.database.sql.query("UPDATE participations SET unread = 0, mentions_unread = 0");
    await w.database.sql.exec(backfill);
    expect(await expectCountersEqualRecount(w)).toStrictEqual(rows);
    // And the order's backfill (M-227) the activity and the copies the join and the writes kept.
    const order = readFileSync(
      new URL("../../../prisma/migrations/20261207000000_participation_order/migration.sql", import.meta.url),
      "utf8",
    );
    const orderBackfill = order.slice(order.indexOf("UPDATE"), order.indexOf("ALTER TABLE", order.indexOf("UPDATE")));
    await w.database.sql.query(
      "UPDATE participations SET activity_at = '2000-01-01', project_id = 'none', direct_agent_id = NULL",
    );
    await w.database.sql.exec(orderBackfill);
    expect(await expectCountersEqualRecount(w)).toStrictEqual(rows);

    // M-224: the list's totals are the sums of the caller's counters, the list's items show them.
    for (const h of w.humans) {
      const list = await w.hub.conversations.mine(h, { limit: 200, observed: true });
      const items = list.items.filter((i) => i.access !== "observer");
      expect(list.totals).toStrictEqual({
        unread: items.reduce((s, i) => s + (i.unread ?? 0), 0),
        mentions_unread: items.reduce((s, i) => s + (i.mentions_unread ?? 0), 0),
      });
      for (const item of items) {
        const row = rows.find((r) => r.member_id === h.id && r.public_id === item.id && r.slug === item.project.slug);
        expect(item.unread).toBe(Number(row?.recount_unread));
        expect(item.mentions_unread).toBe(Number(row?.recount_mentions));
      }
    }
    // The webhook worker's batch rule (agentsInRoom) is visibility's `mine` rule for many agents at
    // once, written a second time in SQL: after this run (leaves, rejoins, an agent out of and back in
    // its project) both answer the same for every conversation and agent — and again once an agent is
    // out of its project for good (its direct conversation is then no longer its).
    const sameRule = async () => {
      const keys = await w.database.sql.query<{ id: string }>("SELECT id FROM conversations ORDER BY id");
      for (const { id: key } of keys) {
        const batch = await agentsInRoom(
          w.hub.db,
          { key } as KeyRow,
          w.agents.map((a) => a.id),
        );
        for (const agent of w.agents) {
          const [alone] = await readKeys(w.hub.db, agent, { conversationKey: key, observed: false, lean: true });
          expect(batch.has(agent.id), `${agent.handle} in ${key}`).toBe(alone !== undefined);
          if (alone) expect(batch.get(agent.id)?.windowSeq).toBe(alone.windowSeq);
        }
      }
    };
    await sameRule();
    const gone = w.agents[0] as AgentCaller;
    for (const ref of w.refs) await w.hub.admin.removeMember(ref, gone.id).catch(() => {});
    await sameRule();
  });

  it("M-166 writers and readers at once (two app instances on PostgreSQL) lose no step of a counter", async () => {
    const w = await world();
    const chats = await chatsOf(w);
    // The second instance: its own pool on the same PostgreSQL database; on PGlite the same hub.
    const url = (w.database as Database & { url: string | null }).url;
    const other: Hub = url
      ? createHub(await openDatabase({ databaseUrl: url }), {
          groupChatQuota: 1000,
          pingRate: { pings: 1_000_000, windowSeconds: 60 },
        })
      : w.hub;
    if (url) databases.push({ ...w.database, close: () => other.close() });
    const done: Record<string, number> = {};
    const workers = Array.from({ length: 6 }, (_, k) => {
      const rnd = random(SEED * 100 + k);
      const ww: World = { ...w, hub: k % 2 === 0 ? w.hub : other };
      return (async () => {
        for (let n = 0; n < 40; n++) await step(ww, chats, rnd, done, n);
      })();
    });
    await Promise.all(workers);
    expect(done.post ?? 0).toBeGreaterThan(0);
    expect((done.read ?? 0) + (done["mark read"] ?? 0)).toBeGreaterThan(0);
    await expectCountersEqualRecount(w);
  });
});
