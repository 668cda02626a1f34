import type { BusMessage } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub, trpcBrowser } from "./helpers.ts";

// §9.3 The conversation list: the list endpoint and its contents, the four bands and the activity
// order, cursor paging, item shapes, pins, the meat proxy per chat and GET /me/conversations
// (requirements M-168 … M-227 of maity-conversations.md; the hub's decisions in docs/api.md).
//
// Not tested here:
// - M-184 and M-214 are dashboard (UI) lines.
// - M-209 (the resume packet's conversations carries the per-chat meat_proxy) is an XREF to §5.2,
//   which is not built.
// - M-226 (totals.unread equals §18.2's counts.chat) is an XREF to §18.2, which is not built.
//
// Every world below has its own humans, agents and projects, so the blocks do not see each other's
// data. Where order matters, every write is followed by a short pause so that times differ.

const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());

const PASSWORD = "password-123";
const NO_CONTENT = { status: 204, body: null };
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

interface Member {
  id: string;
  handle: string;
  token: string;
}
interface Project {
  owner: string;
  slug: string;
  name: string;
  base: string;
  fullName: string;
}

async function tokenFor(memberId: string): Promise<string> {
  const res = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: memberId } });
  expect(res.status).toBe(201);
  return res.body.token;
}

/**
 * A person; `team` puts it in that person's Bay (DESIGN §4c), so their agents are each other's own
 * and §9's rules apply among them — without it, another person's agent would be a visitor.
 */
async function newHuman(handle: string, team?: Member): Promise<Member> {
  const name = `${handle.slice(0, 1).toUpperCase()}${handle.slice(1)}`;
  const body = { handle, name, password: PASSWORD, ...(team ? { bay: team.handle } : {}) };
  const res = await rest("POST", "/api/admin/humans", { token: ADMIN, body });
  expect(res.status).toBe(201);
  return { id: res.body.id, handle, token: await tokenFor(res.body.id) };
}

async function newAgent(owner: Member, handle: string): Promise<Member> {
  const res = await rest("POST", "/api/admin/agents", { token: ADMIN, body: { owner: owner.handle, handle } });
  expect(res.status).toBe(201);
  return { id: res.body.id, handle, token: await tokenFor(res.body.id) };
}

async function newProject(owner: Member, slug: string, name: string): Promise<Project> {
  const res = await rest("POST", "/api/admin/projects", { token: ADMIN, body: { owner: owner.handle, slug, name } });
  expect(res.status).toBe(201);
  // The project lives in its owner's Bay (a team's when the owner is in one).
  const bay: string = res.body.owner;
  return { owner: bay, slug, name, base: `/api/projects/${bay}/${slug}`, fullName: `${bay}/${slug}` };
}

async function join(project: Project, ...members: Member[]): Promise<void> {
  for (const member of members) {
    const res = await rest("POST", `/api/admin/projects/${project.owner}/${project.slug}/members`, {
      token: ADMIN,
      body: { member_id: member.id },
    });
    expect(res.status).toBe(201);
    await pause();
  }
}

async function dropMember(project: Project, member: Member): Promise<void> {
  const res = await rest(
    "DELETE",
    `/api/admin/projects/${project.owner}/${project.slug}/members/${member.id}?reason=removed`,
    { token: ADMIN },
  );
  expect(res.status).toBe(200);
}

async function archive(project: Project): Promise<void> {
  const res = await rest("POST", `/api/admin/projects/${project.owner}/${project.slug}/archive`, { token: ADMIN });
  expect(res.status).toBe(200);
}

/** A group chat created by `creator`; answers the §9.2 view. */
async function group(project: Project, creator: Member, participants: Member[], title?: string) {
  const body =
    title === undefined
      ? { participants: participants.map((p) => p.id) }
      : { title, participants: participants.map((p) => p.id) };
  const res = await rest("POST", `${project.base}/conversations`, { token: creator.token, body });
  expect(res.status).toBe(201);
  await pause();
  return res.body;
}

async function say(project: Project, author: Member, conversationId: string, body: string) {
  const res = await rest("POST", `${project.base}/conversations/${conversationId}/messages`, {
    token: author.token,
    body: { body },
  });
  expect(res.status).toBe(201);
  await pause();
  return res.body;
}

/** A plain GET …/messages: returns what is new and moves the reader's marker. */
async function readNew(project: Project, reader: Member, conversationId: string) {
  const res = await rest("GET", `${project.base}/conversations/${conversationId}/messages`, { token: reader.token });
  expect(res.status).toBe(200);
  return res.body;
}

async function addTo(project: Project, manager: Member, conversationId: string, member: Member): Promise<void> {
  const res = await rest("POST", `${project.base}/conversations/${conversationId}/participants`, {
    token: manager.token,
    body: { member_id: member.id },
  });
  expect(res.status).toBe(200);
  await pause();
}

async function removeFrom(project: Project, actor: Member, conversationId: string, member: Member): Promise<void> {
  const res = await rest("DELETE", `${project.base}/conversations/${conversationId}/participants/${member.id}`, {
    token: actor.token,
  });
  expect(res.status).toBe(200);
  await pause();
}

const list = (project: Project, reader: Member, query = "") =>
  rest("GET", `${project.base}/conversations${query}`, { token: reader.token });
const me = (reader: Member, query = "") => rest("GET", `/api/me/conversations${query}`, { token: reader.token });
const getConversation = (project: Project, reader: Member, id: string) =>
  rest("GET", `${project.base}/conversations/${id}`, { token: reader.token });
const pin = (project: Project, human: Member, id: string) =>
  rest("PUT", `${project.base}/conversations/${id}/pin`, { token: human.token });
const unpin = (project: Project, human: Member, id: string) =>
  rest("DELETE", `${project.base}/conversations/${id}/pin`, { token: human.token });
const setMeat = (project: Project, human: Member, id: string, value: unknown) =>
  rest("PUT", `${project.base}/conversations/${id}/meat-proxy`, { token: human.token, body: { meat_proxy: value } });

/** One page that is the whole list (fewer items than the limit). */
async function listItems(project: Project, reader: Member, query = "") {
  const res = await list(project, reader, query);
  expect(res.status).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body.items;
}

const ids = (items: { id: string }[]): string[] => items.map((i) => i.id);
const sortedIds = (items: { id: string }[]): string[] => ids(items).sort();
const meKeys = (items: { id: string; project: { full_name: string } }[]): string[] =>
  items.map((i) => `${i.project.full_name} ${i.id}`);

/** A JSON value as the REST client parses it. */
type Json = ReturnType<typeof JSON.parse>;

function itemOf(items: Json[], id: string): Json {
  const found = items.find((i) => i.id === id);
  expect(found, `item ${id}`).toBeDefined();
  return found;
}

function entryOf(participants: Json[], memberId: string): Json {
  const found = participants.find((p) => p.member_id === memberId);
  expect(found, `participant ${memberId}`).toBeDefined();
  return found;
}

function at(values: string[], index: number): string {
  const value = values[index];
  if (value === undefined) throw new Error(`no value at ${index}`);
  return value;
}

/** A human's participant entry as a list item shows it with the profile's defaults (all parts off). */
const humanEntry = (human: Member, extra: Record<string, unknown> = {}) => ({
  member_id: human.id,
  kind: "human",
  handle: human.handle,
  meat_proxy_lead: false,
  meat_proxy_hands: false,
  meat_proxy: false,
  meat_proxy_chat: null,
  ...extra,
});
const agentEntry = (agent: Member, owner: Member) => ({
  member_id: agent.id,
  kind: "agent",
  handle: agent.handle,
  name: `${owner.handle}/${agent.handle}`,
  // DESIGN §4b: the ring; none of these agents reported its memory.
  context: null,
  // DESIGN §4c: one Bay for the world's people, so no agent is a visitor.
  visiting: null,
});

/** Every page of a list, following next_cursor from the start. */
async function allPages(path: string, reader: Member, limit: number, extra = "") {
  const items: { id: string; project?: { full_name: string } }[] = [];
  const bodies: { next_cursor: string | null; totals?: unknown }[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${extra}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await rest("GET", `${path}${query}`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeLessThanOrEqual(limit);
    if (res.body.next_cursor !== null) {
      expect(typeof res.body.next_cursor).toBe("string");
      expect(res.body.items).toHaveLength(limit);
    }
    items.push(...res.body.items);
    bodies.push(res.body);
    cursor = res.body.next_cursor;
    expect(bodies.length).toBeLessThan(200); // a cursor that never ends the list fails here
  } while (cursor !== null);
  return { items, bodies };
}

/** What a refusal must leave as it was. */
async function snapshot() {
  return {
    events: await hub.db.event.count(),
    pins: await hub.db.pin.findMany({
      select: { humanId: true, conversationId: true },
      orderBy: [{ humanId: "asc" }, { conversationId: "asc" }],
    }),
    participations: await hub.db.participation.findMany({
      select: { id: true, meatProxyChat: true, readMarkerSeq: true, leftAt: true },
      orderBy: { id: "asc" },
    }),
    humans: await hub.db.human.findMany({
      select: { id: true, meatProxyLead: true, meatProxyHands: true, meatProxyNote: true },
      orderBy: { id: "asc" },
    }),
  };
}

function busSpy() {
  const seen: BusMessage[] = [];
  const stop = hub.bus.subscribe((message) => seen.push(message));
  return { seen, stop };
}

const base64url = (text: string): string => Buffer.from(text, "utf8").toString("base64url");

// ---------------------------------------------------------------------------------------------
// The list endpoint and its contents, item shapes
// ---------------------------------------------------------------------------------------------

async function worldA() {
  const ann = await newHuman("ann");
  const bob = await newHuman("bob", ann);
  const cat = await newHuman("cat", ann); // owns an agent in the project, is no member: reads along from outside
  const dan = await newHuman("dan", ann); // neither member nor owner of an agent there
  const a1 = await newAgent(ann, "agent-a1");
  const a2 = await newAgent(ann, "agent-a2");
  const a3 = await newAgent(ann, "agent-a3"); // not in the project
  const b1 = await newAgent(bob, "agent-b1");
  const c1 = await newAgent(cat, "agent-c1");
  const alpha = await newProject(ann, "alpha", "Alpha");
  await join(alpha, bob, a1, a2, b1, c1);
  const g1 = await group(alpha, ann, [bob, b1], "G1");
  const g2 = await group(alpha, bob, [a1, a2, c1], "G2"); // ann and cat read along
  const g3 = await group(alpha, bob, [c1], "G3"); // none of ann's agents: ann (members:admin) does not see it
  const g4 = await group(alpha, bob, [a2, c1], "G4");
  await removeFrom(alpha, bob, g4.id, bob); // the last human leaves: G4 closes, its agents stay
  const g5 = await group(alpha, ann, [bob, a1]); // no title; ann is in it and owns a1 in it
  await say(alpha, ann, a1.id, "hello a1");
  const reply = await say(alpha, a1, a1.id, "@ann done");
  const look = await say(alpha, bob, g1.id, "@ann look");
  const talk = await say(alpha, bob, g2.id, "@agent-a1 g2 talk");
  return { ann, bob, cat, dan, a1, a2, a3, b1, c1, alpha, g1, g2, g3, g4, g5, reply, look, talk };
}

describe("§9.3 the list endpoint and its contents", () => {
  let A: Awaited<ReturnType<typeof worldA>>;
  beforeAll(async () => {
    A = await worldA();
  });

  it("M-168 M-169 M-170 a human's list is {items, next_cursor: null}: the direct conversations with its agents in the project and its group chats", async () => {
    const { ann, a1, a2, g1, g5, alpha } = A;
    const res = await list(alpha, ann);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["items", "next_cursor"]);
    expect(res.body.next_cursor).toBeNull();
    // Not: bob's agent's direct conversation, G2/G4 (read along only), G3 (not in it, admin or not), agent-a3 (no member).
    expect(sortedIds(res.body.items)).toEqual([a1.id, a2.id, g1.id, g5.id].sort());
    // observed defaults to false, limit to 50.
    expect(await list(alpha, ann, "?observed=false")).toEqual(res);
    expect(await list(alpha, ann, "?limit=50")).toEqual(res);
    expect(await list(alpha, ann, "?observed=false&limit=50")).toEqual(res);
  });

  it("M-171 M-186 observed=true adds the group chats a human reads along as an owner, once each, as an observer with null counts", async () => {
    const { ann, a1, a2, g1, g2, g4, g5, alpha } = A;
    const items = await listItems(alpha, ann, "?observed=true");
    expect(sortedIds(items)).toEqual([a1.id, a2.id, g1.id, g2.id, g4.id, g5.id].sort());
    expect(itemOf(items, g2.id)).toMatchObject({ access: "observer", unread: null, mentions_unread: null });
    expect(itemOf(items, g4.id)).toMatchObject({
      access: "observer",
      unread: null,
      mentions_unread: null,
      closed_at: expect.any(String),
    });
    // G5 has ann and ann's agent: one item, as a participant.
    expect(itemOf(items, g5.id).access).toBe("participant");
    expect(items.filter((i: { id: string }) => i.id === g5.id)).toHaveLength(1);
  });

  it("M-171 an owner outside the project: an empty list without observed=true, exactly its agent's chats with it; an outsider gets not_found", async () => {
    const { cat, dan, g2, g3, g4, alpha } = A;
    expect(await list(alpha, cat)).toEqual({ status: 200, body: { items: [], next_cursor: null } });
    const observed = await listItems(alpha, cat, "?observed=true");
    expect(sortedIds(observed)).toEqual([g2.id, g3.id, g4.id].sort());
    for (const item of observed)
      expect(item).toMatchObject({ access: "observer", unread: null, mentions_unread: null, pinned: false });

    const missing = await rest("GET", "/api/projects/ann/no-such-project/conversations", { token: dan.token });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    expect(await list(alpha, dan)).toEqual(missing);
    expect(await list(alpha, dan, "?observed=true")).toEqual(missing);
  });

  it("M-172 an agent's list: its direct conversation and its group chats", async () => {
    const { a1, a2, b1, c1, g1, g2, g3, g4, g5, alpha } = A;
    expect(sortedIds(await listItems(alpha, a1))).toEqual([a1.id, g2.id, g5.id].sort());
    expect(sortedIds(await listItems(alpha, a2))).toEqual([a2.id, g2.id, g4.id].sort());
    expect(sortedIds(await listItems(alpha, b1))).toEqual([b1.id, g1.id].sort());
    expect(sortedIds(await listItems(alpha, c1))).toEqual([c1.id, g2.id, g3.id, g4.id].sort());
  });

  it("M-173 a closed group chat stays in its participants' lists; the human who left no longer sees it", async () => {
    const { a2, c1, bob, g4, alpha } = A;
    const view = await getConversation(alpha, a2, g4.id);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ closed_at: expect.any(String), closed_reason: "no_human" });
    for (const agent of [a2, c1]) {
      expect(itemOf(await listItems(alpha, agent), g4.id)).toMatchObject({
        kind: "group",
        access: "participant",
        closed_at: view.body.closed_at,
      });
    }
    expect(ids(await listItems(alpha, bob, "?observed=true"))).not.toContain(g4.id);
  });

  it("M-174 a direct conversation without messages is listed with last_message null", async () => {
    const { ann, a2, alpha } = A;
    expect(itemOf(await listItems(alpha, ann), a2.id)).toStrictEqual({
      id: a2.id,
      kind: "direct",
      agent_id: a2.id,
      title: null,
      participants: [humanEntry(ann), agentEntry(a2, ann)],
      access: "party",
      closed_at: null,
      last_message_at: null,
      unread: 0,
      mentions_unread: 0,
      pinned: false,
      last_message: null,
    });
  });

  it("M-179 M-180 M-181 the direct item: id = agent_id, title null, access party, closed_at null, mentions_unread 0, no created_at; the human then the agent", async () => {
    const { ann, a1, reply, alpha } = A;
    const item = itemOf(await listItems(alpha, ann), a1.id);
    expect(item).toStrictEqual({
      id: a1.id,
      kind: "direct",
      agent_id: a1.id,
      title: null,
      participants: [humanEntry(ann), agentEntry(a1, ann)],
      access: "party",
      closed_at: null,
      last_message_at: reply.sent_at,
      unread: 1,
      mentions_unread: 0, // "@ann" in a direct conversation is plain text
      pinned: false,
      last_message: { seq: reply.seq, from: a1.id, body: "@ann done", sent_at: reply.sent_at, redacted: false },
    });
    expect(item).not.toHaveProperty("created_at");
    // The agent's own list shows the same conversation with the same parties.
    const agentSide = itemOf(await listItems(alpha, a1), a1.id);
    expect(agentSide).toMatchObject({
      id: a1.id,
      kind: "direct",
      agent_id: a1.id,
      title: null,
      access: "party",
      closed_at: null,
      mentions_unread: 0,
      pinned: false,
    });
    expect(agentSide.participants).toStrictEqual([humanEntry(ann), agentEntry(a1, ann)]);
    expect(agentSide).not.toHaveProperty("created_at");
  });

  it("M-182 M-183 the group item: created_at, participants {member_id, kind, handle} (+name for agents), observers, access, no agent_id", async () => {
    const { ann, bob, cat, a1, a2, b1, c1, g1, g2, g5, look, talk, alpha } = A;
    const items = await listItems(alpha, ann, "?observed=true");
    expect(itemOf(items, g1.id)).toStrictEqual({
      id: g1.id,
      kind: "group",
      title: "G1",
      created_at: g1.created_at,
      participants: [humanEntry(ann), humanEntry(bob), agentEntry(b1, bob)],
      observers: [],
      access: "participant",
      closed_at: null,
      last_message_at: look.sent_at,
      unread: 1,
      mentions_unread: 1,
      pinned: false,
      last_message: { seq: look.seq, from: bob.id, body: "@ann look", sent_at: look.sent_at, redacted: false },
    });
    expect(itemOf(items, g2.id)).toStrictEqual({
      id: g2.id,
      kind: "group",
      title: "G2",
      created_at: g2.created_at,
      participants: [humanEntry(bob), agentEntry(a1, ann), agentEntry(a2, ann), agentEntry(c1, cat)],
      observers: [ann.id, cat.id],
      access: "observer",
      closed_at: null,
      last_message_at: talk.sent_at,
      unread: null,
      mentions_unread: null,
      pinned: false,
      last_message: { seq: talk.seq, from: bob.id, body: "@agent-a1 g2 talk", sent_at: talk.sent_at, redacted: false },
    });
    expect(itemOf(items, g5.id)).toStrictEqual({
      id: g5.id,
      kind: "group",
      title: null,
      created_at: g5.created_at,
      participants: [humanEntry(ann), humanEntry(bob), agentEntry(a1, ann)],
      observers: [],
      access: "participant",
      closed_at: null,
      last_message_at: null,
      unread: 0,
      mentions_unread: 0,
      pinned: false,
      last_message: null,
    });
    for (const item of items.filter((i: { kind: string }) => i.kind === "group"))
      expect(item).not.toHaveProperty("agent_id");
  });

  it("M-168 the query is refused with the field named: limit outside 1–200, observed not a boolean, a bad cursor, an unknown field", async () => {
    const { ann, alpha } = A;
    const cases: [string, string, string | null][] = [
      ["?limit=0", "limit", null],
      ["?limit=201", "limit", null],
      ["?limit=abc", "limit", null],
      ["?observed=maybe", "observed", null],
      ["?cursor=not-a-cursor", "cursor", "bad_cursor"],
      [`?cursor=${base64url("{}")}`, "cursor", "bad_cursor"],
      [
        `?cursor=${base64url(JSON.stringify([7, "2026-01-01T00:00:00.000Z", "ann/alpha", "agt-a1"]))}`,
        "cursor",
        "bad_cursor",
      ],
      ["?sort=asc", "sort", "unknown_field"],
    ];
    for (const [query, field, value] of cases) {
      const res = await list(alpha, ann, query);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toStrictEqual({
        error: {
          code: "invalid",
          message: expect.any(String),
          details: { fields: { [field]: value ?? expect.any(String) } },
        },
      });
    }
    const most = await list(alpha, ann, "?limit=200");
    expect(most.status).toBe(200);
    expect(most.body.items).toHaveLength(4);
  });

  it("M-168 a well-formed cursor the list did not give out is invalid, bad_cursor (docs/api.md)", async () => {
    const { ann, alpha } = A;
    const forged = base64url(JSON.stringify([3, "not-a-timestamp", "ann/alpha", "agt-a1"]));
    const res = await list(alpha, ann, `?cursor=${forged}`);
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      error: { code: "invalid", message: expect.any(String), details: { fields: { cursor: "bad_cursor" } } },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The four bands, the activity order and the cursor
// ---------------------------------------------------------------------------------------------

async function worldB() {
  const eve = await newHuman("eve");
  const fay = await newHuman("fay", eve);
  const e1 = await newAgent(eve, "agent-e1");
  const e2 = await newAgent(eve, "agent-e2");
  const bands = await newProject(eve, "bands", "Bands");
  await join(bands, fay, e1);
  const B1: string = (await group(bands, eve, [fay], "B1")).id;
  const B2: string = (await group(bands, eve, [fay], "B2")).id;
  const B3: string = (await group(bands, eve, [fay], "B3")).id;
  const B4: string = (await group(bands, eve, [fay], "B4")).id;
  const B5: string = (await group(bands, eve, [fay], "B5")).id;
  const B6: string = (await group(bands, eve, [fay], "B6")).id;
  const B7: string = (await group(bands, eve, [fay], "B7")).id;
  const B8: string = (await group(bands, eve, [fay], "B8")).id; // never a message: activity is its created_at
  const Obs: string = (await group(bands, fay, [e1], "Obs")).id; // eve reads along
  await say(bands, eve, B7, "eve in B7");
  await say(bands, fay, B5, "fay in B5");
  await readNew(bands, eve, B5);
  await say(bands, fay, B3, "fay in B3");
  await say(bands, fay, B1, "fay in B1");
  await say(bands, eve, B6, "eve in B6");
  await say(bands, fay, B4, "fay in B4");
  await say(bands, fay, B2, "fay in B2");
  await say(bands, fay, Obs, "fay in Obs");
  await join(bands, e2); // a direct conversation without messages: activity is the agent's joined_at
  const B9: string = (await group(bands, eve, [fay], "B9")).id; // created after every message above
  for (const id of [B1, B2, B5, B6, Obs]) expect(await pin(bands, eve, id)).toEqual(NO_CONTENT);
  return { eve, fay, e1, e2, bands, B1, B2, B3, B4, B5, B6, B7, B8, B9, Obs };
}

describe("§9.3 the four bands, activity order and the cursor", () => {
  let B: Awaited<ReturnType<typeof worldB>>;
  beforeAll(async () => {
    B = await worldB();
  });

  it("M-175 M-176 M-198 four bands: pinned with unread, unread, pinned, the rest; an observer's null unread counts as none", async () => {
    const { eve, e1, e2, bands, B1, B2, B3, B4, B5, B6, B7, B8, B9, Obs } = B;
    const band = (items: { id: string; pinned: boolean; unread: number | null }[]) =>
      items.map((i) => [i.id, i.pinned, i.unread]);
    expect(band(await listItems(bands, eve))).toEqual([
      [B2, true, 1],
      [B1, true, 1],
      [B4, false, 1],
      [B3, false, 1],
      [B6, true, 0],
      [B5, true, 0],
      [B9, false, 0],
      [e2.id, false, 0],
      [B7, false, 0],
      [B8, false, 0],
      [e1.id, false, 0],
    ]);
    // Obs has a message eve has not read, but eve only reads along: pinned without unread.
    expect(band(await listItems(bands, eve, "?observed=true"))).toEqual([
      [B2, true, 1],
      [B1, true, 1],
      [B4, false, 1],
      [B3, false, 1],
      [Obs, true, null],
      [B6, true, 0],
      [B5, true, 0],
      [B9, false, 0],
      [e2.id, false, 0],
      [B7, false, 0],
      [B8, false, 0],
      [e1.id, false, 0],
    ]);
  });

  it("M-177 M-219 inside a band newest activity first: last_message_at, else a group chat's created_at, a direct conversation's agent joined_at", async () => {
    const { eve, e1, e2, bands, B7, B8, B9 } = B;
    const items = await listItems(bands, eve);
    // GET /me/conversations orders by the same activity.
    expect(meKeys((await me(eve)).body.items)).toEqual(ids(items).map((id) => `${bands.fullName} ${id}`));
    const rest4 = items.slice(6);
    expect(ids(rest4)).toEqual([B9, e2.id, B7, B8, e1.id]);
    const b9 = itemOf(items, B9);
    const b7 = itemOf(items, B7);
    const b8 = itemOf(items, B8);
    expect(b9.last_message_at).toBeNull();
    expect(b8.last_message_at).toBeNull();
    // B9 without messages is above B7 with one: its created_at is newer than B7's message.
    expect(b9.created_at > b7.last_message_at).toBe(true);
    expect(b7.last_message_at > b8.created_at).toBe(true);
    // The message times inside band 1 and band 2 fall from first to last.
    for (const [from, to] of [
      [0, 2],
      [2, 4],
      [4, 6],
    ]) {
      const times = items.slice(from, to).map((i: { last_message_at: string }) => i.last_message_at);
      expect([...times].sort().reverse()).toEqual(times);
    }
  });

  it("M-178 M-169 the cursor follows the banded order: pages of every limit concatenate to the whole list, next_cursor null on the last", async () => {
    const { eve, bands } = B;
    for (const observed of ["false", "true"]) {
      const whole = ids(await listItems(bands, eve, `?observed=${observed}`));
      for (let limit = 1; limit <= whole.length + 1; limit++) {
        const { items, bodies } = await allPages(`${bands.base}/conversations`, eve, limit, `&observed=${observed}`);
        expect(ids(items), `limit ${limit}`).toEqual(whole);
        expect(bodies).toHaveLength(Math.ceil(whole.length / limit));
        expect(bodies.at(-1)?.next_cursor).toBeNull();
      }
    }
  });

  it("M-178 paging stays stable while messages arrive: what was served is not served again, what comes after the cursor is served once", async () => {
    const { eve, fay, e1, e2, bands, B1, B2, B3, B4, B5, B6, B7, B8, B9 } = B;
    const first = await list(bands, eve, "?limit=3");
    expect(ids(first.body.items)).toEqual([B2, B1, B4]);
    const cursor: string = first.body.next_cursor;
    expect(typeof cursor).toBe("string");
    await say(bands, fay, B1, "again in B1"); // served already: moves inside band 1
    await say(bands, fay, B7, "news in B7"); // not served yet: rises above the cursor
    await say(bands, eve, B8, "eve in B8"); // not served yet: moves after the cursor
    const second = await list(bands, eve, `?limit=50&cursor=${encodeURIComponent(cursor)}`);
    expect(second.status).toBe(200);
    expect(ids(second.body.items)).toEqual([B3, B6, B5, B8, B9, e2.id, e1.id]);
    expect(second.body.next_cursor).toBeNull();
    // A fresh read from the top shows B7 where it went.
    expect(ids(await listItems(bands, eve))).toEqual([B1, B2, B7, B4, B3, B6, B5, B8, B9, e2.id, e1.id]);
  });
});

// ---------------------------------------------------------------------------------------------
// last_message: the cut, redaction, the caller's window
// ---------------------------------------------------------------------------------------------

async function worldC() {
  const gil = await newHuman("gil");
  const hal = await newHuman("hal", gil);
  const ivy = await newHuman("ivy", gil);
  const g1 = await newAgent(gil, "agent-g1");
  const i1 = await newAgent(ivy, "agent-i1");
  const prev = await newProject(gil, "prev", "Previews");
  await join(prev, hal, ivy, g1, i1);
  const long = `x${"😀".repeat(300)}`;
  const longMessage = await say(prev, gil, g1.id, long);
  const redactedChat = await group(prev, gil, [hal], "Redacted");
  const secret = await say(prev, hal, redactedChat.id, "a secret");
  const redaction = await rest("POST", `${prev.base}/conversations/${redactedChat.id}/messages/${secret.seq}/redact`, {
    token: gil.token,
    body: { reason: "private" },
  });
  expect(redaction.status).toBe(200);
  const windowed = await group(prev, gil, [hal], "Window");
  await say(prev, hal, windowed.id, "before ivy 1");
  const lastBeforeIvy = await say(prev, gil, windowed.id, "before ivy 2");
  await addTo(prev, gil, windowed.id, ivy);
  const observed = await group(prev, gil, [hal], "Observed");
  await say(prev, hal, observed.id, "before agent-i1");
  await addTo(prev, gil, observed.id, i1); // ivy reads along from here on
  return { gil, hal, ivy, g1, i1, prev, long, longMessage, redactedChat, secret, windowed, lastBeforeIvy, observed };
}

describe("§9.3 last_message", () => {
  let C: Awaited<ReturnType<typeof worldC>>;
  beforeAll(async () => {
    C = await worldC();
  });

  it("M-185 the preview is cut at 200 code points, never inside one; the full text stays at …/messages", async () => {
    const { gil, g1, prev, long, longMessage } = C;
    const cut = Array.from(long).slice(0, 200).join("");
    for (const reader of [gil, g1]) {
      const item = itemOf(await listItems(prev, reader), g1.id);
      expect(item.last_message).toStrictEqual({
        seq: longMessage.seq,
        from: gil.id,
        body: cut,
        sent_at: longMessage.sent_at,
        redacted: false,
      });
      expect(Array.from(item.last_message.body)).toHaveLength(200);
      expect(item.last_message.body).toHaveLength(1 + 199 * 2);
    }
    const full = await rest("GET", `${prev.base}/conversations/${g1.id}/messages?after=0`, { token: gil.token });
    expect(full.body.items.map((m: { body: string }) => m.body)).toEqual([long]);
  });

  it("M-185 a redacted last message shows body null and redacted true", async () => {
    const { gil, hal, prev, redactedChat, secret } = C;
    for (const reader of [gil, hal]) {
      const item = itemOf(await listItems(prev, reader), redactedChat.id);
      expect(item.last_message_at).toBe(secret.sent_at);
      expect(item.last_message).toStrictEqual({
        seq: secret.seq,
        from: hal.id,
        body: null,
        sent_at: secret.sent_at,
        redacted: true,
      });
    }
  });

  it("M-185 last_message lies within the caller's window: a newcomer, or a member added again, sees nothing from before its join", async () => {
    const { gil, hal, ivy, prev, windowed, lastBeforeIvy } = C;
    expect(itemOf(await listItems(prev, gil), windowed.id).last_message.seq).toBe(lastBeforeIvy.seq);
    expect(itemOf(await listItems(prev, ivy), windowed.id)).toMatchObject({
      last_message: null,
      last_message_at: null,
      unread: 0,
      mentions_unread: 0,
    });
    const after = await say(prev, hal, windowed.id, "after ivy");
    expect(itemOf(await listItems(prev, ivy), windowed.id)).toMatchObject({
      last_message: { seq: after.seq, from: hal.id, body: "after ivy", sent_at: after.sent_at, redacted: false },
      last_message_at: after.sent_at,
      unread: 1,
    });
    // hal leaves and is added again: its window starts at the latest join.
    await removeFrom(prev, hal, windowed.id, hal);
    await addTo(prev, gil, windowed.id, hal);
    expect(itemOf(await listItems(prev, hal), windowed.id)).toMatchObject({
      last_message: null,
      last_message_at: null,
      unread: 0,
      mentions_unread: 0,
    });
  });

  it("M-185 M-186 an observer's preview lies within its agent's window and its counts are null", async () => {
    const { hal, ivy, i1, prev, observed } = C;
    expect(ids(await listItems(prev, ivy))).not.toContain(observed.id);
    expect(itemOf(await listItems(prev, ivy, "?observed=true"), observed.id)).toMatchObject({
      access: "observer",
      last_message: null,
      last_message_at: null,
      unread: null,
      mentions_unread: null,
    });
    const after = await say(prev, hal, observed.id, "after agent-i1 @ivy");
    const preview = {
      seq: after.seq,
      from: hal.id,
      body: "after agent-i1 @ivy",
      sent_at: after.sent_at,
      redacted: false,
    };
    expect(itemOf(await listItems(prev, ivy, "?observed=true"), observed.id)).toMatchObject({
      access: "observer",
      last_message: preview,
      unread: null,
      mentions_unread: null,
    });
    expect(itemOf(await listItems(prev, i1), observed.id)).toMatchObject({
      access: "participant",
      last_message: preview,
      unread: 1,
      mentions_unread: 0,
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Pins
// ---------------------------------------------------------------------------------------------

async function worldD() {
  const jo = await newHuman("jo");
  const kim = await newHuman("kim", jo);
  const lee = await newHuman("lee", jo);
  const ola = await newHuman("ola", jo); // no member; her agent is
  const j1 = await newAgent(jo, "agent-j1");
  const k1 = await newAgent(kim, "agent-k1");
  const o1 = await newAgent(ola, "agent-o1");
  const pins = await newProject(jo, "pins", "Pins");
  await join(pins, kim, lee, j1, k1, o1);
  const gp = await group(pins, jo, [kim], "Together");
  const hidden = await group(pins, kim, [lee], "Without jo");
  const along = await group(pins, kim, [j1, lee], "Along"); // jo reads along
  const closed = await group(pins, kim, [j1], "Closed");
  await removeFrom(pins, kim, closed.id, kim); // closed; jo reads along
  const outside = await group(pins, kim, [o1], "Outside"); // ola reads along from outside
  const both = await group(pins, jo, [kim, j1], "Jo and her agent");
  const rejoin = await group(pins, kim, [jo], "Rejoin");
  const removal = await group(pins, kim, [jo, lee], "Removal");
  await say(pins, j1, j1.id, "hello jo");
  return { jo, kim, lee, ola, j1, k1, o1, pins, gp, hidden, along, closed, outside, both, rejoin, removal };
}

const pinRow = (humanId: string, publicId: string) =>
  hub.db.pin.count({ where: { humanId, conversation: { publicId } } });

describe("§9.3 pins", () => {
  let D: Awaited<ReturnType<typeof worldD>>;
  beforeAll(async () => {
    D = await worldD();
  });

  it("M-187 PUT and DELETE …/pin answer 204 and are idempotent", async () => {
    const { jo, j1, gp, pins } = D;
    for (const id of [j1.id, gp.id]) {
      expect(await pin(pins, jo, id)).toEqual(NO_CONTENT);
      expect(await pin(pins, jo, id)).toEqual(NO_CONTENT);
      expect(await pinRow(jo.id, id)).toBe(1);
      expect(itemOf(await listItems(pins, jo), id).pinned).toBe(true);
      expect(await unpin(pins, jo, id)).toEqual(NO_CONTENT);
      expect(await unpin(pins, jo, id)).toEqual(NO_CONTENT);
      expect(await pinRow(jo.id, id)).toBe(0);
      expect(itemOf(await listItems(pins, jo), id).pinned).toBe(false);
    }
  });

  it("M-188 an agent gets forbidden, humans_only, on both pin routes; nothing is written", async () => {
    const { j1, along, pins } = D;
    const before = await snapshot();
    for (const id of [j1.id, along.id]) {
      for (const res of [await pin(pins, j1, id), await unpin(pins, j1, id)]) {
        expect(res).toStrictEqual({
          status: 403,
          body: { error: { code: "forbidden", message: expect.any(String), details: { reason: "humans_only" } } },
        });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it("M-189 a human pins a conversation it is in or reads along, a closed group chat too, also from outside the project", async () => {
    const { jo, ola, j1, gp, along, closed, outside, pins } = D;
    for (const id of [j1.id, gp.id, along.id, closed.id]) expect(await pin(pins, jo, id)).toEqual(NO_CONTENT);
    const items = await listItems(pins, jo, "?observed=true");
    expect(itemOf(items, j1.id)).toMatchObject({ access: "party", pinned: true });
    expect(itemOf(items, gp.id)).toMatchObject({ access: "participant", pinned: true });
    expect(itemOf(items, along.id)).toMatchObject({ access: "observer", pinned: true });
    expect(itemOf(items, closed.id)).toMatchObject({ access: "observer", pinned: true, closed_at: expect.any(String) });
    expect(await pin(pins, ola, outside.id)).toEqual(NO_CONTENT);
    expect(itemOf(await listItems(pins, ola, "?observed=true"), outside.id)).toMatchObject({
      access: "observer",
      pinned: true,
    });
    for (const id of [j1.id, gp.id, along.id, closed.id]) expect(await unpin(pins, jo, id)).toEqual(NO_CONTENT);
    expect(await unpin(pins, ola, outside.id)).toEqual(NO_CONTENT);
  });

  it("M-190 a conversation the caller cannot read answers not_found on both pin routes, as its GET does; nothing is written", async () => {
    const { jo, ola, k1, hidden, gp, pins } = D;
    const before = await snapshot();
    const missing = await pin(pins, jo, "cnv-9999");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    for (const id of [hidden.id, k1.id]) {
      expect(await pin(pins, jo, id)).toEqual(missing);
      expect(await unpin(pins, jo, id)).toEqual(missing);
      expect(await getConversation(pins, jo, id)).toEqual(missing);
    }
    // From outside the project only the chats of one's agent are readable.
    expect(await pin(pins, ola, gp.id)).toEqual(missing);
    expect(await unpin(pins, ola, gp.id)).toEqual(missing);
    expect(await snapshot()).toEqual(before);
  });

  it("M-191 a pin is the pinner's own: nobody else's pinned changes and no event is emitted", async () => {
    const { jo, kim, gp, pins } = D;
    const events = await hub.db.event.count();
    const spy = busSpy();
    expect(await pin(pins, jo, gp.id)).toEqual(NO_CONTENT);
    expect(await unpin(pins, jo, gp.id)).toEqual(NO_CONTENT);
    expect(await pin(pins, jo, gp.id)).toEqual(NO_CONTENT);
    spy.stop();
    expect(spy.seen).toEqual([]);
    expect(await hub.db.event.count()).toBe(events);
    expect(itemOf(await listItems(pins, kim), gp.id).pinned).toBe(false);
    expect((await getConversation(pins, kim, gp.id)).body.pinned).toBe(false);
    expect(itemOf(await listItems(pins, jo), gp.id).pinned).toBe(true);
    // kim's own pin does not touch jo's, and jo's unpin does not touch kim's.
    expect(await pin(pins, kim, gp.id)).toEqual(NO_CONTENT);
    expect(await unpin(pins, jo, gp.id)).toEqual(NO_CONTENT);
    expect(itemOf(await listItems(pins, kim), gp.id).pinned).toBe(true);
    expect(itemOf(await listItems(pins, jo), gp.id).pinned).toBe(false);
    expect(await unpin(pins, kim, gp.id)).toEqual(NO_CONTENT);
  });

  it("M-192 pins are stored by the hub: another token and a dashboard session of the same human see them", async () => {
    const { jo, gp, pins } = D;
    expect(await pin(pins, jo, gp.id)).toEqual(NO_CONTENT);
    const second: Member = { ...jo, token: await tokenFor(jo.id) };
    expect(itemOf(await listItems(pins, second), gp.id).pinned).toBe(true);
    const browser = trpcBrowser(hub);
    expect((await browser.mutation("auth.login", { handle: jo.handle, password: PASSWORD })).status).toBe(200);
    const viaSession = await browser.query("conversations.list", { owner: pins.owner, slug: pins.slug });
    expect(viaSession.status).toBe(200);
    const items =
      (viaSession.body.result?.data as { items: { id: string; pinned: boolean }[] } | undefined)?.items ?? [];
    expect(itemOf(items, gp.id).pinned).toBe(true);
    expect(await pinRow(jo.id, gp.id)).toBe(1);
    expect(await unpin(pins, second, gp.id)).toEqual(NO_CONTENT);
    expect(itemOf(await listItems(pins, jo), gp.id).pinned).toBe(false);
  });

  it("M-195 every item carries pinned as a boolean, always false for an agent caller", async () => {
    const { jo, j1, both, pins } = D;
    expect(await pin(pins, jo, j1.id)).toEqual(NO_CONTENT);
    expect(await pin(pins, jo, both.id)).toEqual(NO_CONTENT);
    const humanItems = await listItems(pins, jo, "?observed=true");
    for (const item of humanItems) expect(typeof item.pinned).toBe("boolean");
    expect(itemOf(humanItems, j1.id).pinned).toBe(true);
    const agentItems = await listItems(pins, j1);
    expect(sortedIds(agentItems)).toEqual(expect.arrayContaining([j1.id, both.id]));
    for (const item of agentItems) expect(item.pinned).toBe(false);
    expect((await getConversation(pins, j1, j1.id)).body.pinned).toBe(false);
    expect((await getConversation(pins, j1, both.id)).body.pinned).toBe(false);
    expect(await unpin(pins, jo, j1.id)).toEqual(NO_CONTENT);
    expect(await unpin(pins, jo, both.id)).toEqual(NO_CONTENT);
  });

  it("M-196 pinned also stands in the direct GET, the group chat view and the create POST's idempotent replay", async () => {
    const { jo, kim, j1, pins } = D;
    const body = { title: "Replay", participants: [kim.id] };
    const headers = { "idempotency-key": "list-pin-replay" };
    const created = await rest("POST", `${pins.base}/conversations`, { token: jo.token, body, headers });
    expect(created.status).toBe(201);
    expect(created.body.pinned).toBe(false);
    expect(await pin(pins, jo, created.body.id)).toEqual(NO_CONTENT);
    const replay = await rest("POST", `${pins.base}/conversations`, { token: jo.token, body, headers });
    expect(replay).toStrictEqual({ status: 200, body: { ...created.body, pinned: true } });
    expect(await getConversation(pins, jo, created.body.id)).toStrictEqual({ status: 200, body: replay.body });
    expect((await getConversation(pins, kim, created.body.id)).body.pinned).toBe(false);

    expect(await pin(pins, jo, j1.id)).toEqual(NO_CONTENT);
    const direct = await getConversation(pins, jo, j1.id);
    expect(direct.status).toBe(200);
    expect(direct.body.pinned).toBe(true);
    expect(direct.body).toStrictEqual(itemOf(await listItems(pins, jo), j1.id));
    expect(await unpin(pins, jo, j1.id)).toEqual(NO_CONTENT);
    expect((await getConversation(pins, jo, j1.id)).body.pinned).toBe(false);
    expect(await unpin(pins, jo, created.body.id)).toEqual(NO_CONTENT);
  });

  it("M-197 no event carries pinned, the conversation views in conversation_created/_updated included", async () => {
    const { jo, kim, gp, pins } = D;
    expect(await pin(pins, jo, gp.id)).toEqual(NO_CONTENT);
    expect(await pin(pins, kim, gp.id)).toEqual(NO_CONTENT);
    const renamed = await rest("PATCH", `${pins.base}/conversations/${gp.id}`, {
      token: jo.token,
      body: { title: "Together, renamed" },
    });
    expect(renamed.status).toBe(200);
    for (const reader of [jo, kim]) {
      const events = await rest("GET", `${pins.base}/events?after=0&limit=200`, { token: reader.token });
      expect(events.status).toBe(200);
      const mine = events.body.items.filter((e: { conversation_id: string }) => e.conversation_id === gp.id);
      expect(mine.map((e: { kind: string }) => e.kind)).toEqual(["conversation_created", "conversation_updated"]);
      const updated = mine.at(-1);
      expect(updated.payload.changed).toEqual({ title: "Together, renamed" });
      expect(updated.payload.conversation.title).toBe("Together, renamed");
      expect(updated.payload.conversation).not.toHaveProperty("pinned");
      expect(JSON.stringify(events.body.items)).not.toContain('"pinned"');
    }
    const stored = await hub.db.event.findMany({
      where: { kind: { in: ["conversation_created", "conversation_updated"] } },
      select: { payload: true },
    });
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain('"pinned"');
    expect(await unpin(pins, jo, gp.id)).toEqual(NO_CONTENT);
    expect(await unpin(pins, kim, gp.id)).toEqual(NO_CONTENT);
  });

  it("M-194 leaving a chat or being removed from it drops the pin; being added again does not bring it back", async () => {
    const { jo, kim, rejoin, removal, pins } = D;
    expect(await pin(pins, jo, rejoin.id)).toEqual(NO_CONTENT);
    expect(await pin(pins, jo, removal.id)).toEqual(NO_CONTENT);
    await removeFrom(pins, jo, rejoin.id, jo); // jo leaves
    await removeFrom(pins, kim, removal.id, jo); // kim, the creator, removes jo
    expect(await pinRow(jo.id, rejoin.id)).toBe(0);
    expect(await pinRow(jo.id, removal.id)).toBe(0);
    await addTo(pins, kim, rejoin.id, jo);
    await addTo(pins, kim, removal.id, jo);
    const items = await listItems(pins, jo);
    expect(itemOf(items, rejoin.id).pinned).toBe(false);
    expect(itemOf(items, removal.id).pinned).toBe(false);
  });

  it("M-194 a human who leaves a chat keeps no pin there, even while it still reads along through its agent", async () => {
    const { jo, both, pins } = D;
    expect(await pin(pins, jo, both.id)).toEqual(NO_CONTENT);
    await removeFrom(pins, jo, both.id, jo); // kim stays (open), jo's agent stays (jo reads along)
    const item = itemOf(await listItems(pins, jo, "?observed=true"), both.id);
    expect(item.access).toBe("observer");
    expect(item.pinned).toBe(false);
    expect(await pinRow(jo.id, both.id)).toBe(0);
  });

  it("M-194 an owner reading along loses its pin when its agent leaves the chat", async () => {
    const { jo, j1, along, pins } = D;
    expect(await pin(pins, jo, along.id)).toEqual(NO_CONTENT);
    await removeFrom(pins, j1, along.id, j1);
    expect(await pinRow(jo.id, along.id)).toBe(0);
    expect(ids(await listItems(pins, jo, "?observed=true"))).not.toContain(along.id);
    expect((await pin(pins, jo, along.id)).status).toBe(404);
  });

  it("M-194 a human removed from the project keeps none of its pins there", async () => {
    const { lee, hidden, removal, pins } = D;
    expect(await pin(pins, lee, hidden.id)).toEqual(NO_CONTENT);
    expect(await pin(pins, lee, removal.id)).toEqual(NO_CONTENT);
    await dropMember(pins, lee);
    expect(await hub.db.pin.count({ where: { humanId: lee.id } })).toBe(0);
  });

  it("M-194 a direct conversation's pin goes when its agent leaves the project and stays gone when it is back", async () => {
    const { jo, j1, pins } = D;
    expect(await pin(pins, jo, j1.id)).toEqual(NO_CONTENT);
    await dropMember(pins, j1);
    expect(await pinRow(jo.id, j1.id)).toBe(0);
    expect(ids(await listItems(pins, jo))).not.toContain(j1.id);
    await join(pins, j1);
    expect(itemOf(await listItems(pins, jo), j1.id).pinned).toBe(false);
  });
});

async function worldP() {
  const max = await newHuman("max");
  const nia = await newHuman("nia", max);
  const p1 = await newProject(max, "p1", "Max one");
  const p2 = await newProject(nia, "p2", "Nia two");
  await join(p1, nia);
  await join(p2, max);
  const one: string[] = [];
  for (let i = 0; i < 11; i++) one.push((await group(p1, nia, [max], `one ${i}`)).id);
  const two: string[] = [];
  for (let i = 0; i < 10; i++) two.push((await group(p2, nia, [max], `two ${i}`)).id);
  return { max, nia, p1, p2, one, two };
}

describe("§9.3 at most 20 pins per human", () => {
  let P: Awaited<ReturnType<typeof worldP>>;
  beforeAll(async () => {
    P = await worldP();
  });

  it("M-187 M-190 a pin is set under the conversation's own project: under another project of the caller the id is not found; nothing is written", async () => {
    const { max, p1, p2, one } = P;
    const before = await snapshot();
    const missing = await pin(p2, max, "cnv-9999");
    expect(missing.status).toBe(404);
    expect(await pin(p2, max, at(one, 0))).toEqual(missing);
    expect(await unpin(p2, max, at(one, 0))).toEqual(missing);
    expect(await snapshot()).toEqual(before);
    expect(itemOf(await listItems(p1, max), at(one, 0)).pinned).toBe(false);
  });

  it("M-193 at most 20 pins across all projects: the 21st is invalid, pin too_many, and writes nothing; re-pinning a pinned one stays 204", async () => {
    const { max, p1, p2, one, two } = P;
    for (const id of one) expect(await pin(p1, max, id)).toEqual(NO_CONTENT);
    for (const id of two.slice(0, 9)) expect(await pin(p2, max, id)).toEqual(NO_CONTENT);
    expect(await hub.db.pin.count({ where: { humanId: max.id } })).toBe(20);
    const before = await snapshot();
    const refused = await pin(p2, max, at(two, 9));
    expect(refused).toStrictEqual({
      status: 400,
      body: { error: { code: "invalid", message: expect.any(String), details: { fields: { pin: "too_many" } } } },
    });
    expect(await snapshot()).toEqual(before);
    expect(itemOf(await listItems(p2, max), at(two, 9)).pinned).toBe(false);
    expect(await pin(p1, max, at(one, 0))).toEqual(NO_CONTENT);
    expect(await pin(p2, max, at(two, 8))).toEqual(NO_CONTENT);
    expect(await hub.db.pin.count({ where: { humanId: max.id } })).toBe(20);
    const all = await me(max);
    expect(all.body.items.filter((i: { pinned: boolean }) => i.pinned)).toHaveLength(20);
  });

  it("M-194 leaving a pinned chat frees its slot; added again, the chat comes back unpinned", async () => {
    const { max, nia, p1, p2, one, two } = P;
    await removeFrom(p1, max, at(one, 0), max);
    expect(await hub.db.pin.count({ where: { humanId: max.id } })).toBe(19);
    expect(await pin(p2, max, at(two, 9))).toEqual(NO_CONTENT);
    await addTo(p1, nia, at(one, 0), max);
    expect(itemOf(await listItems(p1, max), at(one, 0)).pinned).toBe(false);
    const again = await pin(p1, max, at(one, 0));
    expect(again.status).toBe(400);
    expect(again.body.error.details).toStrictEqual({ fields: { pin: "too_many" } });
  });
});

// ---------------------------------------------------------------------------------------------
// The meat proxy per chat
// ---------------------------------------------------------------------------------------------

async function worldM() {
  const mo = await newHuman("mo");
  const pat = await newHuman("pat", mo);
  const m1 = await newAgent(mo, "agent-m1");
  const p1 = await newAgent(pat, "agent-p1");
  const meat = await newProject(mo, "meat", "Meat");
  await join(meat, pat, m1, p1);
  const mg = await group(meat, mo, [pat, m1], "Meat");
  const other = await group(meat, mo, [pat], "Other");
  const patChat = await group(meat, pat, [m1], "Pat's"); // mo reads along
  const oz = await newHuman("oz", mo); // no member; its agent is
  const oz1 = await newAgent(oz, "agent-oz1");
  await join(meat, oz1);
  const ozChat = await group(meat, pat, [oz1], "Oz reads along");
  return { mo, pat, m1, p1, oz, meat, mg, other, patChat, ozChat };
}

async function profile(human: Member, lead: boolean, hands: boolean, note: string | null = null): Promise<void> {
  await hub.db.human.update({
    where: { id: human.id },
    data: { meatProxyLead: lead, meatProxyHands: hands, meatProxyNote: note },
  });
}

const chatValue = async (human: Member, publicId: string) =>
  (
    await hub.db.participation.findFirstOrThrow({
      where: { memberId: human.id, leftAt: null, conversation: { publicId } },
      select: { meatProxyChat: true },
    })
  ).meatProxyChat;

const MEAT_KEYS = ["meat_proxy_lead", "meat_proxy_hands", "meat_proxy", "meat_proxy_chat"];

describe("§9.3 the meat proxy per chat", () => {
  let M: Awaited<ReturnType<typeof worldM>>;
  beforeAll(async () => {
    M = await worldM();
  });

  it("M-199 M-200 PUT …/meat-proxy answers 204 and is idempotent, in a group chat and in a direct conversation", async () => {
    const { mo, m1, mg, meat } = M;
    expect(await setMeat(meat, mo, mg.id, true)).toEqual(NO_CONTENT);
    expect(await setMeat(meat, mo, mg.id, true)).toEqual(NO_CONTENT);
    expect(await chatValue(mo, mg.id)).toBe(true);
    expect(await setMeat(meat, mo, m1.id, false)).toEqual(NO_CONTENT);
    expect(await setMeat(meat, mo, m1.id, false)).toEqual(NO_CONTENT);
    expect(await chatValue(mo, m1.id)).toBe(false);
    for (const id of [mg.id, m1.id]) {
      expect(await setMeat(meat, mo, id, null)).toEqual(NO_CONTENT);
      expect(await setMeat(meat, mo, id, null)).toEqual(NO_CONTENT);
      expect(await chatValue(mo, id)).toBeNull();
    }
  });

  it("M-199 a body that is not {meat_proxy: true|false|null} is invalid with the field named; nothing is written", async () => {
    const { mo, mg, meat } = M;
    const before = await snapshot();
    for (const body of [{ meat_proxy: "yes" }, { meat_proxy: 1 }, {}]) {
      const res = await rest("PUT", `${meat.base}/conversations/${mg.id}/meat-proxy`, { token: mo.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid");
      expect(Object.keys(res.body.error.details.fields)).toEqual(["meat_proxy"]);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("M-201 an agent gets humans_only, a conversation the human cannot read not_found, a chat it reads along not_a_participant; nothing is written", async () => {
    const { mo, m1, p1, oz, mg, patChat, ozChat, meat } = M;
    const before = await snapshot();
    expect(await setMeat(meat, m1, mg.id, true)).toStrictEqual({
      status: 403,
      body: { error: { code: "forbidden", message: expect.any(String), details: { reason: "humans_only" } } },
    });
    expect(await setMeat(meat, m1, m1.id, true)).toMatchObject({
      status: 403,
      body: { error: { details: { reason: "humans_only" } } },
    });
    const missing = await setMeat(meat, mo, "cnv-9999", true);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    expect(await setMeat(meat, mo, p1.id, true)).toEqual(missing);
    expect(await getConversation(meat, mo, p1.id)).toEqual(missing);
    const alongOnly = {
      status: 403,
      body: { error: { code: "forbidden", message: expect.any(String), details: { reason: "not_a_participant" } } },
    };
    expect(await setMeat(meat, mo, patChat.id, true)).toStrictEqual(alongOnly);
    // An owner outside the project reads its agent's chat along: not_a_participant there, not_found elsewhere.
    expect(await setMeat(meat, oz, ozChat.id, true)).toStrictEqual(alongOnly);
    expect(await setMeat(meat, oz, mg.id, true)).toEqual(missing);
    expect(await snapshot()).toEqual(before);
  });

  // [profile lead, profile hands, chat value, lead that holds, hands that holds]
  it.each([
    [false, false, null, false, false],
    [true, false, null, true, false],
    [false, false, true, true, false],
    [true, false, false, false, false],
    [false, true, true, true, true],
    [true, true, false, false, true],
    [false, true, null, false, true],
  ] as const)(
    "M-202 M-203 M-204 M-206 M-208 profile lead %s hands %s, chat %s: lead %s, hands %s hold in the chat",
    async (profileLead, profileHands, chat, lead, hands) => {
      const { mo, pat, mg, other, meat } = M;
      const NOTE = "Ask before acting.";
      await profile(mo, profileLead, profileHands, NOTE);
      expect(await setMeat(meat, mo, mg.id, chat)).toEqual(NO_CONTENT);
      const on = lead || hands;
      const expected = (own: boolean) => ({
        member_id: mo.id,
        kind: "human",
        handle: mo.handle,
        meat_proxy_lead: lead,
        meat_proxy_hands: hands,
        meat_proxy: on,
        meat_proxy_chat: own ? chat : null,
        ...(on ? { meat_proxy_note: expect.any(String) } : {}),
      });
      const seen = [
        { entry: entryOf(itemOf(await listItems(meat, mo), mg.id).participants, mo.id), own: true },
        { entry: entryOf((await getConversation(meat, mo, mg.id)).body.participants, mo.id), own: true },
        { entry: entryOf(itemOf(await listItems(meat, pat), mg.id).participants, mo.id), own: false },
      ];
      for (const { entry, own } of seen) {
        const { owner_id: _owner, joined_at: _joined, ...fields } = entry;
        expect(fields).toStrictEqual(expected(own));
        if (on) {
          // The note names the parts that hold, then the human's own words.
          expect(/lead/i.test(entry.meat_proxy_note)).toBe(lead);
          expect(/hands/i.test(entry.meat_proxy_note)).toBe(hands);
          expect(entry.meat_proxy_note.endsWith(NOTE)).toBe(true);
        }
      }
      // The profile is untouched, and a chat without a value of its own follows it.
      expect(
        await hub.db.human.findUniqueOrThrow({
          where: { id: mo.id },
          select: { meatProxyLead: true, meatProxyHands: true, meatProxyNote: true },
        }),
      ).toEqual({
        meatProxyLead: profileLead,
        meatProxyHands: profileHands,
        meatProxyNote: NOTE,
      });
      expect(entryOf(itemOf(await listItems(meat, mo), other.id).participants, mo.id)).toMatchObject({
        meat_proxy_lead: profileLead,
        meat_proxy_hands: profileHands,
        meat_proxy: profileLead || profileHands,
        meat_proxy_chat: null,
      });
      expect(await setMeat(meat, mo, mg.id, null)).toEqual(NO_CONTENT);
      await profile(mo, false, false);
    },
  );

  it("M-205 every human entry in participants carries the meat-proxy fields: the group view and list items, direct included; agent entries do not", async () => {
    const { mo, pat, m1, mg, other, patChat, meat } = M;
    await profile(mo, true, false, "Lead me.");
    const check = (participants: { kind: string; meat_proxy?: boolean }[]) => {
      for (const entry of participants) {
        if (entry.kind === "human") {
          for (const key of MEAT_KEYS) expect(entry).toHaveProperty(key);
          if (entry.meat_proxy) expect(entry).toHaveProperty("meat_proxy_note");
          else expect(entry).not.toHaveProperty("meat_proxy_note");
        } else {
          for (const key of [...MEAT_KEYS, "meat_proxy_note"]) expect(entry).not.toHaveProperty(key);
        }
      }
    };
    for (const reader of [mo, pat, m1]) {
      const items = await listItems(meat, reader, "?observed=true");
      expect(items.length).toBeGreaterThanOrEqual(2);
      for (const item of items) check(item.participants);
      for (const id of [mg.id, patChat.id]) check((await getConversation(meat, reader, id)).body.participants);
    }
    const direct = itemOf(await listItems(meat, mo), m1.id);
    expect(entryOf(direct.participants, mo.id)).toMatchObject({
      meat_proxy_lead: true,
      meat_proxy_hands: false,
      meat_proxy: true,
      meat_proxy_chat: null,
      meat_proxy_note: expect.any(String),
    });
    expect(entryOf(itemOf(await listItems(meat, mo), other.id).participants, pat.id)).toStrictEqual(humanEntry(pat));
    await profile(mo, false, false);
  });

  it("M-207 meat_proxy_chat is shown to the human itself only; every other reader gets null", async () => {
    const { mo, pat, m1, mg, meat } = M;
    expect(await setMeat(meat, mo, mg.id, true)).toEqual(NO_CONTENT);
    expect(await setMeat(meat, pat, mg.id, false)).toEqual(NO_CONTENT);
    const moEntries = async (reader: Member) => [
      entryOf(itemOf(await listItems(meat, reader), mg.id).participants, mo.id),
      entryOf((await getConversation(meat, reader, mg.id)).body.participants, mo.id),
    ];
    const patEntries = async (reader: Member) => [
      entryOf(itemOf(await listItems(meat, reader), mg.id).participants, pat.id),
      entryOf((await getConversation(meat, reader, mg.id)).body.participants, pat.id),
    ];
    for (const entry of await moEntries(mo))
      expect(entry).toMatchObject({ meat_proxy_lead: true, meat_proxy_chat: true });
    for (const reader of [pat, m1])
      for (const entry of await moEntries(reader))
        expect(entry).toMatchObject({ meat_proxy_lead: true, meat_proxy_chat: null });
    for (const entry of await patEntries(pat))
      expect(entry).toMatchObject({ meat_proxy_lead: false, meat_proxy_chat: false });
    for (const reader of [mo, m1])
      for (const entry of await patEntries(reader))
        expect(entry).toMatchObject({ meat_proxy_lead: false, meat_proxy_chat: null });
    expect(await setMeat(meat, mo, mg.id, null)).toEqual(NO_CONTENT);
    expect(await setMeat(meat, pat, mg.id, null)).toEqual(NO_CONTENT);
  });

  it("M-210 where the chat's value and the profile's lead differ, the chat's holds there, the direct conversation with the agent's own human included", async () => {
    const { mo, m1, mg, meat } = M;
    await profile(mo, true, false);
    expect(await setMeat(meat, mo, m1.id, false)).toEqual(NO_CONTENT);
    const agentDirect = async () => entryOf(itemOf(await listItems(meat, m1), m1.id).participants, mo.id);
    const agentGroup = async () => entryOf(itemOf(await listItems(meat, m1), mg.id).participants, mo.id);
    expect(await agentDirect()).toStrictEqual(humanEntry(mo));
    expect(entryOf((await getConversation(meat, m1, m1.id)).body.participants, mo.id)).toStrictEqual(humanEntry(mo));
    expect(await agentGroup()).toMatchObject({ meat_proxy_lead: true, meat_proxy: true, meat_proxy_chat: null });
    await profile(mo, false, false);
    expect(await setMeat(meat, mo, m1.id, true)).toEqual(NO_CONTENT);
    expect(await agentDirect()).toMatchObject({
      meat_proxy_lead: true,
      meat_proxy_hands: false,
      meat_proxy: true,
      meat_proxy_chat: null,
      meat_proxy_note: expect.any(String),
    });
    expect(await agentGroup()).toStrictEqual(humanEntry(mo));
    expect(await setMeat(meat, mo, m1.id, null)).toEqual(NO_CONTENT);
  });

  it("M-211 only the human sets its own value: no member_id is taken, another human's PUT sets its own; the value grants and denies nothing", async () => {
    const { mo, pat, mg, meat } = M;
    const before = await snapshot();
    const named = await rest("PUT", `${meat.base}/conversations/${mg.id}/meat-proxy`, {
      token: pat.token,
      body: { meat_proxy: true, member_id: mo.id },
    });
    expect(named).toStrictEqual({
      status: 400,
      body: {
        error: { code: "invalid", message: expect.any(String), details: { fields: { member_id: "unknown_field" } } },
      },
    });
    expect(await snapshot()).toEqual(before);
    expect(await setMeat(meat, pat, mg.id, true)).toEqual(NO_CONTENT);
    expect(await chatValue(pat, mg.id)).toBe(true);
    expect(await chatValue(mo, mg.id)).toBeNull();
    // Not a permission: with either value mo posts and manages the chat as before.
    for (const value of [true, false]) {
      expect(await setMeat(meat, mo, mg.id, value)).toEqual(NO_CONTENT);
      expect(
        (
          await rest("POST", `${meat.base}/conversations/${mg.id}/messages`, {
            token: mo.token,
            body: { body: `with ${value}` },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await rest("PATCH", `${meat.base}/conversations/${mg.id}`, {
            token: mo.token,
            body: { title: `Meat ${value}` },
          })
        ).status,
      ).toBe(200);
    }
    expect(await setMeat(meat, pat, mg.id, null)).toEqual(NO_CONTENT);
    expect(await setMeat(meat, mo, mg.id, null)).toEqual(NO_CONTENT);
  });

  it("M-212 a change emits no event and wakes nobody", async () => {
    const { mo, m1, mg, meat } = M;
    const events = await hub.db.event.count();
    const spy = busSpy();
    for (const id of [mg.id, m1.id])
      for (const value of [true, false, null]) expect(await setMeat(meat, mo, id, value)).toEqual(NO_CONTENT);
    spy.stop();
    expect(spy.seen).toEqual([]);
    expect(await hub.db.event.count()).toBe(events);
  });

  it("M-213 the view in a later conversation event carries the values at the event's time; a fresh read gives the current one", async () => {
    const { mo, pat, m1, mg, meat } = M;
    const eventsOf = async (id: string) => {
      const res = await rest("GET", `${meat.base}/events?after=0&limit=200`, { token: pat.token });
      expect(res.status).toBe(200);
      return res.body.items.filter(
        (e: { kind: string; conversation_id: string }) => e.kind !== "message" && e.conversation_id === id,
      );
    };
    expect(await setMeat(meat, mo, mg.id, true)).toEqual(NO_CONTENT);
    expect(
      (await rest("PATCH", `${meat.base}/conversations/${mg.id}`, { token: mo.token, body: { title: "Meat v2" } }))
        .status,
    ).toBe(200);
    expect(await setMeat(meat, mo, mg.id, false)).toEqual(NO_CONTENT);
    expect(
      (await rest("PATCH", `${meat.base}/conversations/${mg.id}`, { token: mo.token, body: { title: "Meat v3" } }))
        .status,
    ).toBe(200);
    const events = await eventsOf(mg.id);
    const v2 = events.find(
      (e: { payload: { changed?: { title?: string } } }) => e.payload.changed?.title === "Meat v2",
    );
    const v3 = events.find(
      (e: { payload: { changed?: { title?: string } } }) => e.payload.changed?.title === "Meat v3",
    );
    expect(entryOf(v2.payload.conversation.participants, mo.id)).toMatchObject({
      meat_proxy_lead: true,
      meat_proxy: true,
      meat_proxy_chat: null,
      meat_proxy_note: expect.any(String),
    });
    const v3Entry = entryOf(v3.payload.conversation.participants, mo.id);
    expect(v3Entry).toMatchObject({
      meat_proxy_lead: false,
      meat_proxy_hands: false,
      meat_proxy: false,
      meat_proxy_chat: null,
    });
    expect(v3Entry).not.toHaveProperty("meat_proxy_note");
    expect(entryOf((await getConversation(meat, mo, mg.id)).body.participants, mo.id)).toMatchObject({
      meat_proxy_lead: false,
      meat_proxy_chat: false,
    });

    // conversation_created: the profile's value when the chat was made, whatever it is now.
    await profile(mo, true, false);
    const later = await group(meat, mo, [pat, m1], "Created while leading");
    await profile(mo, false, false);
    const [created] = await eventsOf(later.id);
    expect(created.kind).toBe("conversation_created");
    expect(entryOf(created.payload.conversation.participants, mo.id)).toMatchObject({
      meat_proxy_lead: true,
      meat_proxy: true,
      meat_proxy_chat: null,
    });
    expect(entryOf((await getConversation(meat, pat, later.id)).body.participants, mo.id)).toMatchObject({
      meat_proxy_lead: false,
      meat_proxy: false,
    });
    expect(await setMeat(meat, mo, mg.id, null)).toEqual(NO_CONTENT);
  });
});

// ---------------------------------------------------------------------------------------------
// GET /me/conversations
// ---------------------------------------------------------------------------------------------

async function worldQ() {
  const quinn = await newHuman("quinn");
  const rita = await newHuman("rita", quinn);
  const zed = await newHuman("zed", quinn); // no memberships; its agent is in rita/outside
  const q1 = await newAgent(quinn, "agent-q1");
  const q2 = await newAgent(quinn, "agent-q2");
  const r1 = await newAgent(rita, "agent-r1");
  const z1 = await newAgent(zed, "agent-z1");
  const alpha = await newProject(quinn, "alpha", "Alpha");
  const beta = await newProject(rita, "beta", "Beta");
  const gamma = await newProject(quinn, "gamma", "Gamma"); // archived below
  const gone = await newProject(rita, "gone", "Gone"); // quinn is removed below
  const outside = await newProject(rita, "outside", "Outside"); // quinn's agent only
  await join(alpha, rita, q1, q2, r1);
  await join(beta, quinn, q1, r1);
  await join(gamma, rita);
  await join(gone, quinn);
  await join(outside, q1, z1);
  const qa1 = await group(alpha, quinn, [rita], "alpha chat");
  const qa2 = await group(alpha, rita, [q2, r1], "alpha observed"); // quinn reads along
  const qb1 = await group(beta, rita, [quinn, r1], "beta chat");
  const qg1 = await group(gamma, quinn, [rita], "gamma chat");
  const qr1 = await group(gone, rita, [quinn], "gone chat");
  const qo1 = await group(outside, rita, [q1], "outside chat"); // quinn reads along from outside
  const zo = await group(outside, rita, [z1], "zed reads along");
  await say(alpha, q1, q1.id, "q1 in alpha");
  await say(alpha, rita, qa1.id, "@quinn alpha");
  await say(alpha, rita, qa2.id, "observed talk");
  await say(beta, q1, q1.id, "q1 in beta 1");
  await say(beta, q1, q1.id, "q1 in beta 2");
  await say(beta, rita, qb1.id, "hi");
  await say(gamma, rita, qg1.id, "@quinn gamma");
  await say(gone, rita, qr1.id, "gone msg");
  await say(outside, rita, qo1.id, "outside talk");
  await archive(gamma);
  await dropMember(gone, quinn);
  expect(await pin(beta, quinn, qb1.id)).toEqual(NO_CONTENT);
  expect(await pin(alpha, quinn, q2.id)).toEqual(NO_CONTENT);
  return { quinn, rita, zed, q1, q2, r1, z1, alpha, beta, gamma, gone, outside, qa1, qa2, qb1, qg1, qr1, qo1, zo };
}

describe("§9.3 GET /me/conversations", () => {
  let Q: Awaited<ReturnType<typeof worldQ>>;
  beforeAll(async () => {
    Q = await worldQ();
  });

  it("M-216 an agent gets forbidden, humans_only", async () => {
    const { q1 } = Q;
    for (const query of ["", "?observed=true&limit=5"]) {
      expect(await me(q1, query)).toStrictEqual({
        status: 403,
        body: { error: { code: "forbidden", message: expect.any(String), details: { reason: "humans_only" } } },
      });
    }
  });

  it("M-215 takes observed (default false), limit (default 50) and cursor; refuses bad values with the field named", async () => {
    const { quinn } = Q;
    const res = await me(quinn);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["items", "next_cursor", "totals"]);
    expect(res.body.next_cursor).toBeNull();
    expect(await me(quinn, "?observed=false&limit=50")).toEqual(res);
    expect((await me(quinn, "?observed=true")).body.items.length).toBe(res.body.items.length + 1);
    const cases: [string, string, string | null][] = [
      ["?limit=0", "limit", null],
      ["?limit=201", "limit", null],
      ["?limit=many", "limit", null],
      ["?observed=1", "observed", null],
      ["?cursor=nonsense", "cursor", "bad_cursor"],
      ["?project=quinn/alpha", "project", "unknown_field"],
    ];
    for (const [query, field, value] of cases) {
      const bad = await me(quinn, query);
      expect(bad.status, query).toBe(400);
      expect(bad.body, query).toStrictEqual({
        error: {
          code: "invalid",
          message: expect.any(String),
          details: { fields: { [field]: value ?? expect.any(String) } },
        },
      });
    }
    expect((await me(quinn, "?limit=200")).status).toBe(200);
  });

  it("M-217 M-220 M-221 the items are those the project lists give in every project where the caller is an active member, archived ones included", async () => {
    const { quinn, alpha, beta, gamma, gone, outside, qo1 } = Q;
    for (const observed of ["false", "true"]) {
      const res = await me(quinn, `?observed=${observed}`);
      expect(res.status).toBe(200);
      const items: { id: string; project: { full_name: string } }[] = res.body.items;
      expect([...new Set(items.map((i) => i.project.full_name))].sort()).toEqual(
        [alpha.fullName, beta.fullName, gamma.fullName].sort(),
      );
      for (const project of [alpha, beta, gamma]) {
        const perProject = await listItems(project, quinn, `?observed=${observed}`);
        const here = items
          .filter((i) => i.project.full_name === project.fullName)
          .map(({ project: _project, ...item }) => item);
        expect(here, `${project.fullName} observed=${observed}`).toStrictEqual(perProject);
      }
      expect(ids(items)).not.toContain(qo1.id);
    }
    // The chats it reads along from outside are in that project's list, never in /me.
    expect(ids(await listItems(outside, quinn, "?observed=true"))).toEqual([qo1.id]);
    // A project it was removed from is gone from both.
    expect((await list(gone, quinn)).status).toBe(404);
  });

  it("M-198 M-218 M-219 one list in four bands, each by activity newest first", async () => {
    const { quinn, q1, q2, alpha, beta, gamma, qa1, qa2, qb1, qg1 } = Q;
    const expected = [
      `${beta.fullName} ${qb1.id}`, // pinned with unread
      `${gamma.fullName} ${qg1.id}`, // unread, newest first
      `${beta.fullName} ${q1.id}`,
      `${alpha.fullName} ${qa1.id}`,
      `${alpha.fullName} ${q1.id}`,
      `${alpha.fullName} ${q2.id}`, // pinned, no message: the agent's joined_at
    ];
    expect(meKeys((await me(quinn)).body.items)).toEqual(expected);
    expect(meKeys((await me(quinn, "?observed=true")).body.items)).toEqual([
      ...expected,
      `${alpha.fullName} ${qa2.id}`,
    ]);
    const items = (await me(quinn, "?observed=true")).body.items;
    expect(items.map((i: { pinned: boolean; unread: number | null }) => [i.pinned, i.unread])).toEqual([
      [true, 1],
      [false, 1],
      [false, 2],
      [false, 1],
      [false, 1],
      [true, 0],
      [false, null],
    ]);
  });

  it("M-222 each item carries project {owner, slug, full_name, name}", async () => {
    const { quinn, alpha, beta, gamma } = Q;
    const projects = Object.fromEntries(
      [alpha, beta, gamma].map((p) => [
        p.fullName,
        { owner: p.owner, slug: p.slug, full_name: p.fullName, name: p.name },
      ]),
    );
    const items = (await me(quinn, "?observed=true")).body.items;
    expect(items.length).toBe(7);
    for (const item of items) expect(item.project).toStrictEqual(projects[item.project.full_name]);
    expect(itemOf(items, Q.qg1.id).project).toStrictEqual({
      owner: "quinn",
      slug: "gamma",
      full_name: "quinn/gamma",
      name: "Gamma",
    });
  });

  it("M-224 M-178 totals are over all items and the same on every page, whatever limit and cursor; pages concatenate to the list", async () => {
    const { quinn } = Q;
    for (const observed of ["false", "true"]) {
      const whole = (await me(quinn, `?observed=${observed}`)).body;
      expect(whole.totals).toStrictEqual({ unread: 6, mentions_unread: 2 });
      for (const limit of [1, 2, 3, 5]) {
        const { items, bodies } = await allPages("/api/me/conversations", quinn, limit, `&observed=${observed}`);
        expect(meKeys(items as { id: string; project: { full_name: string } }[])).toEqual(meKeys(whole.items));
        for (const body of bodies) expect(body.totals).toStrictEqual({ unread: 6, mentions_unread: 2 });
      }
    }
  });

  it("M-225 observers' items count nothing; an empty list has totals 0 and 0", async () => {
    const { quinn, zed, outside, qa2, zo } = Q;
    const observed = (await me(quinn, "?observed=true")).body;
    expect(itemOf(observed.items, qa2.id)).toMatchObject({ access: "observer", unread: null, mentions_unread: null });
    expect(observed.totals).toStrictEqual((await me(quinn)).body.totals);
    for (const query of ["", "?observed=true"]) {
      expect(await me(zed, query)).toStrictEqual({
        status: 200,
        body: { items: [], next_cursor: null, totals: { unread: 0, mentions_unread: 0 } },
      });
    }
    // zed does read a chat there, through that project's routes.
    expect(ids(await listItems(outside, zed, "?observed=true"))).toEqual([zo.id]);
  });

  it("M-223 the same agent id names one direct conversation per project; with project.full_name the project's routes read and write it", async () => {
    const { quinn, q1, alpha, beta } = Q;
    const directs = (await me(quinn)).body.items.filter((i: { id: string }) => i.id === q1.id);
    expect(directs.map((i: { project: { full_name: string } }) => i.project.full_name)).toEqual([
      beta.fullName,
      alpha.fullName,
    ]);
    expect(directs.map((i: { unread: number }) => i.unread)).toEqual([2, 1]);
    for (const direct of directs) {
      const { project, ...item } = direct;
      expect(
        await rest("GET", `/api/projects/${project.owner}/${project.slug}/conversations/${q1.id}`, {
          token: quinn.token,
        }),
      ).toStrictEqual({ status: 200, body: item });
    }
    const read = await readNew(beta, quinn, q1.id);
    expect(read.items.map((m: { body: string; conversation_id: string }) => [m.conversation_id, m.body])).toEqual([
      [q1.id, "q1 in beta 1"],
      [q1.id, "q1 in beta 2"],
    ]);
    const posted = await say(alpha, quinn, q1.id, "only in alpha");
    const after = (await me(quinn)).body;
    const alphaItem = after.items.find(
      (i: { id: string; project: { full_name: string } }) => i.id === q1.id && i.project.full_name === alpha.fullName,
    );
    const betaItem = after.items.find(
      (i: { id: string; project: { full_name: string } }) => i.id === q1.id && i.project.full_name === beta.fullName,
    );
    expect(alphaItem).toMatchObject({ unread: 0, last_message: { seq: posted.seq, body: "only in alpha" } });
    expect(betaItem).toMatchObject({ unread: 0, last_message: { body: "q1 in beta 2" } });
    expect(after.totals).toStrictEqual({ unread: 3, mentions_unread: 2 });
    // A pin under alpha pins alpha's conversation only.
    expect(await pin(alpha, quinn, q1.id)).toEqual(NO_CONTENT);
    const pinned = (await me(quinn)).body.items.filter((i: { id: string }) => i.id === q1.id);
    expect(
      pinned.map((i: { project: { full_name: string }; pinned: boolean }) => [i.project.full_name, i.pinned]).sort(),
    ).toEqual([
      [alpha.fullName, true],
      [beta.fullName, false],
    ]);
  });
});

async function worldT() {
  const tia = await newHuman("tia");
  const uma = await newHuman("uma");
  const t2 = await newAgent(tia, "agent-t2"); // created before agent-t1
  const t1 = await newAgent(tia, "agent-t1");
  const two = await newProject(uma, "two", "Two"); // created before tia/one
  const one = await newProject(tia, "one", "One");
  await join(two, tia, t2, t1);
  await join(one, uma, t2, t1);
  const g2 = await group(two, uma, [tia], "two chat");
  const g1 = await group(one, tia, [uma], "one chat");
  // Equal activity for all six: the same joined_at for the agents, the same created_at for the chats.
  const tie = new Date("2020-01-01T00:00:00.000Z");
  await hub.db.membership.updateMany({ where: { memberId: { in: [t1.id, t2.id] } }, data: { joinedAt: tie } });
  await hub.db.conversation.updateMany({
    where: { kind: "group", publicId: { in: [g1.id, g2.id] } },
    data: { createdAt: tie },
  });
  // The participations keep that activity for the list's order (activity_at, set at the join):
  // moved with the columns it was taken from, as the hub never moves them.
  await hub.db.participation.updateMany({ where: { memberId: tia.id, leftAt: null }, data: { activityAt: tie } });
  return { tia, uma, t1, t2, one, two, g1, g2 };
}

describe("§9.3 GET /me/conversations: equal activity", () => {
  let T: Awaited<ReturnType<typeof worldT>>;
  beforeAll(async () => {
    T = await worldT();
  });

  it("M-218 M-178 equal activity orders by project.full_name, then id, both ascending, and pages the same way", async () => {
    const { tia, t1, t2, one, two, g1, g2 } = T;
    const expected = [
      `tia/one ${t1.id}`,
      `tia/one ${t2.id}`,
      `tia/one ${g1.id}`,
      `uma/two ${t1.id}`,
      `uma/two ${t2.id}`,
      `uma/two ${g2.id}`,
    ];
    expect(meKeys((await me(tia)).body.items)).toEqual(expected);
    for (const limit of [1, 2, 4]) {
      const { items } = await allPages("/api/me/conversations", tia, limit);
      expect(meKeys(items as { id: string; project: { full_name: string } }[])).toEqual(expected);
    }
    expect(ids(await listItems(one, tia))).toEqual([t1.id, t2.id, g1.id]);
    expect(ids(await listItems(two, tia))).toEqual([t1.id, t2.id, g2.id]);
    // Newer activity comes before the name order.
    await say(two, tia, g2.id, "newest");
    expect(meKeys((await me(tia)).body.items)).toEqual([
      `uma/two ${g2.id}`,
      ...expected.filter((k) => k !== `uma/two ${g2.id}`),
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Default limit, and the statement count
// ---------------------------------------------------------------------------------------------

async function worldL() {
  const lou = await newHuman("lou");
  const lux = await newHuman("lux", lou);
  const many = await newProject(lou, "many", "Many");
  await join(many, lux);
  const chats: string[] = [];
  for (let i = 0; i < 52; i++) chats.push((await group(many, lou, [lux], `chat ${i}`)).id);
  for (const id of chats.slice(10, 13)) await say(many, lux, id, "@lou news");
  return { lou, lux, many, chats };
}

describe("§9.3 paging 52 conversations", () => {
  let L: Awaited<ReturnType<typeof worldL>>;
  beforeAll(async () => {
    L = await worldL();
  });

  it("M-168 M-169 limit defaults to 50; next_cursor leads to the rest and is null on the last page", async () => {
    const { lou, many, chats } = L;
    const whole = await list(many, lou, "?limit=200");
    expect(whole.body.items).toHaveLength(52);
    expect(whole.body.next_cursor).toBeNull();
    expect(sortedIds(whole.body.items)).toEqual([...chats].sort());
    const first = await list(many, lou);
    expect(first.body.items).toHaveLength(50);
    expect(typeof first.body.next_cursor).toBe("string");
    const second = await list(many, lou, `?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    expect([...ids(first.body.items), ...ids(second.body.items)]).toEqual(ids(whole.body.items));
    expect((await list(many, lou, "?limit=52")).body).toStrictEqual(whole.body);
    const fiftyOne = await list(many, lou, "?limit=51");
    expect(fiftyOne.body.items).toHaveLength(51);
    expect(typeof fiftyOne.body.next_cursor).toBe("string");
  });

  it("M-215 M-224 GET /me/conversations pages 50 by default and carries the totals of all 52 items on each page", async () => {
    const { lou, many } = L;
    const perProject = ids((await list(many, lou, "?limit=200")).body.items);
    const first = await me(lou);
    expect(first.body.items).toHaveLength(50);
    expect(typeof first.body.next_cursor).toBe("string");
    const second = await me(lou, `?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    expect([...ids(first.body.items), ...ids(second.body.items)]).toEqual(perProject);
    for (const page of [first, second]) expect(page.body.totals).toStrictEqual({ unread: 3, mentions_unread: 3 });
  });
});

async function worldX() {
  const x = await newHuman("x");
  const xp = await newHuman("xp", x);
  const projects: Project[] = [];
  const add = async (i: number) => {
    const p = await newProject(x, `p${i}`, `P${i}`);
    const agent = await newAgent(x, `agent-x${i}`);
    await join(p, xp, agent);
    const one = await group(p, x, [xp], `p${i} one`);
    await group(p, x, [xp, agent], `p${i} two`);
    await group(p, xp, [agent], `p${i} read along`); // x observes
    await say(p, xp, one.id, "@x hello");
    await say(p, agent, agent.id, "from the agent");
    projects.push(p);
  };
  await add(0);
  return { x, add };
}

describe("§9.3 GET /me/conversations is one read", () => {
  let X: Awaited<ReturnType<typeof worldX>>;
  beforeAll(async () => {
    X = await worldX();
  });

  const caller = { kind: "human" as const, id: "hum-x", handle: "x", name: "X" };
  async function statementsOf(query: { limit: number; observed?: boolean }) {
    const seen: string[] = [];
    const stop = hub.database.observeQueries((sql) => seen.push(sql));
    try {
      const page = await hub.conversations.mine(caller, { observed: false, ...query });
      return { seen, page };
    } finally {
      stop();
    }
  }

  it("M-227 at most two SQL statements, as many for 1 project as for 6 projects with several chats each", async () => {
    const oneProject = await statementsOf({ limit: 50 });
    expect(oneProject.page.items).toHaveLength(3);
    expect(oneProject.page.totals).toStrictEqual({ unread: 2, mentions_unread: 1 });
    expect(oneProject.seen.length, oneProject.seen.join("\n")).toBeLessThanOrEqual(2);
    const oneObserved = await statementsOf({ limit: 50, observed: true });
    expect(oneObserved.page.items).toHaveLength(4);
    expect(oneObserved.seen.length).toBeLessThanOrEqual(2);

    for (let i = 1; i <= 5; i++) await X.add(i);
    const sixProjects = await statementsOf({ limit: 50 });
    expect(sixProjects.page.items).toHaveLength(18);
    expect(new Set(sixProjects.page.items.map((i) => i.project.full_name)).size).toBe(6);
    expect(sixProjects.page.totals).toStrictEqual({ unread: 12, mentions_unread: 6 });
    expect(sixProjects.seen.length, sixProjects.seen.join("\n")).toBeLessThanOrEqual(2);
    expect(sixProjects.seen.length).toBe(oneProject.seen.length);
    const sixObserved = await statementsOf({ limit: 50, observed: true });
    expect(sixObserved.page.items).toHaveLength(24);
    expect(sixObserved.seen.length).toBe(oneObserved.seen.length);
  });
});
