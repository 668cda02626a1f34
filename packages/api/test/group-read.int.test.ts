import { type BusMessage, type Hub, reaches } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";
import { readSettings } from "../src/config.ts";

// §9.2 What a participant reads, the owner reading along (member and outside the project), wake,
// mentions and the ping rate, redaction, the message shape and read/unread in group chats
// (requirements M-116 … M-167, with M-252/M-253/M-255 where they apply).

const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const published: BusMessage[] = [];
const unsubscribe = hub.bus.subscribe((message) => published.push(message));
afterAll(() => unsubscribe());

type Res = Awaited<ReturnType<typeof rest>>;
type Msg = {
  seq: number;
  id: string;
  body: string | null;
  mentions: unknown[];
  attachments: unknown[];
  redaction: { at: string; by: string; reason: string | null } | null;
};
type Ev = {
  seq: number;
  kind: string;
  conversation_id: string;
  payload?: { conversation?: Record<string, unknown>; changed?: Record<string, unknown> };
};
type Item = {
  id: string;
  unread: number | null;
  mentions_unread: number | null;
  access: string;
  last_message: { seq: number } | null;
};

const L = "/api/projects/maintainer/lab";
const F = "/api/projects/maintainer/far";
const NOWHERE = "/api/projects/nobody/none";
const MISSING = "cnv-9999";
const tokens: Record<string, string> = {};
const admin = (method: string, path: string, body?: unknown) => rest(method, path, { token: ADMIN, body });

function tok(id: string): string {
  const token = tokens[id];
  if (!token) throw new Error(`no token for ${id}`);
  return token;
}
function at(list: number[], i: number): number {
  const v = list[i];
  if (v === undefined) throw new Error(`no seq at ${i}`);
  return v;
}
const chatPath = (project: string, chat: string) => `${project}/conversations/${chat}`;
const seqsOf = (res: Res): number[] => res.body.items.map((m: Msg) => m.seq);

async function createChat(project: string, who: string, participants: string[], title: string): Promise<string> {
  const res = await rest("POST", `${project}/conversations`, { token: tok(who), body: { title, participants } });
  expect(res.status).toBe(201);
  return res.body.id;
}
async function addTo(project: string, who: string, chat: string, memberId: string): Promise<Res> {
  const res = await rest("POST", `${chatPath(project, chat)}/participants`, {
    token: tok(who),
    body: { member_id: memberId },
  });
  expect(res.status).toBe(200);
  return res;
}
async function say(
  project: string,
  who: string,
  chat: string,
  body: string,
  headers?: Record<string, string>,
): Promise<Msg> {
  const res = await rest("POST", `${chatPath(project, chat)}/messages`, {
    token: tok(who),
    body: { body },
    ...(headers ? { headers } : {}),
  });
  expect(res.status).toBe(201);
  return res.body;
}
const read = (project: string, who: string, chat: string, query = "") =>
  rest("GET", `${chatPath(project, chat)}/messages${query}`, { token: tok(who) });
async function listOf(project: string, who: string, observed = false): Promise<Item[]> {
  const res = await rest("GET", `${project}/conversations?limit=200${observed ? "&observed=true" : ""}`, {
    token: tok(who),
  });
  expect(res.status).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body.items;
}
const itemOf = async (project: string, who: string, chat: string, observed = false): Promise<Item | undefined> =>
  (await listOf(project, who, observed)).find((i) => i.id === chat);
async function counts(project: string, who: string, chat: string) {
  const item = await itemOf(project, who, chat);
  if (!item) throw new Error(`${chat} is not in the list of ${who}`);
  return { unread: item.unread, mentions_unread: item.mentions_unread };
}
/** The caller's whole readable set of GET /events, paged. */
async function events(project: string, who: string): Promise<Ev[]> {
  const out: Ev[] = [];
  let after = 0;
  for (;;) {
    const res = await rest("GET", `${project}/events?after=${after}&limit=200`, { token: tok(who) });
    expect(res.status).toBe(200);
    out.push(...res.body.items);
    if (res.body.next_cursor === null) return out;
    after = Number(res.body.next_cursor);
  }
}
const audience = async (seq: number): Promise<string[]> =>
  (await hub.db.eventAudience.findMany({ where: { eventSeq: seq }, select: { memberId: true } }))
    .map((a) => a.memberId)
    .sort();
/** "Wakes a human": the human is in the audience and is not the author. */
const wokenHumans = async (seq: number, author: string): Promise<string[]> =>
  (await audience(seq)).filter((id) => id.startsWith("hum-") && id !== author);
const verdicts = (seq: number) =>
  hub.db.routingVerdict.findMany({
    where: { eventSeq: seq },
    select: { agentId: true, instanceId: true, shouldRespond: true, reason: true },
    orderBy: { agentId: "asc" },
  });
const markers = (chat: string) =>
  hub.db.participation.findMany({
    where: { conversation: { publicId: chat } },
    select: { memberId: true, leftAt: true, readMarkerSeq: true },
    orderBy: { id: "asc" },
  });
const eventCount = () => hub.db.event.count();
const lastEventOf = async (chat: string, kind: string) =>
  hub.db.event.findFirstOrThrow({
    where: { conversation: { publicId: chat }, kind },
    orderBy: { seq: "desc" },
    select: { seq: true },
  });

const OBSERVER = {
  status: 403,
  body: {
    error: {
      code: "forbidden",
      message: "an observer reads along and does not write",
      details: { reason: "observer" },
    },
  },
};

beforeAll(async () => {
  for (const [handle, name] of [
    ["maintainer", "Maintainer"],
    ["guest", "Guest"],
    ["carol", "Carol Jones"],
    ["dave", "Dave"],
    ["olga", "Olga"],
    ["sam", "Sam"],
    ["pat", "Pat"],
  ] as const) {
    // One Bay for all (DESIGN §4c): §9's rules among a team's own agents, none of them a visitor.
    const bay = handle === "maintainer" ? undefined : "maintainer";
    expect(
      (await admin("POST", "/api/admin/humans", { handle, name, password: `${handle}-password`, bay })).status,
    ).toBe(201);
  }
  for (const [owner, handle, id] of [
    ["maintainer", "agent-a", "agt-a"],
    ["guest", "agent-x", "agt-x"],
    ["dave", "agent-d", "agt-d"],
    ["olga", "agent-o", "agt-o"],
    ["sam", "agent-s", "agt-s"],
  ] as const) {
    const res = await admin("POST", "/api/admin/agents", { owner, handle });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(id);
  }
  for (const slug of ["lab", "far", "old"])
    expect((await admin("POST", "/api/admin/projects", { owner: "maintainer", slug, name: slug })).status).toBe(201);
  // lab: olga's agent is a member, olga is not (she reads along from outside); sam and his agent are in nothing.
  for (const id of ["hum-guest", "hum-carol", "hum-dave", "hum-pat", "agt-a", "agt-x", "agt-d", "agt-o"])
    expect((await admin("POST", "/api/admin/projects/maintainer/lab/members", { member_id: id })).status).toBe(201);
  for (const id of ["hum-guest", "hum-carol", "agt-a", "agt-o"])
    expect((await admin("POST", "/api/admin/projects/maintainer/far/members", { member_id: id })).status).toBe(201);
  expect((await admin("POST", "/api/admin/projects/maintainer/old/members", { member_id: "hum-guest" })).status).toBe(
    201,
  );
  for (const id of [
    "hum-maintainer",
    "hum-guest",
    "hum-carol",
    "hum-dave",
    "hum-olga",
    "hum-sam",
    "hum-pat",
    "agt-a",
    "agt-x",
    "agt-d",
    "agt-o",
  ]) {
    const res = await admin("POST", "/api/admin/tokens", { member_id: id });
    expect(res.status).toBe(201);
    tokens[id] = res.body.token;
  }
});

describe("windows and history (§9.2 What a participant reads)", () => {
  let W = "";
  const m: number[] = [];
  beforeAll(async () => {
    W = await createChat(L, "hum-maintainer", ["hum-guest", "agt-a"], "Window");
    const other = await createChat(L, "hum-maintainer", ["hum-guest"], "Elsewhere");
    m[1] = (await say(L, "hum-maintainer", W, "one")).seq;
    m[2] = (await say(L, "hum-guest", W, "two, @carol is not here yet")).seq;
    await say(L, "hum-guest", other, "said in another chat, between two and three");
    m[3] = (await say(L, "agt-a", W, "three")).seq;
    await addTo(L, "hum-maintainer", W, "hum-carol");
    m[4] = (await say(L, "hum-maintainer", W, "four, welcome @carol")).seq;
    m[5] = (await say(L, "hum-guest", W, "five")).seq;
  });

  it("M-116 M-117 M-118 M-155 a participant added later reads from its join on; nothing said before counts for it, wakes it or is addressed to it", async () => {
    expect(await counts(L, "hum-carol", W)).toEqual({ unread: 2, mentions_unread: 1 });
    expect((await itemOf(L, "hum-carol", W))?.last_message?.seq).toBe(m[5]);
    for (const seq of [at(m, 1), at(m, 2), at(m, 3)])
      expect(await audience(seq)).toEqual(["agt-a", "hum-guest", "hum-maintainer"]);
    for (const seq of [at(m, 4), at(m, 5)])
      expect(await audience(seq)).toEqual(["agt-a", "hum-carol", "hum-guest", "hum-maintainer"]);
    // "@carol" before she took part is plain text; after, it resolves.
    const history = await read(L, "hum-maintainer", W, `?before=${at(m, 5)}`);
    expect(history.body.items.map((x: Msg) => x.mentions)).toEqual([
      [],
      [],
      [],
      [{ member_id: "hum-carol", handle: "carol", field: "body", offset: 14, length: 6 }],
    ]);

    const window = await read(L, "hum-carol", W);
    expect(window.status).toBe(200);
    expect(Object.keys(window.body).sort()).toEqual(["items", "next_cursor"]);
    expect(seqsOf(window)).toEqual([m[4], m[5]]);
    expect(window.body.next_cursor).toBeNull();
    // after= never reaches below the window.
    expect(seqsOf(await read(L, "hum-carol", W, "?after=0"))).toEqual([m[4], m[5]]);
    expect(seqsOf(await read(L, "hum-carol", W, `?after=${at(m, 1)}`))).toEqual([m[4], m[5]]);
    expect(await counts(L, "hum-carol", W)).toEqual({ unread: 0, mentions_unread: 0 });
  });

  it("M-127 M-128 a former participant gets not_found on …/messages and loses the chat from its list, but keeps the events that named it", async () => {
    const left = await rest("DELETE", `${chatPath(L, W)}/participants/hum-carol`, { token: tok("hum-carol") });
    expect(left).toEqual({
      status: 200,
      body: { member_id: "hum-carol", joined_at: expect.any(String), left_at: expect.any(String), reason: "left" },
    });
    m[6] = (await say(L, "hum-guest", W, "six, while carol is away")).seq;
    for (const suffix of ["/messages", `/messages?before=${at(m, 6)}`, "/messages?after=0", ""]) {
      const hidden = await rest("GET", `${chatPath(L, W)}${suffix}`, { token: tok("hum-carol") });
      const none = await rest("GET", `${chatPath(L, MISSING)}${suffix}`, { token: tok("hum-carol") });
      expect(hidden).toEqual(none);
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe("not_found");
    }
    expect(await itemOf(L, "hum-carol", W)).toBeUndefined();
    expect(await itemOf(L, "hum-carol", W, true)).toBeUndefined();
    const me = await rest("GET", "/api/me/conversations?observed=true&limit=200", { token: tok("hum-carol") });
    expect(me.status).toBe(200);
    expect(me.body.items.map((i: Item) => i.id)).not.toContain(W);
    // Nor does it write there: both post routes answer as for a chat that does not exist.
    const count = await eventCount();
    const post = await rest("POST", `${chatPath(L, W)}/messages`, {
      token: tok("hum-carol"),
      body: { body: "still here?" },
    });
    expect(post).toEqual(
      await rest("POST", `${chatPath(L, MISSING)}/messages`, {
        token: tok("hum-carol"),
        body: { body: "still here?" },
      }),
    );
    expect(post.status).toBe(404);
    const viaEvents = await rest("POST", `${L}/events`, {
      token: tok("hum-carol"),
      body: { type: "chat", conversation_id: W, body: "still here?" },
    });
    expect(viaEvents).toEqual(
      await rest("POST", `${L}/events`, {
        token: tok("hum-carol"),
        body: { type: "chat", conversation_id: MISSING, body: "still here?" },
      }),
    );
    expect(viaEvents.status).toBe(404);
    expect(await eventCount()).toBe(count);
    const named = (await events(L, "hum-carol"))
      .filter((e) => e.conversation_id === W)
      .map((e) => (e.kind === "message" ? e.seq : `${e.kind} ${JSON.stringify(e.payload?.changed)}`));
    expect(named).toEqual([
      `conversation_updated ${JSON.stringify({ participants: { added: ["hum-carol"] } })}`,
      m[4],
      m[5],
      `conversation_updated ${JSON.stringify({ participants: { removed: ["hum-carol"] } })}`,
    ]);
  });

  it("M-116 M-117 a re-joined participant's window restarts at the new join", async () => {
    const again = await addTo(L, "hum-maintainer", W, "hum-carol");
    expect(again.body.participants.at(-1)).toMatchObject({ member_id: "hum-carol", kind: "human" });
    m[7] = (await say(L, "agt-a", W, "seven")).seq;
    expect(await counts(L, "hum-carol", W)).toEqual({ unread: 1, mentions_unread: 0 });
    const window = await read(L, "hum-carol", W);
    expect(window.body).toEqual({ items: [expect.objectContaining({ seq: m[7], body: "seven" })], next_cursor: null });
    expect(await counts(L, "hum-carol", W)).toEqual({ unread: 0, mentions_unread: 0 });
    expect(seqsOf(await read(L, "hum-carol", W, "?after=0"))).toEqual([m[7]]);
  });

  it("M-119 M-121 before pages back to the chat's first message whenever the reader joined; earlier is the next before, null at the start", async () => {
    const p1 = await read(L, "hum-carol", W, `?before=${at(m, 7)}&limit=3`);
    expect(p1.status).toBe(200);
    expect(Object.keys(p1.body).sort()).toEqual(["earlier", "items"]);
    expect(seqsOf(p1)).toEqual([m[4], m[5], m[6]]);
    expect(p1.body.earlier).toBe(m[4]);
    // The page that reaches the first message exactly says so.
    const p2 = await read(L, "hum-carol", W, `?before=${p1.body.earlier}&limit=3`);
    expect(seqsOf(p2)).toEqual([m[1], m[2], m[3]]);
    expect(p2.body.items.map((x: Msg) => x.body)).toEqual(["one", "two, @carol is not here yet", "three"]);
    expect(p2.body.earlier).toBeNull();
    const p3 = await read(L, "hum-carol", W, `?before=${at(m, 3)}&limit=1`);
    expect(p3.body).toEqual({ items: [expect.objectContaining({ seq: m[2] })], earlier: m[2] });
    expect(await read(L, "hum-carol", W, `?before=${at(m, 2)}`)).toEqual({
      status: 200,
      body: { items: [expect.objectContaining({ seq: m[1] })], earlier: null },
    });
    expect(await read(L, "hum-carol", W, `?before=${at(m, 1)}`)).toEqual({
      status: 200,
      body: { items: [], earlier: null },
    });
    // The newcomer's history is the chat's, message for message.
    const all = await read(L, "hum-carol", W, `?before=${at(m, 7) + 1}`);
    expect(seqsOf(all)).toEqual(m.slice(1, 8));
    expect(all).toEqual(await read(L, "hum-guest", W, `?before=${at(m, 7) + 1}`));
  });

  it("M-123 M-130 every current participant and every observer pages back with before, to the first message", async () => {
    await addTo(L, "hum-maintainer", W, "agt-d");
    await addTo(L, "hum-maintainer", W, "agt-o");
    m[8] = (await say(L, "hum-maintainer", W, "eight")).seq;
    const view = await rest("GET", chatPath(L, W), { token: tok("hum-dave") });
    expect(view.body).toMatchObject({ access: "observer", observers: ["hum-dave", "hum-olga"] });
    expect((await rest("GET", chatPath(L, W), { token: tok("hum-olga") })).body).toMatchObject({
      access: "observer",
      observers: ["hum-dave", "hum-olga"],
    });
    for (const who of ["hum-maintainer", "hum-guest", "hum-carol", "agt-a", "agt-d", "agt-o", "hum-dave", "hum-olga"]) {
      const res = await read(L, who, W, `?before=${at(m, 8)}`);
      expect({ who, status: res.status, seqs: seqsOf(res), earlier: res.body.earlier }).toEqual({
        who,
        status: 200,
        seqs: m.slice(1, 8),
        earlier: null,
      });
    }
    // Their windows start where their agents joined.
    for (const who of ["hum-dave", "hum-olga"]) expect(seqsOf(await read(L, who, W, "?after=0"))).toEqual([m[8]]);
  });

  it("M-124 reading the history marks nothing read and wakes nobody", async () => {
    expect(await counts(L, "hum-guest", W)).toEqual({ unread: 2, mentions_unread: 0 });
    const before = {
      markers: await markers(W),
      events: await eventCount(),
      verdicts: await hub.db.routingVerdict.count(),
      audience: await hub.db.eventAudience.count(),
    };
    for (const who of ["hum-guest", "agt-a", "hum-carol", "agt-d"]) {
      const res = await read(L, who, W, "?before=999999999");
      expect(res.body).toEqual({ items: expect.any(Array), earlier: null });
      expect(seqsOf(res)).toEqual(m.slice(1, 9));
    }
    expect({
      markers: await markers(W),
      events: await eventCount(),
      verdicts: await hub.db.routingVerdict.count(),
      audience: await hub.db.eventAudience.count(),
    }).toEqual(before);
    expect(await counts(L, "hum-guest", W)).toEqual({ unread: 2, mentions_unread: 0 });
    expect(await counts(L, "agt-d", W)).toEqual({ unread: 1, mentions_unread: 0 });
  });

  it("M-122 after and before together are invalid, and read nothing", async () => {
    const before = await markers(W);
    const invalid = {
      status: 400,
      body: {
        error: {
          code: "invalid",
          message: "after and before together are invalid",
          details: { fields: { before: "not_with_after" } },
        },
      },
    };
    expect(await read(L, "hum-guest", W, `?after=0&before=${at(m, 8)}`)).toEqual(invalid);
    expect(await read(L, "hum-guest", W, `?before=${at(m, 8)}&after=${at(m, 2)}&limit=5`)).toEqual(invalid);
    expect(await markers(W)).toEqual(before);
    expect(await counts(L, "hum-guest", W)).toEqual({ unread: 2, mentions_unread: 0 });
  });

  it("M-126 M-128 messages sent before a participant joined never enter its GET /events readable set", async () => {
    const ofW = (list: Ev[]) => list.filter((e) => e.conversation_id === W && e.kind === "message").map((e) => e.seq);
    expect(ofW(await events(L, "agt-d"))).toEqual([m[8]]);
    expect(ofW(await events(L, "agt-o"))).toEqual([m[8]]);
    expect(ofW(await events(L, "hum-carol"))).toEqual([m[4], m[5], m[7], m[8]]);
    expect(ofW(await events(L, "hum-guest"))).toEqual(m.slice(1, 9));
  });

  it("M-120 M-121 M-129 limit defaults to 50 and is at most 200, reading forward with after=<cursor> and back with before", async () => {
    const B = await createChat(L, "hum-maintainer", ["hum-guest"], "Long");
    const b: number[] = [];
    for (let i = 1; i <= 205; i++) b.push((await say(L, "hum-maintainer", B, `b${i}`)).seq);
    const range = (from: number, to: number) => b.slice(from - 1, to);
    const f1 = await read(L, "hum-guest", B);
    expect(seqsOf(f1)).toEqual(range(1, 50));
    expect(f1.body.next_cursor).toBe(String(b[49]));
    const f2 = await read(L, "hum-guest", B, `?after=${f1.body.next_cursor}`);
    expect(seqsOf(f2)).toEqual(range(51, 100));
    expect(f2.body.next_cursor).toBe(String(b[99]));
    const f3 = await read(L, "hum-guest", B, "?after=0&limit=200");
    expect(seqsOf(f3)).toEqual(range(1, 200));
    expect(f3.body.next_cursor).toBe(String(b[199]));
    const f4 = await read(L, "hum-guest", B, `?after=${f3.body.next_cursor}&limit=200`);
    expect(f4.body).toEqual({ items: expect.any(Array), next_cursor: null });
    expect(seqsOf(f4)).toEqual(range(201, 205));

    const top = at(b, 204) + 1;
    const h1 = await read(L, "hum-guest", B, `?before=${top}`);
    expect(seqsOf(h1)).toEqual(range(156, 205));
    expect(h1.body.earlier).toBe(b[155]);
    const h2 = await read(L, "hum-guest", B, `?before=${top}&limit=200`);
    expect(seqsOf(h2)).toEqual(range(6, 205));
    expect(h2.body.earlier).toBe(b[5]);
    const h3 = await read(L, "hum-guest", B, `?before=${h2.body.earlier}&limit=200`);
    expect(h3.body).toEqual({ items: expect.any(Array), earlier: null });
    expect(seqsOf(h3)).toEqual(range(1, 5));

    const marked = await markers(B);
    const tooMany = {
      status: 400,
      body: {
        error: { code: "invalid", message: "invalid input: limit", details: { fields: { limit: "at most 200" } } },
      },
    };
    expect(await read(L, "hum-guest", B, "?limit=201")).toEqual(tooMany);
    expect(await read(L, "hum-guest", B, `?before=${top}&limit=201`)).toEqual(tooMany);
    expect(await read(L, "hum-guest", B, "?after=0&limit=0")).toEqual({
      status: 400,
      body: {
        error: { code: "invalid", message: "invalid input: limit", details: { fields: { limit: "at least 1" } } },
      },
    });
    expect(await markers(B)).toEqual(marked);
  });
});

describe("the agent's owner reads along (§9.2, a member observer)", () => {
  let R = "";
  const r: number[] = [];
  beforeAll(async () => {
    R = await createChat(L, "hum-guest", ["hum-carol"], "Reading along");
    r[1] = (await say(L, "hum-guest", R, "r1 before the agent")).seq;
    r[2] = (await say(L, "hum-carol", R, "r2 before the agent")).seq;
    await addTo(L, "hum-guest", R, "agt-d");
    r[3] = (await say(L, "hum-guest", R, "@agent-d have a look")).seq;
    r[4] = (await say(L, "hum-carol", R, "r4")).seq;
  });

  it("M-131 the owner of an agent participant is listed under observers and sees access observer, the room as everyone sees it", async () => {
    const guestView = await rest("GET", chatPath(L, R), { token: tok("hum-guest") });
    expect(guestView.body).toMatchObject({ access: "participant", observers: ["hum-dave"] });
    const daveView = await rest("GET", chatPath(L, R), { token: tok("hum-dave") });
    expect(daveView).toEqual({ status: 200, body: { ...guestView.body, access: "observer" } });
    expect(await itemOf(L, "hum-dave", R)).toBeUndefined();
    expect(await itemOf(L, "hum-dave", R, true)).toMatchObject({
      id: R,
      access: "observer",
      unread: null,
      mentions_unread: null,
      observers: ["hum-dave"],
    });
  });

  it("M-130 the member owner reads its agent's window with …/messages, the history before it with before, and the agent's events with GET /events", async () => {
    const window = await read(L, "hum-dave", R);
    expect(window.body).toEqual({ items: expect.any(Array), next_cursor: null });
    expect(seqsOf(window)).toEqual([r[3], r[4]]);
    expect(seqsOf(await read(L, "hum-dave", R, "?after=0"))).toEqual([r[3], r[4]]);
    // The same messages the chat holds (read through the history, which moves no marker).
    expect(window.body.items).toEqual((await read(L, "hum-guest", R, `?before=${at(r, 4) + 1}`)).body.items.slice(2));
    const history = await read(L, "hum-dave", R, `?before=${at(r, 3)}`);
    expect(history.body).toEqual({ items: expect.any(Array), earlier: null });
    expect(seqsOf(history)).toEqual([r[1], r[2]]);
    const ofR = (list: Ev[]) => list.filter((e) => e.conversation_id === R && e.kind === "message").map((e) => e.seq);
    expect(ofR(await events(L, "hum-dave"))).toEqual([r[3], r[4]]);
    expect(ofR(await events(L, "agt-d"))).toEqual([r[3], r[4]]);
  });

  it("M-132 an observer is never in an audience and is never woken", async () => {
    const all = await hub.db.event.findMany({
      where: { conversation: { publicId: R } },
      select: { seq: true, kind: true },
      orderBy: { seq: "asc" },
    });
    expect(all.map((e) => e.kind)).toEqual([
      "conversation_created",
      "message",
      "message",
      "conversation_updated",
      "message",
      "message",
    ]);
    for (const e of all) expect(await audience(e.seq)).not.toContain("hum-dave");
    expect(await audience(at(r, 3))).toEqual(["agt-d", "hum-carol", "hum-guest"]);
    expect(await wokenHumans(at(r, 3), "hum-guest")).toEqual(["hum-carol"]);
    expect(await verdicts(at(r, 3))).toEqual([
      { agentId: "agt-d", instanceId: null, shouldRespond: true, reason: "mentioned" },
    ]);
  });

  it("M-133 an observer's post (chat route or POST /events), rename or participant change is forbidden with reason observer; nothing is written", async () => {
    const count = await eventCount();
    const view = await rest("GET", chatPath(L, R), { token: tok("hum-guest") });
    const token = tok("hum-dave");
    expect(await rest("POST", `${chatPath(L, R)}/messages`, { token, body: { body: "may I?" } })).toEqual(OBSERVER);
    expect(
      await rest("POST", `${L}/events`, { token, body: { type: "chat", conversation_id: R, body: "may I?" } }),
    ).toEqual(OBSERVER);
    expect(await rest("PATCH", chatPath(L, R), { token, body: { title: "Mine now" } })).toEqual(OBSERVER);
    expect(
      await rest("POST", `${chatPath(L, R)}/participants`, { token, body: { member_id: "hum-maintainer" } }),
    ).toEqual(OBSERVER);
    for (const member of ["agt-d", "hum-carol", "hum-dave"])
      expect(await rest("DELETE", `${chatPath(L, R)}/participants/${member}`, { token })).toEqual(OBSERVER);
    expect(await eventCount()).toBe(count);
    expect(await rest("GET", chatPath(L, R), { token: tok("hum-guest") })).toEqual(view);
  });

  it("M-134 an observer cannot redact: forbidden with reason observer, the message stays", async () => {
    const redactions = await hub.db.redaction.count();
    expect(
      await rest("POST", `${chatPath(L, R)}/messages/${at(r, 1)}/redact`, {
        token: tok("hum-dave"),
        body: { reason: "mine to hide" },
      }),
    ).toEqual(OBSERVER);
    expect(
      await rest("POST", `${chatPath(L, R)}/messages/${at(r, 3)}/redact`, { token: tok("hum-dave"), body: {} }),
    ).toEqual(OBSERVER);
    expect(await hub.db.redaction.count()).toBe(redactions);
    expect(
      await hub.db.event.findUniqueOrThrow({ where: { seq: at(r, 1) }, select: { redacted: true, body: true } }),
    ).toEqual({ redacted: false, body: "r1 before the agent" });
  });

  it("M-135 an observer's reads mark nothing read, neither for itself nor for its agent", async () => {
    expect(await counts(L, "agt-d", R)).toEqual({ unread: 2, mentions_unread: 1 });
    const before = await markers(R);
    await read(L, "hum-dave", R);
    await read(L, "hum-dave", R, "?after=0&limit=200");
    await read(L, "hum-dave", R, `?before=${at(r, 4) + 1}`);
    expect(await markers(R)).toEqual(before);
    expect(await counts(L, "agt-d", R)).toEqual({ unread: 2, mentions_unread: 1 });
    expect(await itemOf(L, "hum-dave", R, true)).toMatchObject({ unread: null, mentions_unread: null });
  });
});

describe("an owner outside the project (§9.2, a non-member observer)", () => {
  let O1 = "";
  let O2 = "";
  let O3 = "";
  const o: number[] = [];
  beforeAll(async () => {
    O1 = await createChat(F, "hum-guest", ["hum-carol", "agt-a", "agt-o"], "Far room");
    O2 = await createChat(F, "hum-guest", ["hum-carol"], "No agent of olga");
    O3 = await createChat(F, "hum-guest", ["agt-o"], "Guest and agent-o");
    o[1] = (await say(F, "hum-guest", O1, "@agent-o hello")).seq;
    o[2] = (await say(F, "hum-carol", O1, "o2")).seq;
    o[3] = (await say(F, "agt-o", O1, "o3 from the agent")).seq;
    o[4] = (await say(F, "hum-guest", O2, "o4 where olga has no agent")).seq;
    o[5] = (await say(F, "hum-guest", O3, "o5")).seq;
  });

  it("M-137 M-131 the owner outside is listed under observers of exactly the chats its agent is in", async () => {
    expect((await rest("GET", chatPath(F, O1), { token: tok("hum-guest") })).body.observers).toEqual([
      "hum-maintainer",
      "hum-olga",
    ]);
    expect((await rest("GET", chatPath(F, O2), { token: tok("hum-guest") })).body.observers).toEqual([]);
    expect((await rest("GET", chatPath(F, O3), { token: tok("hum-guest") })).body.observers).toEqual(["hum-olga"]);
  });

  it("M-138 M-139 its list with observed=true holds exactly those chats; without observed=true it is empty", async () => {
    const observed = await listOf(F, "hum-olga", true);
    expect(observed.map((i) => i.id).sort()).toEqual([O1, O3].sort());
    for (const item of observed)
      expect(item).toMatchObject({ access: "observer", unread: null, mentions_unread: null });
    const empty = { status: 200, body: { items: [], next_cursor: null } };
    expect(await rest("GET", `${F}/conversations`, { token: tok("hum-olga") })).toEqual(empty);
    expect(await rest("GET", `${F}/conversations?observed=false`, { token: tok("hum-olga") })).toEqual(empty);
  });

  it("M-140 a human neither a member nor the owner of an agent in the project gets not_found on the list, observed or not", async () => {
    // sam owns agent-s, which is in no project.
    for (const query of ["", "?observed=true", "?observed=false"]) {
      const hidden = await rest("GET", `${F}/conversations${query}`, { token: tok("hum-sam") });
      expect(hidden).toEqual(await rest("GET", `${NOWHERE}/conversations${query}`, { token: tok("hum-sam") }));
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe("not_found");
    }
  });

  it("M-141 M-142 M-163 GET …/conversations/{id} and …/messages answer it as for an observer who is a member", async () => {
    // maintainer is a member observer of O1 (through agent-a, which joined with agent-o).
    const memberView = await rest("GET", chatPath(F, O1), { token: tok("hum-maintainer") });
    expect(memberView.body.access).toBe("observer");
    expect(await rest("GET", chatPath(F, O1), { token: tok("hum-olga") })).toEqual(memberView);
    for (const query of ["", "?after=0", `?before=${at(o, 3)}`, `?before=${at(o, 3) + 1}&limit=2`]) {
      const outside = await read(F, "hum-olga", O1, query);
      expect(outside).toEqual(await read(F, "hum-maintainer", O1, query));
      expect(outside.status).toBe(200);
    }
    const window = await read(F, "hum-olga", O1);
    expect(seqsOf(window)).toEqual([o[1], o[2], o[3]]);
    for (const message of window.body.items as Msg[]) expect(message.attachments).toEqual([]);
    // It re-reads with after=<cursor> while it shows the chat.
    const first = await read(F, "hum-olga", O1, "?limit=1");
    expect(first.body).toEqual({ items: [expect.objectContaining({ seq: o[1] })], next_cursor: String(o[1]) });
    expect(seqsOf(await read(F, "hum-olga", O1, `?after=${first.body.next_cursor}`))).toEqual([o[2], o[3]]);
    expect(await itemOf(F, "hum-olga", O1, true)).toEqual(await itemOf(F, "hum-maintainer", O1, true));
    // (The attachment routes of §8.7 come later; attachments are [] everywhere until then.)
  });

  it("M-143 any write it makes in a chat it reads along is forbidden with reason observer; nothing is written", async () => {
    const count = await eventCount();
    const redactions = await hub.db.redaction.count();
    const view = await rest("GET", chatPath(F, O1), { token: tok("hum-guest") });
    const token = tok("hum-olga");
    expect(await rest("POST", `${chatPath(F, O1)}/messages`, { token, body: { body: "agent-o, do this" } })).toEqual(
      OBSERVER,
    );
    expect(
      await rest("POST", `${F}/events`, {
        token,
        body: { type: "chat", conversation_id: O1, body: "agent-o, do this" },
      }),
    ).toEqual(OBSERVER);
    expect(await rest("PATCH", chatPath(F, O1), { token, body: { title: "Olga's" } })).toEqual(OBSERVER);
    expect(await rest("POST", `${chatPath(F, O1)}/participants`, { token, body: { member_id: "hum-guest" } })).toEqual(
      OBSERVER,
    );
    for (const member of ["agt-o", "hum-carol"])
      expect(await rest("DELETE", `${chatPath(F, O1)}/participants/${member}`, { token })).toEqual(OBSERVER);
    expect(await rest("POST", `${chatPath(F, O1)}/messages/${at(o, 1)}/redact`, { token, body: {} })).toEqual(OBSERVER);
    // The one write it will have, its own agent's wake (PATCH …/participants/{id}), is not built: refused by name.
    const wake = await rest("PATCH", `${chatPath(F, O1)}/participants/agt-o`, { token, body: { wake: "all" } });
    expect(wake).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid",
          message: "per-participation wake is not built",
          details: { fields: { wake: "not_supported" } },
        },
      },
    });
    expect(await eventCount()).toBe(count);
    expect(await hub.db.redaction.count()).toBe(redactions);
    expect(await rest("GET", chatPath(F, O1), { token: tok("hum-guest") })).toEqual(view);
  });

  it("M-144 M-146 M-221 every other read or write of the project answers not_found, and no event reaches it", async () => {
    const token = tok("hum-olga");
    const same = async (path: string, method = "GET", body?: unknown) => {
      const hidden = await rest(method, `${F}${path}`, { token, body });
      expect(hidden).toEqual(await rest(method, `${NOWHERE}${path}`, { token, body }));
      expect(hidden.status).toBe(404);
    };
    await same("/events");
    await same("/events?after=0");
    await same("/conversations", "POST", { title: "From outside", participants: ["hum-guest"] });
    // Its own agent's direct conversation is a read of the project too.
    for (const suffix of ["", "/messages"]) {
      const direct = await rest("GET", `${chatPath(F, "agt-o")}${suffix}`, { token });
      expect(direct).toEqual(await rest("GET", `${chatPath(F, MISSING)}${suffix}`, { token }));
      expect(direct.status).toBe(404);
    }
    const count = await eventCount();
    const post = await rest("POST", `${chatPath(F, "agt-o")}/messages`, { token, body: { body: "hello agent" } });
    expect(post).toEqual(
      await rest("POST", `${chatPath(F, MISSING)}/messages`, { token, body: { body: "hello agent" } }),
    );
    expect(post.status).toBe(404);
    const viaEvents = await rest("POST", `${F}/events`, {
      token,
      body: { type: "chat", conversation_id: "agt-o", body: "hello agent" },
    });
    expect(viaEvents).toEqual(
      await rest("POST", `${F}/events`, {
        token,
        body: { type: "chat", conversation_id: MISSING, body: "hello agent" },
      }),
    );
    expect(viaEvents.status).toBe(404);
    expect(await eventCount()).toBe(count);
    expect(await rest("GET", "/api/me/conversations?observed=true", { token })).toEqual({
      status: 200,
      body: { items: [], next_cursor: null, totals: { unread: 0, mentions_unread: 0 } },
    });
    // No event reaches a non-member: not in any audience, not on the live bus, while its agent's are.
    expect(await hub.db.eventAudience.count({ where: { memberId: "hum-olga" } })).toBe(0);
    expect(published.filter((p) => reaches(p, "agt-o")).length).toBeGreaterThan(0);
    expect(published.filter((p) => reaches(p, "hum-olga"))).toEqual([]);
  });

  it("M-145 a chat none of its agents is in answers not_found, as a chat that does not exist", async () => {
    const token = tok("hum-olga");
    const count = await eventCount();
    const pairs: [string, string, unknown?][] = [
      ["GET", ""],
      ["GET", "/messages"],
      ["GET", `/messages?before=${at(o, 4) + 1}`],
      ["POST", "/messages", { body: "hello" }],
      ["PATCH", "", { title: "x" }],
      ["POST", "/participants", { member_id: "agt-o" }],
      ["DELETE", "/participants/hum-carol"],
      ["POST", `/messages/${at(o, 4)}/redact`, {}],
    ];
    for (const [method, suffix, body] of pairs) {
      const hidden = await rest(method, `${chatPath(F, O2)}${suffix}`, { token, body });
      expect(hidden).toEqual(await rest(method, `${chatPath(F, MISSING)}${suffix}`, { token, body }));
      expect(hidden.status).toBe(404);
    }
    const viaEvents = await rest("POST", `${F}/events`, {
      token,
      body: { type: "chat", conversation_id: O2, body: "hello" },
    });
    expect(viaEvents).toEqual(
      await rest("POST", `${F}/events`, { token, body: { type: "chat", conversation_id: MISSING, body: "hello" } }),
    );
    expect(viaEvents.status).toBe(404);
    expect(await eventCount()).toBe(count);
  });

  it("M-148 the access ends when the agent leaves the chat, and when it leaves the project", async () => {
    const left = await rest("DELETE", `${chatPath(F, O3)}/participants/agt-o`, { token: tok("agt-o") });
    expect(left.body).toMatchObject({ member_id: "agt-o", reason: "left" });
    for (const suffix of ["", "/messages", `/messages?before=${at(o, 5) + 1}`]) {
      const gone = await rest("GET", `${chatPath(F, O3)}${suffix}`, { token: tok("hum-olga") });
      expect(gone).toEqual(await rest("GET", `${chatPath(F, MISSING)}${suffix}`, { token: tok("hum-olga") }));
      expect(gone.status).toBe(404);
    }
    expect((await listOf(F, "hum-olga", true)).map((i) => i.id)).toEqual([O1]);

    expect(await admin("DELETE", "/api/admin/projects/maintainer/far/members/agt-o?reason=removed")).toEqual({
      status: 200,
      body: { member_id: "agt-o", status: "removed" },
    });
    for (const query of ["", "?observed=true"]) {
      const list = await rest("GET", `${F}/conversations${query}`, { token: tok("hum-olga") });
      expect(list).toEqual(await rest("GET", `${NOWHERE}/conversations${query}`, { token: tok("hum-olga") }));
      expect(list.status).toBe(404);
    }
    for (const suffix of ["", "/messages", `/messages?before=${at(o, 3) + 1}`]) {
      const gone = await rest("GET", `${chatPath(F, O1)}${suffix}`, { token: tok("hum-olga") });
      expect(gone).toEqual(await rest("GET", `${chatPath(F, MISSING)}${suffix}`, { token: tok("hum-olga") }));
      expect(gone.status).toBe(404);
    }
    expect((await rest("GET", chatPath(F, O1), { token: tok("hum-guest") })).body.observers).toEqual([
      "hum-maintainer",
    ]);

    // An agent isolated in the project leaves it too (lab, where agent-o is in the chat "Window").
    const lab = (await listOf(L, "hum-olga", true)).map((i) => i.id);
    expect(lab).toHaveLength(1);
    const window = lab[0] ?? "";
    expect((await read(L, "hum-olga", window)).status).toBe(200);
    expect(await admin("DELETE", "/api/admin/projects/maintainer/lab/members/agt-o?reason=isolated")).toEqual({
      status: 200,
      body: { member_id: "agt-o", status: "isolated" },
    });
    for (const suffix of ["", "/messages", "/messages?before=999999999"]) {
      const gone = await rest("GET", `${chatPath(L, window)}${suffix}`, { token: tok("hum-olga") });
      expect(gone).toEqual(await rest("GET", `${chatPath(L, MISSING)}${suffix}`, { token: tok("hum-olga") }));
      expect(gone.status).toBe(404);
    }
    const list = await rest("GET", `${L}/conversations?observed=true`, { token: tok("hum-olga") });
    expect(list).toEqual(await rest("GET", `${NOWHERE}/conversations?observed=true`, { token: tok("hum-olga") }));
    expect((await rest("GET", chatPath(L, window), { token: tok("hum-guest") })).body.observers).toEqual(["hum-dave"]);
  });
});

describe("wake (§9.2 Wake)", () => {
  let K = "";
  beforeAll(async () => {
    K = await createChat(L, "hum-maintainer", ["hum-guest", "agt-a", "agt-x", "agt-d"], "Wake room");
  });
  const notMentioned = (agentId: string) => ({
    agentId,
    instanceId: null,
    shouldRespond: false,
    reason: "not_addressed",
  });
  const mentioned = (agentId: string, instanceId: string | null = null) => ({
    agentId,
    instanceId,
    shouldRespond: true,
    reason: "mentioned",
  });

  it("M-149 M-150 M-132 a group message is addressed to every participant and wakes the human participants other than its author", async () => {
    expect((await rest("GET", chatPath(L, K), { token: tok("hum-maintainer") })).body.observers).toEqual(["hum-dave"]);
    const everyone = ["agt-a", "agt-d", "agt-x", "hum-guest", "hum-maintainer"];
    const k1 = await say(L, "hum-maintainer", K, "@agent-a can we tag today?");
    expect(await audience(k1.seq)).toEqual(everyone);
    expect(await wokenHumans(k1.seq, "hum-maintainer")).toEqual(["hum-guest"]);
    const k2 = await say(L, "hum-guest", K, "fine by me");
    expect(await audience(k2.seq)).toEqual(everyone);
    expect(await wokenHumans(k2.seq, "hum-guest")).toEqual(["hum-maintainer"]);
    const k3 = await say(L, "agt-x", K, "checks are green");
    expect(await audience(k3.seq)).toEqual(everyone);
    expect(await wokenHumans(k3.seq, "agt-x")).toEqual(["hum-guest", "hum-maintainer"]);
    // Naming the observer does not put it in the audience: it is not a participant.
    const k4 = await say(L, "hum-guest", K, "@dave are you reading along?");
    expect(k4.mentions).toEqual([]);
    expect(await audience(k4.seq)).toEqual(everyone);
    expect(await wokenHumans(k4.seq, "hum-guest")).toEqual(["hum-maintainer"]);
  });

  it("M-151 M-077 a human's message wakes an agent participant only when it mentions that agent", async () => {
    const one = await say(L, "hum-maintainer", K, "@agent-a please tag");
    expect(await verdicts(one.seq)).toEqual([mentioned("agt-a"), notMentioned("agt-d"), notMentioned("agt-x")]);
    const none = await say(L, "hum-guest", K, "nobody needs to answer this");
    expect(await verdicts(none.seq)).toEqual([notMentioned("agt-a"), notMentioned("agt-d"), notMentioned("agt-x")]);
    const two = await say(L, "hum-guest", K, "@agent-x and @agent-d, both of you");
    expect(await verdicts(two.seq)).toEqual([notMentioned("agt-a"), mentioned("agt-d"), mentioned("agt-x")]);
  });

  it("M-151 M-080 an agent's message wakes another agent only by mentioning it, and never itself", async () => {
    const plain = await say(L, "agt-x", K, "done");
    expect(await verdicts(plain.seq)).toEqual([
      notMentioned("agt-a"),
      notMentioned("agt-d"),
      { agentId: "agt-x", instanceId: null, shouldRespond: false, reason: "own_message" },
    ]);
    // A human speaks between, so the round cap (004 §4, B-068) does not stop the hand-over.
    await say(L, "hum-guest", K, "ok");
    const handOver = await say(L, "agt-a", K, "@agent-x over to you, says @agent-a");
    expect(await verdicts(handOver.seq)).toEqual([
      { agentId: "agt-a", instanceId: null, shouldRespond: false, reason: "own_message" },
      notMentioned("agt-d"),
      mentioned("agt-x"),
    ]);
  });

  it("M-255 M-162 @handle#instance resolves with its instance and wakes exactly that instance", async () => {
    const msg = await say(L, "hum-maintainer", K, "@agent-a#agt-a-default please, @agent-x");
    expect(msg.mentions).toEqual([
      { member_id: "agt-a", handle: "agent-a", field: "body", offset: 0, length: 22, instance_id: "agt-a-default" },
      { member_id: "agt-x", handle: "agent-x", field: "body", offset: 31, length: 8 },
    ]);
    expect(await verdicts(msg.seq)).toEqual([
      mentioned("agt-a", "agt-a-default"),
      notMentioned("agt-d"),
      mentioned("agt-x"),
    ]);
  });

  it("M-152 M-252 conversation_created and conversation_updated wake no agent; they carry the view and what changed, to the participants", async () => {
    const K2 = await createChat(L, "hum-maintainer", ["hum-guest", "agt-a"], "Quiet");
    const view = await rest("GET", chatPath(L, K2), { token: tok("hum-maintainer") });
    const created = await lastEventOf(K2, "conversation_created");
    expect(await verdicts(created.seq)).toEqual([]);
    expect(await audience(created.seq)).toEqual(["agt-a", "hum-guest", "hum-maintainer"]);
    const { access: _access, pinned: _pinned, ...payloadView } = view.body;
    const createdEvent = (await events(L, "hum-guest")).find((e) => e.seq === created.seq);
    expect(createdEvent).toEqual({
      id: `evt-${created.seq}`,
      seq: created.seq,
      kind: "conversation_created",
      conversation_id: K2,
      from: "hum-maintainer",
      sent_at: expect.any(String),
      payload: { conversation: payloadView },
    });

    const changes: [string, string, unknown, Record<string, unknown>, string[]][] = [
      [
        "POST",
        "/participants",
        { member_id: "agt-x" },
        { participants: { added: ["agt-x"] } },
        ["agt-a", "agt-x", "hum-guest", "hum-maintainer"],
      ],
      [
        "PATCH",
        "",
        { title: "Still quiet" },
        { title: "Still quiet" },
        ["agt-a", "agt-x", "hum-guest", "hum-maintainer"],
      ],
      [
        "DELETE",
        "/participants/agt-x",
        undefined,
        { participants: { removed: ["agt-x"] } },
        ["agt-a", "agt-x", "hum-guest", "hum-maintainer"],
      ],
      [
        "DELETE",
        "/participants/agt-a",
        undefined,
        { participants: { removed: ["agt-a"] } },
        ["agt-a", "hum-guest", "hum-maintainer"],
      ],
    ];
    for (const [method, suffix, body, changed, to] of changes) {
      const res = await rest(method, `${chatPath(L, K2)}${suffix}`, { token: tok("hum-maintainer"), body });
      expect(res.status).toBe(200);
      const updated = await lastEventOf(K2, "conversation_updated");
      expect(await verdicts(updated.seq)).toEqual([]);
      expect(await audience(updated.seq)).toEqual(to);
      const event = (await events(L, "hum-guest")).find((e) => e.seq === updated.seq);
      expect(event).toMatchObject({
        kind: "conversation_updated",
        conversation_id: K2,
        from: "hum-maintainer",
        payload: { changed },
      });
      expect(Object.keys(event?.payload?.conversation ?? {}).sort()).toEqual([
        "closed_at",
        "closed_reason",
        "created_at",
        "created_by",
        "custom_rules",
        "designated_agent_id",
        "id",
        "kind",
        "max_agent_rounds",
        "observers",
        "participants",
        "reply_policy",
        "title",
      ]);
    }
    expect(await hub.db.routingVerdict.count({ where: { event: { conversation: { publicId: K2 } } } })).toBe(0);
  });

  it("M-153 B-059 no per-chat switch wakes every agent on every message: OPEN wakes on human messages only, so agents cannot loop", async () => {
    const count = await eventCount();
    const conversations = await hub.db.conversation.count();
    const unknown = (field: string) => ({
      status: 400,
      body: {
        error: {
          code: "invalid",
          message: `invalid input: ${field}`,
          details: { fields: { [field]: "unknown_field" } },
        },
      },
    });
    for (const field of ["wake", "wake_all"])
      expect(await rest("PATCH", chatPath(L, K), { token: tok("hum-maintainer"), body: { [field]: "all" } })).toEqual(
        unknown(field),
      );
    expect(
      (await rest("PATCH", chatPath(L, K), { token: tok("hum-maintainer"), body: { reply_policy: "all" } })).body.error
        .details.fields,
    ).toEqual({
      reply_policy: "one of MENTIONS, DEDICATED, ORCHESTRATOR, ROUTER, OPEN",
    });
    for (const field of ["reply_policy", "wake_all"])
      expect(
        await rest("POST", `${L}/conversations`, {
          token: tok("hum-maintainer"),
          body: { participants: ["hum-guest", "agt-a"], [field]: "all" },
        }),
      ).toEqual(unknown(field));
    expect(await eventCount()).toBe(count);
    expect(await hub.db.conversation.count()).toBe(conversations);
    const view = await rest("GET", chatPath(L, K), { token: tok("hum-maintainer") });
    expect(Object.keys(view.body).sort()).toEqual([
      "access",
      "closed_at",
      "closed_reason",
      "created_at",
      "created_by",
      "custom_rules",
      "designated_agent_id",
      "id",
      "kind",
      "max_agent_rounds",
      "observers",
      "participants",
      "pinned",
      "reply_policy",
      "title",
    ]);
    for (const p of view.body.participants as Record<string, unknown>[]) expect(p).not.toHaveProperty("wake");
    const plain = await say(L, "hum-guest", K, "still only mentions wake anyone");
    expect(await verdicts(plain.seq)).toEqual([notMentioned("agt-a"), notMentioned("agt-d"), notMentioned("agt-x")]);
    // OPEN: every agent answers a human; an agent's message still wakes nobody without a mention.
    expect(
      await rest("PATCH", chatPath(L, K), { token: tok("hum-maintainer"), body: { reply_policy: "OPEN" } }),
    ).toMatchObject({ status: 200, body: { reply_policy: "OPEN" } });
    const open = await say(L, "hum-guest", K, "anyone?");
    expect((await verdicts(open.seq)).map((v) => [v.agentId, v.shouldRespond])).toEqual([
      ["agt-a", true],
      ["agt-d", true],
      ["agt-x", true],
    ]);
    const reply = await say(L, "agt-a", K, "here");
    expect((await verdicts(reply.seq)).map((v) => v.shouldRespond)).toEqual([false, false, false]);
    expect(
      (await rest("PATCH", chatPath(L, K), { token: tok("hum-maintainer"), body: { reply_policy: "MENTIONS" } }))
        .status,
    ).toBe(200);
  });

  it("M-154 the hub inserts no mention of its own, not even of a chat's only agent", async () => {
    const K3 = await createChat(L, "hum-maintainer", ["hum-guest", "agt-x"], "One agent");
    const msg = await say(L, "hum-guest", K3, "can we tag today?");
    expect(msg.mentions).toEqual([]);
    expect(msg.body).toBe("can we tag today?");
    expect(await verdicts(msg.seq)).toEqual([notMentioned("agt-x")]);
  });
});

describe("mentions (§9.2 Mentions, §8.6)", () => {
  let N = "";
  beforeAll(async () => {
    N = await createChat(L, "hum-maintainer", ["hum-guest", "hum-carol", "agt-a"], "Mentions");
  });

  it("M-162 M-160 a mention entry is {member_id, handle, field, offset, length}, spanning @handle", async () => {
    const msg = await say(L, "hum-maintainer", N, "@agent-a can we tag today?");
    expect(msg.mentions).toEqual([{ member_id: "agt-a", handle: "agent-a", field: "body", offset: 0, length: 8 }]);
    expect((await read(L, "hum-guest", N, "?after=0")).body.items.at(-1).mentions).toEqual(msg.mentions);
  });

  it("M-162 M-255 offsets and lengths count code points; names resolve case-insensitively, never inside a word or a longer handle", async () => {
    const body = "👋🏽 hi @guest, @Carol Jones and @MAINTAINER/agent-a; mail@agent-a @agent-ab @agent-a.";
    const msg = await say(L, "hum-maintainer", N, body);
    expect(msg.mentions).toEqual([
      { member_id: "hum-guest", handle: "guest", field: "body", offset: 6, length: 6 },
      { member_id: "hum-carol", handle: "carol", field: "body", offset: 14, length: 12 },
      { member_id: "agt-a", handle: "agent-a", field: "body", offset: 31, length: 19 },
      { member_id: "agt-a", handle: "agent-a", field: "body", offset: 75, length: 8 },
    ]);
    expect(msg.body).toBe(body);
  });

  it("M-155 mentions resolve to current participants only; anyone else's @handle is plain text", async () => {
    const msg = await say(L, "hum-guest", N, "@agent-x @dave @agent-d @olga @agent-o @sam @nobody, anyone?");
    expect(msg.mentions).toEqual([]);
    expect(await verdicts(msg.seq)).toEqual([
      { agentId: "agt-a", instanceId: null, shouldRespond: false, reason: "not_addressed" },
    ]);
    expect(await audience(msg.seq)).toEqual(["agt-a", "hum-carol", "hum-guest", "hum-maintainer"]);
    expect((await hub.db.event.findUniqueOrThrow({ where: { seq: msg.seq }, select: { pings: true } })).pings).toBe(0);
    // A participant who left is plain text again.
    expect((await rest("DELETE", `${chatPath(L, N)}/participants/hum-carol`, { token: tok("hum-carol") })).status).toBe(
      200,
    );
    const after = await say(L, "hum-guest", N, "@carol are you still there?");
    expect(after.mentions).toEqual([]);
    expect(await audience(after.seq)).toEqual(["agt-a", "hum-guest", "hum-maintainer"]);
  });

  it("M-156 a self-mention is listed and costs no ping; a repeated mention is one ping", async () => {
    const self = await say(L, "hum-maintainer", N, "@maintainer note to self");
    expect(self.mentions).toEqual([
      { member_id: "hum-maintainer", handle: "maintainer", field: "body", offset: 0, length: 11 },
    ]);
    expect((await hub.db.event.findUniqueOrThrow({ where: { seq: self.seq }, select: { pings: true } })).pings).toBe(0);
    const twice = await say(L, "hum-maintainer", N, "@guest, yes @guest, and @agent-a");
    expect(twice.mentions.map((x) => (x as { member_id: string }).member_id)).toEqual([
      "hum-guest",
      "hum-guest",
      "agt-a",
    ]);
    expect((await hub.db.event.findUniqueOrThrow({ where: { seq: twice.seq }, select: { pings: true } })).pings).toBe(
      2,
    );
  });

  it("M-156 M-255 the default ping rate is 60 pings per 600 s per writer; over it the message is refused whole", async () => {
    const P = await createChat(L, "hum-pat", ["hum-guest", "hum-carol", "hum-dave"], "Pings");
    for (let i = 1; i <= 20; i++) await say(L, "hum-pat", P, `@guest @carol @dave round ${i}`);
    const count = await eventCount();
    const limited = {
      status: 429,
      body: {
        error: {
          code: "rate_limited",
          message: "at most 60 pings per 600 s",
          details: { limit: "pings", pings: 60, window_seconds: 600 },
        },
      },
    };
    expect(
      await rest("POST", `${chatPath(L, P)}/messages`, { token: tok("hum-pat"), body: { body: "@guest one more" } }),
    ).toEqual(limited);
    expect(
      await rest("POST", `${L}/events`, {
        token: tok("hum-pat"),
        body: { type: "chat", conversation_id: P, body: "@guest one more" },
      }),
    ).toEqual(limited);
    expect(await eventCount()).toBe(count);
    // What costs no ping still posts; another writer has its own rate.
    await say(L, "hum-pat", P, "no mention, no ping; @pat neither");
    await say(L, "hum-guest", P, "@pat @carol @dave");
  });
});

describe("redaction in group chats (§9.2, §8.5)", () => {
  let D = "";
  let elsewhere = 0;
  const d: number[] = [];
  beforeAll(async () => {
    D = await createChat(L, "hum-maintainer", ["hum-guest", "hum-carol", "agt-a", "agt-d"], "Secrets");
    d[1] = (await say(L, "agt-a", D, "the key is hunter2")).seq;
    d[2] = (await say(L, "hum-guest", D, "@agent-a please take that out")).seq;
    d[3] = (await say(L, "hum-maintainer", D, "thanks")).seq;
    const other = await createChat(L, "hum-maintainer", ["hum-guest"], "Not carol's");
    elsewhere = (await say(L, "hum-maintainer", other, "elsewhere")).seq;
  });
  const history = async (who: string): Promise<Msg[]> => (await read(L, who, D, `?before=${at(d, 3) + 1}`)).body.items;

  it("M-157 M-043 M-254 any human participant redacts, another's message too; it keeps its place and the reason shows to the redactor and admins only", async () => {
    const [original] = await history("hum-carol");
    const res = await rest("POST", `${chatPath(L, D)}/messages/${at(d, 1)}/redact`, {
      token: tok("hum-carol"),
      body: { reason: "leaked key" },
    });
    expect(res).toEqual({
      status: 200,
      body: {
        ...original,
        body: null,
        mentions: [],
        attachments: [],
        redacted: true,
        redaction: { at: expect.any(String), by: "hum-carol", reason: "leaked key" },
      },
    });
    const redaction = (reason: string | null) => ({ at: res.body.redaction.at, by: "hum-carol", reason });
    for (const [who, reason] of [
      ["hum-carol", "leaked key"],
      ["hum-maintainer", "leaked key"],
      ["hum-guest", null],
      ["agt-a", null],
      ["hum-dave", null],
    ] as const) {
      const items = await history(who);
      expect(items.map((x) => x.seq)).toEqual([d[1], d[2], d[3]]);
      expect(items[0]).toMatchObject({
        id: `evt-${d[1]}`,
        body: null,
        mentions: [],
        attachments: [],
        redacted: true,
        redaction: redaction(reason),
      });
      expect(items[1]).toMatchObject({ body: "@agent-a please take that out", redacted: false, redaction: null });
    }
    expect(
      await hub.db.event.findUniqueOrThrow({
        where: { seq: at(d, 1) },
        select: { body: true, mentions: true, redacted: true },
      }),
    ).toEqual({ body: null, mentions: [], redacted: true });

    const own = await rest("POST", `${chatPath(L, D)}/messages/${at(d, 2)}/redact`, {
      token: tok("hum-guest"),
      body: {},
    });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      seq: d[2],
      body: null,
      mentions: [],
      redacted: true,
      redaction: { by: "hum-guest", reason: null },
    });
    // Redacting again answers the same message.
    const again = await rest("POST", `${chatPath(L, D)}/messages/${at(d, 1)}/redact`, {
      token: tok("hum-guest"),
      body: { reason: "other reason" },
    });
    expect(again).toEqual({ status: 200, body: (await history("hum-guest"))[0] });
    expect(
      await hub.db.redaction.findMany({ where: { eventSeq: at(d, 1) }, select: { byId: true, reason: true } }),
    ).toEqual([{ byId: "hum-carol", reason: "leaked key" }]);
  });

  it("M-157 no agent redacts: forbidden with reason humans_only, nothing changes", async () => {
    const redactions = await hub.db.redaction.count();
    expect(
      await rest("POST", `${chatPath(L, D)}/messages/${at(d, 3)}/redact`, { token: tok("agt-a"), body: {} }),
    ).toEqual({
      status: 403,
      body: { error: { code: "forbidden", message: "no agent redacts (§8.5)", details: { reason: "humans_only" } } },
    });
    expect(
      await rest("POST", `${chatPath(L, D)}/messages/${at(d, 3)}/redact`, {
        token: tok("agt-d"),
        body: { reason: "x" },
      }),
    ).toMatchObject({
      status: 403,
      body: { error: { details: { reason: "humans_only" } } },
    });
    expect(await hub.db.redaction.count()).toBe(redactions);
    expect(
      await hub.db.event.findUniqueOrThrow({ where: { seq: at(d, 3) }, select: { redacted: true, body: true } }),
    ).toEqual({ redacted: false, body: "thanks" });
  });

  it("M-157 a message of another chat, or none, answers not_found alike; so does a chat the caller is not in", async () => {
    const redactions = await hub.db.redaction.count();
    const token = tok("hum-carol");
    const none = await rest("POST", `${chatPath(L, D)}/messages/999999999/redact`, { token, body: {} });
    expect(none).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "message not found", details: {} } },
    });
    expect(await rest("POST", `${chatPath(L, D)}/messages/${elsewhere}/redact`, { token, body: {} })).toEqual(none);
    expect(await rest("POST", `${chatPath(L, D)}/messages/abc/redact`, { token, body: {} })).toEqual(none);
    const other = await hub.db.event.findUniqueOrThrow({
      where: { seq: elsewhere },
      select: { conversation: { select: { publicId: true } } },
    });
    const hidden = await rest(
      "POST",
      `${chatPath(L, other.conversation?.publicId ?? "")}/messages/${elsewhere}/redact`,
      { token, body: {} },
    );
    expect(hidden).toEqual(
      await rest("POST", `${chatPath(L, MISSING)}/messages/${elsewhere}/redact`, { token, body: {} }),
    );
    expect(hidden.status).toBe(404);
    expect(await hub.db.redaction.count()).toBe(redactions);
  });
});

describe("the group message and its two write routes (§9.2 Message shape, §8.4)", () => {
  let S = "";
  beforeAll(async () => {
    S = await createChat(L, "hum-maintainer", ["hum-guest", "agt-a", "agt-d"], "Shape");
  });
  const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/;

  it("M-160 M-161 M-162 M-163 a group message: to is the chat, the resolved mentions, no delivered_at, to_instance null", async () => {
    const res = await rest("POST", `${chatPath(L, S)}/messages`, {
      token: tok("hum-maintainer"),
      body: { body: "@agent-a can we tag today?" },
    });
    expect(res.status).toBe(201);
    const seq = res.body.seq;
    expect(res.body).toEqual({
      id: `evt-${seq}`,
      seq,
      conversation_id: S,
      from: "hum-maintainer",
      to: S,
      body: "@agent-a can we tag today?",
      sent_at: expect.stringMatching(ISO),
      mentions: [{ member_id: "agt-a", handle: "agent-a", field: "body", offset: 0, length: 8 }],
      attachments: [],
      from_instance: null,
      to_instance: null,
      redacted: false,
      redaction: null,
    });
    expect(res.body).not.toHaveProperty("delivered_at");
    // Every reader reads the same message: participant, observer, history reader, /events.
    expect((await read(L, "hum-guest", S)).body.items).toEqual([res.body]);
    expect((await read(L, "hum-dave", S)).body.items).toEqual([res.body]);
    expect((await read(L, "agt-a", S, `?before=${seq + 1}`)).body.items).toEqual([res.body]);
    expect((await read(L, "hum-guest", S)).body.items).toEqual([]);
    expect((await events(L, "hum-guest")).find((e) => e.seq === seq)).toEqual({
      ...res.body,
      kind: "message",
      type: "chat",
    });
    expect((await events(L, "agt-a")).find((e) => e.seq === seq)).toEqual({
      ...res.body,
      kind: "message",
      type: "chat",
    });

    const agent = await say(L, "agt-a", S, "tagging now", { "x-agent-instance": "agt-a-default" });
    expect(agent).toMatchObject({
      from: "agt-a",
      to: S,
      from_instance: "agt-a-default",
      to_instance: null,
      mentions: [],
    });
    expect(agent).not.toHaveProperty("delivered_at");
    const explicitNull = await rest("POST", `${chatPath(L, S)}/messages`, {
      token: tok("hum-guest"),
      body: { body: "ok", to_instance: null },
    });
    expect(explicitNull.status).toBe(201);
    expect(explicitNull.body).toMatchObject({ to: S, to_instance: null });
  });

  it("M-161 M-158 a to_instance in a group chat is invalid on both routes; nothing is written", async () => {
    const count = await eventCount();
    const invalid = {
      status: 400,
      body: {
        error: {
          code: "invalid",
          message: "to_instance names an instance in a direct conversation only",
          details: { fields: { to_instance: "direct_only" } },
        },
      },
    };
    expect(
      await rest("POST", `${chatPath(L, S)}/messages`, {
        token: tok("hum-maintainer"),
        body: { body: "hi", to_instance: "agt-a-default" },
      }),
    ).toEqual(invalid);
    expect(
      await rest("POST", `${L}/events`, {
        token: tok("hum-maintainer"),
        body: { type: "chat", conversation_id: S, body: "hi", to_instance: "agt-a-default" },
      }),
    ).toEqual(invalid);
    expect(await eventCount()).toBe(count);
  });

  it("M-158 M-253 POST /events with type chat and the conversation id is the same write as POST …/messages", async () => {
    const viaEvents = await rest("POST", `${L}/events`, {
      token: tok("hum-maintainer"),
      body: { type: "chat", conversation_id: S, body: "@agent-a same write" },
    });
    expect(viaEvents.status).toBe(201);
    expect(viaEvents.body).toEqual({
      id: `evt-${viaEvents.body.seq}`,
      seq: viaEvents.body.seq,
      conversation_id: S,
      from: "hum-maintainer",
      to: S,
      body: "@agent-a same write",
      sent_at: expect.stringMatching(ISO),
      mentions: [{ member_id: "agt-a", handle: "agent-a", field: "body", offset: 0, length: 8 }],
      attachments: [],
      from_instance: null,
      to_instance: null,
      redacted: false,
      redaction: null,
    });
    // Posting through /events moves the writer's marker too.
    expect((await markers(S)).find((p) => p.memberId === "hum-maintainer")?.readMarkerSeq).toBe(viaEvents.body.seq);
    const viaMessages = await say(L, "hum-maintainer", S, "@agent-a same write");
    const row = (seq: number) =>
      hub.db.event.findUniqueOrThrow({
        where: { seq },
        select: {
          kind: true,
          type: true,
          fromId: true,
          toId: true,
          toInstanceId: true,
          body: true,
          mentions: true,
          pings: true,
          conversationId: true,
          projectId: true,
        },
      });
    expect(await row(viaEvents.body.seq)).toEqual(await row(viaMessages.seq));
    expect(await row(viaEvents.body.seq)).toMatchObject({ kind: "message", type: "chat" });
    expect(await audience(viaEvents.body.seq)).toEqual(await audience(viaMessages.seq));
    expect(await verdicts(viaEvents.body.seq)).toEqual(await verdicts(viaMessages.seq));
    expect(await verdicts(viaEvents.body.seq)).toEqual([
      { agentId: "agt-a", instanceId: null, shouldRespond: true, reason: "mentioned" },
      { agentId: "agt-d", instanceId: null, shouldRespond: false, reason: "not_addressed" },
    ]);
    expect(seqsOf(await read(L, "hum-guest", S))).toEqual([viaEvents.body.seq, viaMessages.seq]);
  });

  it("M-158 M-253 both routes validate and refuse alike; nothing is written", async () => {
    const Z = await createChat(L, "hum-maintainer", ["hum-guest", "agt-a"], "To be closed");
    expect(
      (await rest("DELETE", `${chatPath(L, Z)}/participants/hum-maintainer`, { token: tok("hum-maintainer") })).status,
    ).toBe(200);
    expect((await rest("DELETE", `${chatPath(L, Z)}/participants/hum-guest`, { token: tok("hum-guest") })).status).toBe(
      200,
    );
    const count = await eventCount();
    const cases: [string, string, Record<string, unknown>, unknown][] = [
      [
        "hum-maintainer",
        S,
        { body: "   " },
        {
          status: 400,
          body: {
            // A body may be empty only when files are attached.
            error: {
              code: "invalid",
              message: "body: required without attachments",
              details: { fields: { body: "required" } },
            },
          },
        },
      ],
      [
        "hum-maintainer",
        S,
        {},
        {
          status: 400,
          body: {
            error: { code: "invalid", message: "invalid input: body", details: { fields: { body: "required" } } },
          },
        },
      ],
      [
        "hum-maintainer",
        S,
        { body: "x", extra: 1 },
        {
          status: 400,
          body: {
            error: {
              code: "invalid",
              message: "invalid input: extra",
              details: { fields: { extra: "unknown_field" } },
            },
          },
        },
      ],
      ["hum-dave", S, { body: "from the observer" }, OBSERVER],
      [
        "hum-carol",
        S,
        { body: "not in it" },
        { status: 404, body: { error: { code: "not_found", message: "conversation not found", details: {} } } },
      ],
      [
        "hum-carol",
        MISSING,
        { body: "nowhere" },
        { status: 404, body: { error: { code: "not_found", message: "conversation not found", details: {} } } },
      ],
      [
        "agt-a",
        Z,
        { body: "anyone?" },
        {
          status: 409,
          body: {
            error: {
              code: "conversation_closed",
              message: "the group chat is closed",
              details: { closed_reason: "no_human" },
            },
          },
        },
      ],
    ];
    for (const [who, chat, body, expected] of cases) {
      const viaMessages = await rest("POST", `${chatPath(L, chat)}/messages`, { token: tok(who), body });
      const viaEvents = await rest("POST", `${L}/events`, {
        token: tok(who),
        body: { type: "chat", conversation_id: chat, ...body },
      });
      expect({ who, chat, res: viaMessages }).toEqual({ who, chat, res: expected });
      expect({ who, chat, res: viaEvents }).toEqual({ who, chat, res: expected });
    }
    expect(
      await rest("POST", `${L}/events`, {
        token: tok("hum-maintainer"),
        body: { type: "note", conversation_id: S, body: "x" },
      }),
    ).toEqual({
      status: 400,
      body: {
        error: { code: "invalid", message: "invalid input: type", details: { fields: { type: "not_supported" } } },
      },
    });
    expect(await eventCount()).toBe(count);
  });

  it("M-253 M-158 an archived project still takes messages on both routes", async () => {
    const A = await createChat("/api/projects/maintainer/old", "hum-maintainer", ["hum-guest"], "Before the archive");
    expect((await admin("POST", "/api/admin/projects/maintainer/old/archive")).body.archived).toBe(true);
    const one = await say("/api/projects/maintainer/old", "hum-maintainer", A, "still here");
    const two = await rest("POST", "/api/projects/maintainer/old/events", {
      token: tok("hum-guest"),
      body: { type: "chat", conversation_id: A, body: "me too" },
    });
    expect(two.status).toBe(201);
    expect(two.body).toMatchObject({ conversation_id: A, from: "hum-guest", to: A, body: "me too" });
    expect(seqsOf(await read("/api/projects/maintainer/old", "hum-guest", A, "?after=0"))).toEqual([
      one.seq,
      two.body.seq,
    ]);
  });
});

describe("read and unread (§9.2 Read and unread)", () => {
  let U = "";
  const u: number[] = [];
  beforeAll(async () => {
    U = await createChat(L, "hum-maintainer", ["hum-guest", "agt-a"], "Unread");
    u[1] = (await say(L, "hum-maintainer", U, "hello")).seq;
    u[2] = (await say(L, "hum-maintainer", U, "@guest have a look")).seq;
    u[3] = (await say(L, "agt-a", U, "@guest @maintainer status is green")).seq;
  });

  it("M-166 unread counts the others' messages after the marker, mentions_unread those of them that mention the reader", async () => {
    expect(await counts(L, "hum-guest", U)).toEqual({ unread: 3, mentions_unread: 2 });
    expect(await counts(L, "hum-maintainer", U)).toEqual({ unread: 1, mentions_unread: 1 });
    expect(await counts(L, "agt-a", U)).toEqual({ unread: 0, mentions_unread: 0 });
  });

  it("M-164 M-129 …/messages keeps the highest seq it returned as the marker; before and refused reads move nothing", async () => {
    const marker = async (memberId: string) =>
      (await markers(U)).find((p) => p.memberId === memberId && p.leftAt === null)?.readMarkerSeq;
    const first = await read(L, "hum-guest", U, "?limit=2");
    expect(first.body).toEqual({ items: expect.any(Array), next_cursor: String(u[2]) });
    expect(seqsOf(first)).toEqual([u[1], u[2]]);
    expect(await marker("hum-guest")).toBe(u[2]);
    expect(await counts(L, "hum-guest", U)).toEqual({ unread: 1, mentions_unread: 1 });
    await read(L, "hum-guest", U, `?before=${at(u, 3) + 1}`);
    await read(L, "hum-guest", U, `?after=0&before=${at(u, 3)}`);
    await read(L, "hum-guest", U, "?limit=500");
    expect(await marker("hum-guest")).toBe(u[2]);
    const next = await read(L, "hum-guest", U, `?after=${first.body.next_cursor}`);
    expect(next.body).toEqual({ items: [expect.objectContaining({ seq: u[3] })], next_cursor: null });
    expect(await marker("hum-guest")).toBe(u[3]);
    expect(await counts(L, "hum-guest", U)).toEqual({ unread: 0, mentions_unread: 0 });
    // Fresh by default: nothing new, nothing returned; re-reading the window does not move the marker back.
    expect((await read(L, "hum-guest", U)).body).toEqual({ items: [], next_cursor: null });
    expect(seqsOf(await read(L, "hum-guest", U, "?after=0"))).toEqual([u[1], u[2], u[3]]);
    expect(await marker("hum-guest")).toBe(u[3]);
    // The agent's marker is its own.
    expect(await counts(L, "hum-maintainer", U)).toEqual({ unread: 1, mentions_unread: 1 });
  });

  it("M-165 posting moves the writer's marker to its own message, on either route", async () => {
    u[4] = (await say(L, "agt-a", U, "more news")).seq;
    expect(await counts(L, "hum-maintainer", U)).toEqual({ unread: 2, mentions_unread: 1 });
    u[5] = (await say(L, "hum-maintainer", U, "ack")).seq;
    expect(await counts(L, "hum-maintainer", U)).toEqual({ unread: 0, mentions_unread: 0 });
    expect((await markers(U)).find((p) => p.memberId === "hum-maintainer")?.readMarkerSeq).toBe(u[5]);
    expect(await counts(L, "hum-guest", U)).toEqual({ unread: 2, mentions_unread: 0 });
    const viaEvents = await rest("POST", `${L}/events`, {
      token: tok("hum-guest"),
      body: { type: "chat", conversation_id: U, body: "read it all" },
    });
    expect(viaEvents.status).toBe(201);
    expect((await markers(U)).find((p) => p.memberId === "hum-guest")?.readMarkerSeq).toBe(viaEvents.body.seq);
    expect(await counts(L, "hum-guest", U)).toEqual({ unread: 0, mentions_unread: 0 });
    expect(await counts(L, "hum-maintainer", U)).toEqual({ unread: 1, mentions_unread: 0 });
  });

  it("M-166 M-117 M-118 a newcomer's counts start at its join and stay inside its window", async () => {
    await addTo(L, "hum-maintainer", U, "hum-carol");
    expect(await counts(L, "hum-carol", U)).toEqual({ unread: 0, mentions_unread: 0 });
    await say(L, "hum-maintainer", U, "@carol welcome");
    await say(L, "agt-a", U, "@guest one for you");
    await say(L, "hum-guest", U, "@Carol Jones hi");
    expect(await counts(L, "hum-carol", U)).toEqual({ unread: 3, mentions_unread: 2 });
    expect(await counts(L, "hum-guest", U)).toEqual({ unread: 0, mentions_unread: 0 });
    expect(seqsOf(await read(L, "hum-carol", U)).length).toBe(3);
    expect(await counts(L, "hum-carol", U)).toEqual({ unread: 0, mentions_unread: 0 });
  });
});

describe("the ping rate from MAITY_PING_RATE (§1.7, M-156)", () => {
  let hub2: Hub;
  let rest2: ReturnType<typeof restClient>;
  const t2: Record<string, string> = {};
  const P2 = "/api/projects/p1/ping";
  let chat = "";
  beforeAll(async () => {
    // The operator's variable, through the settings (config.ts), into the hub it configures.
    hub2 = await testHub({ pingRate: readSettings({ MAITY_PING_RATE: "3/600" }).pingRate });
    rest2 = restClient(hub2);
    for (const h of ["p1", "p2", "p3", "p4", "p5", "p6"])
      expect(
        (
          await rest2("POST", "/api/admin/humans", {
            token: ADMIN,
            body: { handle: h, name: h.toUpperCase(), password: `${h}-password` },
          })
        ).status,
      ).toBe(201);
    expect(
      (await rest2("POST", "/api/admin/agents", { token: ADMIN, body: { owner: "p1", handle: "agent-p" } })).body.id,
    ).toBe("agt-p");
    expect(
      (await rest2("POST", "/api/admin/projects", { token: ADMIN, body: { owner: "p1", slug: "ping", name: "Ping" } }))
        .status,
    ).toBe(201);
    for (const id of ["hum-p2", "hum-p3", "hum-p4", "hum-p5", "hum-p6", "agt-p"])
      expect(
        (await rest2("POST", `/api/admin/projects/p1/ping/members`, { token: ADMIN, body: { member_id: id } })).status,
      ).toBe(201);
    for (const id of ["hum-p1", "hum-p2", "agt-p"])
      t2[id] = (await rest2("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
    const created = await rest2("POST", `${P2}/conversations`, {
      token: t2["hum-p1"],
      body: { participants: ["hum-p2", "hum-p3", "hum-p4", "hum-p5", "agt-p"] },
    });
    expect(created.status).toBe(201);
    chat = created.body.id;
  });
  afterAll(async () => {
    await hub2?.close();
  });

  it("M-156 M-255 each mentioned participant other than the writer is one ping against the writer's rate; over it the message is refused whole", async () => {
    const post = (who: string, body: string) =>
      rest2("POST", `${P2}/conversations/${chat}/messages`, { token: t2[who], body: { body } });
    const limited = {
      status: 429,
      body: {
        error: {
          code: "rate_limited",
          message: "at most 3 pings per 600 s",
          details: { limit: "pings", pings: 3, window_seconds: 600 },
        },
      },
    };
    const count = () => hub2.db.event.count();
    expect((await post("hum-p1", "@p2 @p3 two pings")).status).toBe(201);
    let before = await count();
    expect(await post("hum-p1", "@p4 @p5 would be four")).toEqual(limited);
    expect(
      await rest2("POST", `${P2}/events`, {
        token: t2["hum-p1"],
        body: { type: "chat", conversation_id: chat, body: "@p4 @p5 would be four" },
      }),
    ).toEqual(limited);
    expect(await count()).toBe(before);
    // A self-mention and a non-participant's handle cost nothing; a repeated mention is one ping.
    expect((await post("hum-p1", "@p1 to myself, @p6 is not in here")).status).toBe(201);
    const third = await post("hum-p1", "@p4 and again @p4");
    expect(third.status).toBe(201);
    expect(third.body.mentions).toHaveLength(2);
    before = await count();
    expect(await post("hum-p1", "@p5")).toEqual(limited);
    expect(await count()).toBe(before);
    expect((await post("hum-p1", "no mention at all")).status).toBe(201);
    // The rate is per writer, agents included.
    expect((await post("hum-p2", "@p1 @p3 @p4")).status).toBe(201);
    expect((await post("agt-p", "@p2 @p3 @p4")).status).toBe(201);
    expect(await post("agt-p", "@p1")).toEqual(limited);
  });
});
