// §9.0 The family of conversations and §9.1 Direct conversations — M-001 … M-062 of
// requirements/maity-conversations.md, plus M-239/M-240 (typed ids; hidden answers like missing),
// as decided in docs/api.md.
//
// Not tested here (owned elsewhere): M-006 (UI); M-012 (§7 talk answer); M-018 (bridges, §2.3);
// M-059/M-060 (the agent's event cursor and wait — agent protocol); the wait/resume half of M-055
// and the wake rule's own choice of instance in M-045 (§6.18, agent protocol). Attachments are not
// built: M-030/M-036/M-039 check they are always [] and that no attachment route exists.
import type { Hub } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";

const hub = await testHub();
const rest = restClient(hub);
// M-035 needs a tiny ping rate, a setting of the hub: it gets a hub of its own.
const pingHub = await testHub({ pingRate: { pings: 1, windowSeconds: 600 } });
const pingRest = restClient(pingHub);
afterAll(async () => {
  await hub.close();
  await pingHub.close();
});

type Rest = ReturnType<typeof restClient>;
type Res = Awaited<ReturnType<Rest>>;
type Redaction = { at: string; by: string; reason: string | null };
type Msg = {
  id: string;
  seq: number;
  conversation_id: string;
  from: string;
  to: string;
  body: string | null;
  sent_at: string;
  delivered_at?: string | null;
  mentions: Record<string, unknown>[];
  attachments: unknown[];
  from_instance: string | null;
  to_instance: string | null;
  redacted: boolean;
  redaction: Redaction | null;
};
type Preview = { seq: number; from: string; body: string | null; sent_at: string; redacted: boolean };
type Item = {
  id: string;
  kind: "direct" | "group";
  agent_id?: string;
  title: string | null;
  participants: Record<string, unknown>[];
  access: string;
  closed_at: string | null;
  last_message_at: string | null;
  unread: number | null;
  mentions_unread: number | null;
  pinned: boolean;
  last_message: Preview | null;
  project?: Record<string, string>;
};

const LAB = "/api/projects/olga/lab";
const SIDE = "/api/projects/olga/side";
const NOWHERE = "/api/projects/olga/nothing";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const MESSAGE_KEYS = [
  "attachments",
  "body",
  "conversation_id",
  "delivered_at",
  "from",
  "from_instance",
  "id",
  "mentions",
  "redacted",
  "redaction",
  "sent_at",
  "seq",
  "to",
  "to_instance",
];
const GROUP_MESSAGE_KEYS = MESSAGE_KEYS.filter((k) => k !== "delivered_at");
const DIRECT_ITEM_KEYS = [
  "access",
  "agent_id",
  "closed_at",
  "id",
  "kind",
  "last_message",
  "last_message_at",
  "mentions_unread",
  "participants",
  "pinned",
  "title",
  "unread",
];
const PREVIEW_KEYS = ["body", "from", "redacted", "sent_at", "seq"];
const T: Record<string, string> = {};

const conv = (id: string, project = LAB) => `${project}/conversations/${id}`;
const seqs = (items: { seq: number }[]) => items.map((m) => m.seq);

function tok(who: string): string {
  const token = T[who];
  if (!token) throw new Error(`no token for ${who}`);
  return token;
}

async function admin(r: Rest, method: string, path: string, body?: unknown) {
  const res = await r(method, path, { token: ADMIN, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function post(
  who: string,
  id: string,
  body: string,
  options: { project?: string; to_instance?: string | null; instance?: string } = {},
): Promise<Msg> {
  const payload: Record<string, unknown> = { body };
  if (options.to_instance !== undefined) payload.to_instance = options.to_instance;
  const res = await rest("POST", `${conv(id, options.project)}/messages`, {
    token: tok(who),
    body: payload,
    ...(options.instance ? { headers: { "x-agent-instance": options.instance } } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function read(
  who: string,
  id: string,
  query = "",
  options: { project?: string; instance?: string } = {},
): Promise<{ items: Msg[]; next_cursor?: string | null; earlier?: number | null }> {
  const res = await rest("GET", `${conv(id, options.project)}/messages${query ? `?${query}` : ""}`, {
    token: tok(who),
    ...(options.instance ? { headers: { "x-agent-instance": options.instance } } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function item(who: string, id: string, project = LAB): Promise<Item> {
  const res = await rest("GET", conv(id, project), { token: tok(who) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function list(who: string, project = LAB): Promise<Item[]> {
  const res = await rest("GET", `${project}/conversations?limit=200`, { token: tok(who) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body.items;
}

async function events(who: string, after: number, project = LAB): Promise<(Msg & { kind: string; type?: string })[]> {
  const res = await rest("GET", `${project}/events?after=${after}&limit=200`, { token: tok(who) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.next_cursor).toBeNull();
  return res.body.items;
}

async function createGroup(who: string, body: unknown): Promise<{ id: string; kind: string; title: string | null }> {
  const res = await rest("POST", `${LAB}/conversations`, { token: tok(who), body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const lastSeq = async (h: Hub = hub): Promise<number> =>
  (await h.db.event.aggregate({ _max: { seq: true } }))._max.seq ?? 0;

async function verdicts(seq: number) {
  return hub.db.routingVerdict.findMany({
    where: { eventSeq: seq },
    select: { agentId: true, instanceId: true, shouldRespond: true },
    orderBy: { agentId: "asc" },
  });
}

/** Everything a refused call or a read could have touched. */
async function state(h: Hub = hub) {
  const [events, audience, verdictCount, conversations, participations, redactions, pins, keys] = await Promise.all([
    h.db.event.findMany({
      select: { seq: true, body: true, redacted: true, deliveredAt: true, mentions: true, pings: true },
      orderBy: { seq: "asc" },
    }),
    h.db.eventAudience.count(),
    h.db.routingVerdict.count(),
    h.db.conversation.findMany({
      select: { id: true, publicId: true, kind: true, title: true, closedAt: true, lastSeq: true },
      orderBy: { id: "asc" },
    }),
    h.db.participation.findMany({
      select: { id: true, memberId: true, leftAt: true, readMarkerSeq: true, meatProxyChat: true },
      orderBy: { id: "asc" },
    }),
    h.db.redaction.findMany({
      select: { eventSeq: true, byId: true, reason: true, at: true },
      orderBy: { eventSeq: "asc" },
    }),
    h.db.pin.findMany({
      select: { humanId: true, conversationId: true },
      orderBy: [{ humanId: "asc" }, { conversationId: "asc" }],
    }),
    h.db.idempotencyKey.count(),
  ]);
  return { events, audience, verdictCount, conversations, participations, redactions, pins, keys };
}

function humanEntry(memberId: string, handle: string) {
  return {
    member_id: memberId,
    kind: "human",
    handle,
    meat_proxy_lead: false,
    meat_proxy_hands: false,
    meat_proxy: false,
    meat_proxy_chat: null,
  };
}
/** An agent's entry (the file's people share olga's Bay: no agent here is a visitor, DESIGN §4c). */
function agentEntry(memberId: string, handle: string, owner: string) {
  return { member_id: memberId, kind: "agent", handle, name: `${owner}/${handle}`, context: null, visiting: null };
}

/** Every conversation route of §9 on one conversation id (the message seq for the redaction). */
function routes(id: string, seq: number, project = LAB): [string, string, unknown?][] {
  const c = conv(id, project);
  return [
    ["GET", c],
    ["GET", `${c}/messages`],
    ["GET", `${c}/messages?after=0`],
    ["GET", `${c}/messages?before=${seq + 1}`],
    ["POST", `${c}/messages`, { body: "hello" }],
    ["POST", `${project}/events`, { type: "chat", conversation_id: id, body: "hello" }],
    ["POST", `${c}/messages/${seq}/redact`, { reason: "x" }],
    ["PUT", `${c}/pin`],
    ["DELETE", `${c}/pin`],
    ["PUT", `${c}/meat-proxy`, { meat_proxy: true }],
    ["PATCH", c, { title: "New" }],
    ["POST", `${c}/participants`, { member_id: "hum-gus" }],
    ["DELETE", `${c}/participants/hum-ben`],
    ["PATCH", `${c}/participants/hum-ben`, { wake: "all" }],
  ];
}

/** The hidden conversation answers every route exactly like a missing one (same status, same body). */
async function expectHiddenLikeMissing(
  who: string,
  hiddenId: string,
  missingId: string,
  seq: number,
  hiddenProject = LAB,
  missingProject = LAB,
) {
  const hidden = routes(hiddenId, seq, hiddenProject);
  const missing = routes(missingId, seq, missingProject);
  for (let i = 0; i < hidden.length; i++) {
    const [method, hiddenPath, body] = hidden[i] as [string, string, unknown?];
    const [, missingPath] = missing[i] as [string, string, unknown?];
    const a = await rest(method, hiddenPath, { token: tok(who), body });
    const b = await rest(method, missingPath, { token: tok(who), body });
    expect(a, `${who} ${method} ${hiddenPath}`).toEqual(b);
    const humansOnly = who.startsWith("agt-") && (hiddenPath.endsWith("/pin") || hiddenPath.endsWith("/meat-proxy"));
    if (humansOnly)
      expect(a.body.error, `${who} ${method} ${hiddenPath}`).toMatchObject({
        code: "forbidden",
        details: { reason: "humans_only" },
      });
    else
      expect({ status: a.status, code: a.body.error.code }, `${who} ${method} ${hiddenPath}`).toEqual({
        status: 404,
        code: "not_found",
      });
  }
}

beforeAll(async () => {
  // olga owns both projects (members:admin); cara also holds members:admin; ben and gus are plain
  // members; dan has nothing to do with the projects; eve is not a member but her agent-e is.
  for (const h of ["olga", "ben", "cara", "gus", "dan", "eve"])
    await admin(rest, "POST", "/api/admin/humans", {
      handle: h,
      name: h[0]?.toUpperCase() + h.slice(1),
      password: `${h}-password-1`,
      // One Bay for all (DESIGN §4c): §9.1 among a team's own agents, none of them a visitor.
      ...(h === "olga" ? {} : { bay: "olga" }),
    });
  for (const [owner, handle] of [
    ["olga", "agent-a"],
    ["ben", "agent-b"],
    ["ben", "agent-r"],
    ["ben", "agent-u"],
    ["ben", "agent-p"],
    ["ben", "agent-w"],
    ["ben", "agent-v"],
    ["eve", "agent-e"],
  ] as const)
    await admin(rest, "POST", "/api/admin/agents", { owner, handle });
  for (const slug of ["lab", "side"])
    await admin(rest, "POST", "/api/admin/projects", { owner: "olga", slug, name: slug.toUpperCase() });
  for (const m of ["hum-ben", "hum-gus", "agt-a", "agt-b", "agt-r", "agt-u", "agt-p", "agt-w", "agt-v", "agt-e"])
    await admin(rest, "POST", `/api/admin/projects/olga/lab/members`, { member_id: m });
  await admin(rest, "POST", `/api/admin/projects/olga/lab/members`, {
    member_id: "hum-cara",
    permissions: ["members:admin"],
  });
  for (const m of ["hum-ben", "agt-b"])
    await admin(rest, "POST", `/api/admin/projects/olga/side/members`, { member_id: m });
  for (const h of ["olga", "ben", "cara", "gus", "dan", "eve"])
    T[h] = (await admin(rest, "POST", "/api/admin/tokens", { member_id: `hum-${h}` })).token;
  for (const a of ["agt-a", "agt-b", "agt-r", "agt-u", "agt-p", "agt-w", "agt-v", "agt-e"])
    T[a] = (await admin(rest, "POST", "/api/admin/tokens", { member_id: a })).token;
});

describe("§9.0 the family of conversations", () => {
  it("M-001 M-005 M-007 one list answers both kinds; every conversation object says its kind; {id} is the agent's member id for a direct conversation, a cnv- id for a group chat", async () => {
    const group = await createGroup("ben", { title: "Plan", participants: ["hum-cara", "agt-b"] });
    expect(group.kind).toBe("group");
    expect(group.id).toMatch(/^cnv-/);
    const items = await list("ben");
    expect(
      items
        .filter((i) => i.kind === "direct")
        .map((i) => i.id)
        .sort(),
    ).toEqual(["agt-b", "agt-p", "agt-r", "agt-u", "agt-v", "agt-w"]);
    expect(items.filter((i) => i.kind === "group").map((i) => i.id)).toEqual([group.id]);
    for (const i of items) {
      expect(["direct", "group"]).toContain(i.kind);
      if (i.kind === "direct") expect(i.agent_id).toBe(i.id);
      else expect(i).not.toHaveProperty("agent_id");
    }
    expect((await item("ben", "agt-b")).kind).toBe("direct");
    expect((await item("ben", group.id)).kind).toBe("group");
    // The list across projects says the kind too.
    const me = await rest("GET", "/api/me/conversations?limit=200", { token: T.ben });
    expect(me.status).toBe(200);
    expect(new Set(me.body.items.map((i: Item) => i.kind))).toEqual(new Set(["direct", "group"]));
    for (const i of me.body.items as Item[]) expect(i.kind).toBe(i.id.startsWith("cnv-") ? "group" : "direct");
    // …and so does the conversation in an event's payload.
    const created = (await events("ben", 0)).find(
      (e) => e.kind === "conversation_created" && e.conversation_id === group.id,
    ) as unknown as { payload: { conversation: { id: string; kind: string } } };
    expect(created.payload.conversation).toMatchObject({ id: group.id, kind: "group" });
  });

  it("M-003 a group chat has a title and two to twelve participants of the project, and is created by a human only; refusals write nothing", async () => {
    const before = await state();
    const tooFew = await rest("POST", `${LAB}/conversations`, {
      token: T.ben,
      body: { title: "Alone", participants: ["hum-ben"] },
    });
    expect(tooFew.status).toBe(400);
    expect(tooFew.body.error).toMatchObject({ code: "invalid", details: { fields: { participants: "too_few" } } });
    const outsider = await rest("POST", `${LAB}/conversations`, {
      token: T.ben,
      body: { title: "Outsider", participants: ["hum-dan"] },
    });
    expect(outsider.status).toBe(400);
    expect(outsider.body.error.details.fields).toEqual({ participants: "not_a_member" });
    const byAgent = await rest("POST", `${LAB}/conversations`, {
      token: T["agt-b"],
      body: { title: "Agents", participants: ["hum-ben"] },
    });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.error).toMatchObject({ code: "forbidden", details: { reason: "humans_only" } });
    expect(await state()).toEqual(before);
    const ok = await createGroup("ben", { title: "Release", participants: ["hum-gus", "agt-a"] });
    expect(ok).toMatchObject({ kind: "group", title: "Release", created_by: "hum-ben" });
    expect(
      (ok as unknown as { participants: { member_id: string; kind: string }[] }).participants.map((p) => [
        p.member_id,
        p.kind,
      ]),
    ).toEqual([
      ["hum-ben", "human"],
      ["hum-gus", "human"],
      ["agt-a", "agent"],
    ]);
  });

  it("M-004 M-008 both kinds are written and read through the same endpoints, and each id reaches its own conversation", async () => {
    const group = await createGroup("ben", { title: "Same endpoints", participants: ["hum-cara", "agt-b"] });
    const start = await lastSeq();
    const g1 = await post("ben", group.id, "group via messages");
    const d1 = await post("ben", "agt-b", "direct via messages");
    const g2res = await rest("POST", `${LAB}/events`, {
      token: T.ben,
      body: { type: "chat", conversation_id: group.id, body: "group via events" },
    });
    const d2res = await rest("POST", `${LAB}/events`, {
      token: T.ben,
      body: { type: "chat", conversation_id: "agt-b", body: "direct via events" },
    });
    expect([g2res.status, d2res.status]).toEqual([201, 201]);
    const g2: Msg = g2res.body;
    const d2: Msg = d2res.body;
    for (const g of [g1, g2]) {
      expect(g).toMatchObject({ conversation_id: group.id, to: group.id, to_instance: null });
      expect(Object.keys(g).sort()).toEqual(GROUP_MESSAGE_KEYS);
    }
    for (const d of [d1, d2]) {
      expect(d).toMatchObject({ conversation_id: "agt-b", to: "agt-b", delivered_at: null });
      expect(Object.keys(d).sort()).toEqual(MESSAGE_KEYS);
    }
    expect(seqs((await read("cara", group.id, `after=${start}`)).items)).toEqual([g1.seq, g2.seq]);
    expect(seqs((await read("agt-b", "agt-b", `after=${start}`)).items)).toEqual([d1.seq, d2.seq]);
    expect(seqs((await read("agt-b", group.id, `after=${start}`)).items)).toEqual([g1.seq, g2.seq]);
    // GET /events: one readable set over both kinds, each with its conversation.
    const mine = (await events("ben", start)).map((e) => [e.seq, e.kind, e.type, e.conversation_id]);
    expect(mine).toEqual([
      [g1.seq, "message", "chat", group.id],
      [d1.seq, "message", "chat", "agt-b"],
      [g2.seq, "message", "chat", group.id],
      [d2.seq, "message", "chat", "agt-b"],
    ]);
    expect(seqs(await events("agt-b", start))).toEqual([g1.seq, d1.seq, g2.seq, d2.seq]);
    expect(seqs(await events("cara", start))).toEqual([g1.seq, g2.seq]);
    // The same route answers for the right kind.
    const renamed = await rest("PATCH", conv(group.id), { token: T.ben, body: { title: "Renamed" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: group.id, kind: "group", title: "Renamed" });
    const direct = await rest("PATCH", conv("agt-b"), { token: T.ben, body: { title: "Renamed" } });
    expect(direct.status).toBe(400);
    expect(direct.body.error.details.fields).toEqual({ conversation: "direct" });
  });

  it("M-008 M-239 M-240 ids are typed, opaque strings (hum-, agt-, cnv-, evt-) and no shape is trusted: any unknown id, whatever it looks like, answers the same not_found", async () => {
    const m = await post("ben", "agt-b", "typed ids");
    expect(m.id).toMatch(/^evt-/);
    expect(m.from).toMatch(/^hum-/);
    expect(m.to).toMatch(/^agt-/);
    const answers: Res[] = [];
    for (const id of ["cnv-9999", "agt-nope", "hum-ben", "evt-1", m.id, "agt-b-default", "x", "CNV-0001"])
      answers.push(await rest("GET", conv(id), { token: T.ben }));
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(answers[0]?.status).toBe(404);
    expect(answers[0]?.body.error.code).toBe("not_found");
  });
});

describe("§9.1 existence and identity", () => {
  it("M-002 M-009 M-010 a human's private chat with an agent it owns, as before: the owner writes, the agent reads and answers, the owner reads the answer; the conversation and its messages carry the agent's member id", async () => {
    const start = await lastSeq();
    const q = await post("ben", "agt-b", "How far is the API contract?");
    expect(
      (await read("agt-b", "agt-b", `after=${start}`)).items.map((i) => [
        i.seq,
        i.body,
        i.conversation_id,
        i.from,
        i.to,
      ]),
    ).toEqual([[q.seq, "How far is the API contract?", "agt-b", "hum-ben", "agt-b"]]);
    const a = await post("agt-b", "agt-b", "Half done.");
    expect(a).toMatchObject({ conversation_id: "agt-b", from: "agt-b", to: "hum-ben", body: "Half done." });
    expect((await read("ben", "agt-b", `after=${q.seq}`)).items.map((i) => [i.seq, i.body, i.conversation_id])).toEqual(
      [[a.seq, "Half done.", "agt-b"]],
    );
    const got = await item("ben", "agt-b");
    expect(got).toMatchObject({
      id: "agt-b",
      kind: "direct",
      agent_id: "agt-b",
      access: "party",
      last_message: { seq: a.seq, from: "agt-b", body: "Half done." },
    });
  });

  it("M-009 one direct conversation per project: agt-b's conversations in lab and in side share the id and nothing else; a project the agent is not in has none", async () => {
    const inLab = await post("ben", "agt-b", "lab only");
    const inSide = await post("ben", "agt-b", "side only", { project: SIDE });
    expect(inSide.conversation_id).toBe("agt-b");
    expect(seqs((await read("ben", "agt-b", "after=0")).items)).toContain(inLab.seq);
    expect(seqs((await read("ben", "agt-b", "after=0")).items)).not.toContain(inSide.seq);
    const side = await read("agt-b", "agt-b", "after=0", { project: SIDE });
    expect(side.items.map((i) => i.body)).toEqual(["side only"]);
    expect((await item("ben", "agt-b", SIDE)).last_message).toMatchObject({ seq: inSide.seq, body: "side only" });
    expect((await item("ben", "agt-b")).last_message).toMatchObject({ seq: inLab.seq, body: "lab only" });
    expect((await list("ben", SIDE)).map((i) => i.id)).toEqual(["agt-b"]);
    // agt-r is a member of lab only: in side it has no direct conversation.
    const none = await rest("GET", conv("agt-r", SIDE), { token: T.ben });
    const missing = await rest("GET", conv("agt-nope", SIDE), { token: T.ben });
    expect(none).toEqual(missing);
    expect(none.status).toBe(404);
  });

  it("M-009 M-011 a direct conversation is created by nothing: it is there as soon as the agent joins the project, with no message, for its owner and for the agent", async () => {
    await admin(rest, "POST", "/api/admin/agents", { owner: "ben", handle: "agent-n" });
    T["agt-n"] = (await admin(rest, "POST", "/api/admin/tokens", { member_id: "agt-n" })).token;
    const before = await rest("GET", conv("agt-n"), { token: T.ben });
    expect(before).toEqual(await rest("GET", conv("agt-nope"), { token: T.ben }));
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: "agt-n" });
    const expected = {
      id: "agt-n",
      kind: "direct",
      agent_id: "agt-n",
      title: null,
      participants: [humanEntry("hum-ben", "ben"), agentEntry("agt-n", "agent-n", "ben")],
      access: "party",
      closed_at: null,
      last_message_at: null,
      unread: 0,
      mentions_unread: 0,
      pinned: false,
      last_message: null,
    };
    expect(await rest("GET", conv("agt-n"), { token: T.ben })).toEqual({ status: 200, body: expected });
    expect((await list("ben")).find((i) => i.id === "agt-n")).toEqual(expected);
    expect((await list("agt-n")).map((i) => i.id)).toEqual(["agt-n"]);
    expect(await read("agt-n", "agt-n")).toEqual({ items: [], next_cursor: null });
  });

  it("M-011 no endpoint creates a direct conversation: a group of the creator and its own agent is use_direct, kind cannot be asked for, posting to an agent without one is not_found; nothing is written", async () => {
    const before = await state();
    for (const participants of [["agt-b"], ["agt-b", "hum-ben"], ["agt-b", "agt-b"]]) {
      const res = await rest("POST", `${LAB}/conversations`, { token: T.ben, body: { participants } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { participants: "use_direct" } } });
    }
    const kind = await rest("POST", `${LAB}/conversations`, {
      token: T.ben,
      body: { participants: ["agt-b"], kind: "direct" },
    });
    expect(kind.status).toBe(400);
    expect(kind.body.error.details.fields.kind).toBe("unknown_field");
    // agt-a is olga's; agt-r is not in side; agt-nope does not exist: no route makes one.
    for (const [project, id] of [
      [LAB, "agt-a"],
      [SIDE, "agt-r"],
      [LAB, "agt-nope"],
    ] as const) {
      const res = await rest("POST", `${conv(id, project)}/messages`, { token: T.ben, body: { body: "hello?" } });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
      const viaEvents = await rest("POST", `${project}/events`, {
        token: T.ben,
        body: { type: "chat", conversation_id: id, body: "hello?" },
      });
      expect(viaEvents.status).toBe(404);
    }
    expect(await state()).toEqual(before);
  });

  it("M-011 M-240 the direct conversation ends with the membership: once the agent is removed or isolated every route answers as for one that never existed, the list drops it and its pin goes", async () => {
    const w = await post("ben", "agt-w", "before agent-w leaves");
    const v = await post("ben", "agt-v", "before agent-v leaves");
    expect((await rest("PUT", `${conv("agt-w")}/pin`, { token: T.ben })).status).toBe(204);
    expect((await item("ben", "agt-w")).pinned).toBe(true);
    await admin(rest, "DELETE", "/api/admin/projects/olga/lab/members/agt-w?reason=removed");
    await admin(rest, "DELETE", "/api/admin/projects/olga/lab/members/agt-v?reason=isolated");
    expect(await hub.db.pin.count({ where: { humanId: "hum-ben", conversation: { publicId: "agt-w" } } })).toBe(0);
    const before = await state();
    await expectHiddenLikeMissing("ben", "agt-w", "agt-nope", w.seq);
    await expectHiddenLikeMissing("ben", "agt-v", "agt-nope", v.seq);
    expect(await state()).toEqual(before);
    const ids = (await list("ben")).map((i) => i.id);
    expect(ids).not.toContain("agt-w");
    expect(ids).not.toContain("agt-v");
    // The agent itself no longer reads it either.
    for (const agent of ["agt-w", "agt-v"]) {
      const own = await rest("GET", conv(agent), { token: tok(agent) });
      expect(own.status).toBe(404);
      expect(own.body.error.code).toBe("not_found");
    }
    // Back in the project, it is there again.
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: "agt-w" });
    expect(await item("ben", "agt-w")).toMatchObject({
      id: "agt-w",
      kind: "direct",
      agent_id: "agt-w",
      title: null,
      pinned: false,
    });
  });

  it("M-013 M-014 a direct conversation has no title and no participants to change: title null, participants the owner then the agent; PATCH is invalid with fields.conversation direct for both parties and writes nothing", async () => {
    const forBen = await item("ben", "agt-b");
    expect(forBen.title).toBeNull();
    expect(forBen.participants).toEqual([humanEntry("hum-ben", "ben"), agentEntry("agt-b", "agent-b", "ben")]);
    const forAgent = await item("agt-b", "agt-b");
    expect(forAgent.title).toBeNull();
    expect(forAgent.participants).toEqual([humanEntry("hum-ben", "ben"), agentEntry("agt-b", "agent-b", "ben")]);
    const before = await state();
    for (const [who, body] of [
      ["ben", { title: "Renamed" }],
      ["ben", { title: null }],
      ["ben", { title: "" }],
      ["agt-b", { title: "Renamed" }],
    ] as const) {
      const res = await rest("PATCH", conv("agt-b"), { token: tok(who), body });
      expect(res).toEqual({
        status: 400,
        body: {
          error: { code: "invalid", message: expect.any(String), details: { fields: { conversation: "direct" } } },
        },
      });
    }
    expect(await state()).toEqual(before);
    expect(await item("ben", "agt-b")).toEqual(forBen);
  });

  it("M-015 M-013 every participant endpoint on a direct conversation is invalid with fields.conversation direct — add, remove, leave, PATCH …/participants/{id} — and nothing changes", async () => {
    const c = conv("agt-b");
    const before = await state();
    const itemBefore = await item("ben", "agt-b");
    const cases: [string, string, string, unknown?][] = [
      ["ben", "POST", `${c}/participants`, { member_id: "hum-gus" }],
      ["ben", "POST", `${c}/participants`, { member_id: "agt-b" }],
      ["ben", "DELETE", `${c}/participants/agt-b`],
      ["ben", "DELETE", `${c}/participants/hum-ben`],
      ["ben", "DELETE", `${c}/participants/hum-gus`],
      ["agt-b", "DELETE", `${c}/participants/agt-b`],
      ["agt-b", "POST", `${c}/participants`, { member_id: "hum-gus" }],
      ["ben", "PATCH", `${c}/participants/agt-b`, { wake: "all" }],
      ["agt-b", "PATCH", `${c}/participants/agt-b`, { wake: "mentions" }],
    ];
    for (const [who, method, path, body] of cases) {
      const res = await rest(method, path, { token: tok(who), body });
      expect(res, `${who} ${method} ${path}`).toEqual({
        status: 400,
        body: {
          error: { code: "invalid", message: expect.any(String), details: { fields: { conversation: "direct" } } },
        },
      });
    }
    expect(await state()).toEqual(before);
    expect(await item("ben", "agt-b")).toEqual(itemBefore);
  });
});

describe("§9.1 audience and privacy", () => {
  it("M-016 M-017 a direct message is an event of kind message, type chat, with the conversation's id, addressed to exactly the two parties", async () => {
    const start = await lastSeq();
    const m = await post("ben", "agt-b", "between us");
    const row = await hub.db.event.findUniqueOrThrow({
      where: { seq: m.seq },
      select: {
        kind: true,
        type: true,
        conversation: { select: { publicId: true, kind: true } },
        audience: { select: { memberId: true } },
      },
    });
    expect({ ...row, audience: row.audience.map((a) => a.memberId).sort() }).toEqual({
      kind: "message",
      type: "chat",
      conversation: { publicId: "agt-b", kind: "direct" },
      audience: ["agt-b", "hum-ben"],
    });
    for (const who of ["ben", "agt-b"]) {
      const found = (await events(who, start)).filter((e) => e.seq === m.seq);
      expect(found).toHaveLength(1);
      expect(Object.keys(found[0] as object).sort()).toEqual([...MESSAGE_KEYS, "kind", "type"].sort());
      expect(found[0]).toMatchObject({
        id: m.id,
        seq: m.seq,
        kind: "message",
        type: "chat",
        conversation_id: "agt-b",
        from: "hum-ben",
        to: "agt-b",
        body: "between us",
      });
    }
    for (const who of ["olga", "cara", "gus", "agt-a", "agt-e"]) {
      const theirs = await events(who, start);
      expect(
        theirs.filter((e) => e.conversation_id === "agt-b"),
        who,
      ).toEqual([]);
    }
  });

  it("M-017 M-019 M-240 nobody but the two parties reads or writes it, project admins included: every route answers exactly as for a conversation that does not exist, and nothing is written", async () => {
    const m = await post("ben", "agt-b", "only for agent-b");
    const before = await state();
    for (const who of ["olga", "cara", "gus", "agt-a", "agt-e"])
      await expectHiddenLikeMissing(who, "agt-b", "agt-nope", m.seq);
    expect(await state()).toEqual(before);
    for (const who of ["olga", "cara", "gus", "agt-a"])
      expect((await list(who)).map((i) => i.id)).not.toContain("agt-b");
  });

  it("M-240 a project the caller may not see answers exactly like one that does not exist; an owner outside the project has no direct conversation there", async () => {
    const m = await post("ben", "agt-b", "still private");
    const before = await state();
    for (const who of ["dan", "eve"]) {
      await expectHiddenLikeMissing(who, "agt-b", "agt-b", m.seq, LAB, NOWHERE);
      // eve owns agent-e, a member of lab, but is not a member herself.
      await expectHiddenLikeMissing(who, "agt-e", "agt-e", m.seq, LAB, NOWHERE);
      await expectHiddenLikeMissing(who, "agt-e", "agt-nope", m.seq, LAB, LAB);
      for (const [method, path, body] of [
        ["GET", "/events"],
        ["GET", "/events?after=0"],
        ["POST", "/events", { type: "chat", conversation_id: "agt-b", body: "x" }],
        ["POST", "/conversations", { title: "t", participants: ["hum-ben"] }],
      ] as [string, string, unknown?][]) {
        const hidden = await rest(method, `${LAB}${path}`, { token: tok(who), body });
        const missing = await rest(method, `${NOWHERE}${path}`, { token: tok(who), body });
        expect(hidden, `${who} ${method} ${path}`).toEqual(missing);
        expect(hidden.status).toBe(404);
      }
    }
    const hiddenList = await rest("GET", `${LAB}/conversations`, { token: T.dan });
    expect(hiddenList).toEqual(await rest("GET", `${NOWHERE}/conversations`, { token: T.dan }));
    expect(hiddenList.status).toBe(404);
    // The owner outside reads its agent's group chats only (§9.2); its agent's direct conversation is not in its list.
    expect(await rest("GET", `${LAB}/conversations`, { token: T.eve })).toEqual({
      status: 200,
      body: { items: [], next_cursor: null },
    });
    expect(await state()).toEqual(before);
  });
});

describe("§9.1 message shape", () => {
  it("M-020 M-021 M-022 M-023 M-024 M-025 M-026 M-027 M-028 M-031 M-034 M-042 a direct message has exactly the §9.1 fields, the same on POST, …/messages and GET /events", async () => {
    const start = await lastSeq();
    const t0 = Date.now();
    const h = await post("ben", "agt-b", "How far is the API contract?");
    const a = await post("agt-b", "agt-b", "About half.", { instance: "agt-b-default" });
    const t1 = Date.now();
    expect(Object.keys(h).sort()).toEqual(MESSAGE_KEYS);
    expect(Object.keys(a).sort()).toEqual(MESSAGE_KEYS);
    expect(h).toEqual({
      id: expect.stringMatching(/^evt-/),
      seq: expect.any(Number),
      conversation_id: "agt-b",
      from: "hum-ben",
      to: "agt-b",
      body: "How far is the API contract?",
      sent_at: expect.stringMatching(ISO),
      delivered_at: null,
      mentions: [],
      attachments: [],
      from_instance: null,
      to_instance: null,
      redacted: false,
      redaction: null,
    });
    expect(a).toEqual({
      ...h,
      id: expect.stringMatching(/^evt-/),
      seq: expect.any(Number),
      from: "agt-b",
      to: "hum-ben",
      body: "About half.",
      sent_at: expect.stringMatching(ISO),
      from_instance: "agt-b-default",
    });
    expect(Number.isInteger(h.seq) && Number.isInteger(a.seq)).toBe(true);
    expect(h.seq).toBeGreaterThan(start);
    expect(a.seq).toBeGreaterThan(h.seq);
    expect(a.id).not.toBe(h.id);
    for (const m of [h, a]) {
      const sent = new Date(m.sent_at).getTime();
      expect(sent).toBeGreaterThanOrEqual(t0 - 1000);
      expect(sent).toBeLessThanOrEqual(t1 + 1000);
    }
    expect(new Date(a.sent_at).getTime()).toBeGreaterThanOrEqual(new Date(h.sent_at).getTime());
    // The agent reads both (its own message is not delivered to it; ben's is, now).
    const forAgent = await read("agt-b", "agt-b", `after=${start}`);
    expect(forAgent.items).toEqual([{ ...h, delivered_at: expect.stringMatching(ISO) }, a]);
    const forBen = await read("ben", "agt-b", `after=${start}`);
    const delivered = forAgent.items[0]?.delivered_at;
    expect(forBen.items).toEqual([
      { ...h, delivered_at: delivered },
      { ...a, delivered_at: expect.stringMatching(ISO) },
    ]);
    for (const m of forBen.items) expect(Object.keys(m).sort()).toEqual(MESSAGE_KEYS);
    // GET /events: the same message, with kind and type.
    const ev = (await events("agt-b", start)).filter((e) => e.conversation_id === "agt-b");
    expect(ev).toEqual(forBen.items.map((m) => ({ ...m, kind: "message", type: "chat" })));
  });

  it("M-031 a human's message names no instance, even with an X-Agent-Instance header", async () => {
    const h = await post("ben", "agt-b", "from a human", { instance: "agt-b-default" });
    expect(h.from_instance).toBeNull();
  });

  it("M-032 M-046 to_instance is the instance the human named, as written, or null when none was named; it wakes exactly that instance", async () => {
    const named = await post("ben", "agt-b", "for the default instance", { to_instance: "agt-b-default" });
    const nulled = await post("ben", "agt-b", "for whoever", { to_instance: null });
    const omitted = await post("ben", "agt-b", "for whoever, again");
    expect([named.to_instance, nulled.to_instance, omitted.to_instance]).toEqual(["agt-b-default", null, null]);
    const readBack = await read("agt-b", "agt-b", `after=${named.seq - 1}`);
    expect(readBack.items.map((m) => [m.seq, m.to_instance])).toEqual([
      [named.seq, "agt-b-default"],
      [nulled.seq, null],
      [omitted.seq, null],
    ]);
    expect(await verdicts(named.seq)).toEqual([{ agentId: "agt-b", instanceId: "agt-b-default", shouldRespond: true }]);
    expect(await verdicts(nulled.seq)).toEqual([{ agentId: "agt-b", instanceId: null, shouldRespond: true }]);
    // The same on POST /events.
    const viaEvents = await rest("POST", `${LAB}/events`, {
      token: T.ben,
      body: { type: "chat", conversation_id: "agt-b", body: "via events", to_instance: "agt-b-default" },
    });
    expect(viaEvents.status).toBe(201);
    expect(viaEvents.body.to_instance).toBe("agt-b-default");
    expect(await verdicts(viaEvents.body.seq)).toEqual([
      { agentId: "agt-b", instanceId: "agt-b-default", shouldRespond: true },
    ]);
  });

  it("M-033 to_instance is not rewritten when the named instance was replaced and its successor reads the message", async () => {
    // No route replaces an instance (agent protocol): the replacement is written as the hub stores it.
    await hub.db.agentInstance.create({ data: { id: "agt-b-old", agentId: "agt-b" } });
    const m = await post("ben", "agt-b", "for the old instance", { to_instance: "agt-b-old" });
    await hub.db.agentInstance.create({ data: { id: "agt-b-new", agentId: "agt-b" } });
    await hub.db.agentInstance.update({ where: { id: "agt-b-old" }, data: { replacedById: "agt-b-new" } });
    const bySuccessor = await read("agt-b", "agt-b", `after=${m.seq - 1}`, { instance: "agt-b-new" });
    expect(bySuccessor.items.map((i) => [i.seq, i.to_instance])).toEqual([[m.seq, "agt-b-old"]]);
    expect((await read("ben", "agt-b", `before=${m.seq + 1}&limit=1`)).items.map((i) => i.to_instance)).toEqual([
      "agt-b-old",
    ]);
    expect((await events("ben", m.seq - 1)).find((e) => e.seq === m.seq)?.to_instance).toBe("agt-b-old");
  });

  it("M-044 M-031 the agent party is the membership: every instance reads the conversation, and each message from the agent names the instance that wrote it", async () => {
    for (const id of ["agt-b-one", "agt-b-two"]) await hub.db.agentInstance.create({ data: { id, agentId: "agt-b" } });
    const start = await lastSeq();
    const h = await post("ben", "agt-b", "to whichever instance");
    const one = await post("agt-b", "agt-b", "from one", { instance: "agt-b-one" });
    const two = await post("agt-b", "agt-b", "from two", { instance: "agt-b-two" });
    expect([h.from_instance, one.from_instance, two.from_instance]).toEqual([null, "agt-b-one", "agt-b-two"]);
    for (const instance of ["agt-b-one", "agt-b-two", "agt-b-default"]) {
      const got = await read("agt-b", "agt-b", `after=${start}`, { instance });
      expect(got.items.map((m) => [m.seq, m.from_instance])).toEqual([
        [h.seq, null],
        [one.seq, "agt-b-one"],
        [two.seq, "agt-b-two"],
      ]);
      const res = await rest("GET", conv("agt-b"), { token: T["agt-b"], headers: { "x-agent-instance": instance } });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe("agt-b");
    }
  });

  it("M-045 a human's direct message wakes the agent (one verdict, no instance chosen by the hub); the agent's own message wakes nobody", async () => {
    const h = await post("ben", "agt-b", "please run the checks");
    expect(await verdicts(h.seq)).toEqual([{ agentId: "agt-b", instanceId: null, shouldRespond: true }]);
    const a = await post("agt-b", "agt-b", "checks are green", { instance: "agt-b-default" });
    expect(await verdicts(a.seq)).toEqual([{ agentId: "agt-b", instanceId: null, shouldRespond: false }]);
  });

  it("M-047 a mention @handle#id chooses that instance where mentions resolve (a group chat); in a direct conversation it is text and to_instance chooses", async () => {
    const group = await createGroup("ben", { title: "Instances", participants: ["hum-cara", "agt-a"] });
    const addressed = await post("ben", group.id, "@agent-a#agt-a-default please look");
    expect(addressed.mentions).toEqual([
      { member_id: "agt-a", handle: "agent-a", field: "body", offset: 0, length: 22, instance_id: "agt-a-default" },
    ]);
    expect(await verdicts(addressed.seq)).toEqual([
      { agentId: "agt-a", instanceId: "agt-a-default", shouldRespond: true },
    ]);
    const plain = await post("ben", group.id, "@agent-a please look");
    expect(await verdicts(plain.seq)).toEqual([{ agentId: "agt-a", instanceId: null, shouldRespond: true }]);
    const direct = await post("ben", "agt-b", "@agent-b#agt-b-one hi");
    expect(direct.mentions).toEqual([]);
    expect(await verdicts(direct.seq)).toEqual([{ agentId: "agt-b", instanceId: null, shouldRespond: true }]);
    const both = await post("ben", "agt-b", "@agent-b#agt-b-one hi", { to_instance: "agt-b-two" });
    expect(await verdicts(both.seq)).toEqual([{ agentId: "agt-b", instanceId: "agt-b-two", shouldRespond: true }]);
  });
});

describe("§9.1 mentions and attachments", () => {
  it("M-029 M-035 a @handle in a direct message is plain text: mentions [], no ping counted, and the named member is not added to the audience", async () => {
    const start = await lastSeq();
    const m = await post("ben", "agt-b", "@agent-b @olga @Cara @agent-a and @ben, see this");
    expect(m.mentions).toEqual([]);
    expect(m.body).toBe("@agent-b @olga @Cara @agent-a and @ben, see this");
    const reply = await post("agt-b", "agt-b", "@ben @olga noted");
    expect(reply.mentions).toEqual([]);
    const rows = await hub.db.event.findMany({
      where: { seq: { in: [m.seq, reply.seq] } },
      select: { pings: true, mentions: true, audience: { select: { memberId: true } } },
      orderBy: { seq: "asc" },
    });
    expect(
      rows.map((r) => ({ pings: r.pings, mentions: r.mentions, audience: r.audience.map((a) => a.memberId).sort() })),
    ).toEqual([
      { pings: 0, mentions: [], audience: ["agt-b", "hum-ben"] },
      { pings: 0, mentions: [], audience: ["agt-b", "hum-ben"] },
    ]);
    expect((await read("agt-b", "agt-b", `after=${start}`)).items.map((i) => i.mentions)).toEqual([[], []]);
    for (const who of ["olga", "cara", "agt-a"]) expect((await events(who, start)).map((e) => e.seq)).toEqual([]);
  });

  it("M-035 direct @handles never count against the ping rate (§1.7), even once the writer's rate is spent", async () => {
    for (const h of ["ann", "bob"])
      await admin(pingRest, "POST", "/api/admin/humans", {
        handle: h,
        name: h.toUpperCase(),
        password: `${h}-password-1`,
      });
    await admin(pingRest, "POST", "/api/admin/agents", { owner: "ann", handle: "agent-k" });
    await admin(pingRest, "POST", "/api/admin/projects", { owner: "ann", slug: "ping", name: "Ping" });
    for (const m of ["hum-bob", "agt-k"])
      await admin(pingRest, "POST", "/api/admin/projects/ann/ping/members", { member_id: m });
    const ann = (await admin(pingRest, "POST", "/api/admin/tokens", { member_id: "hum-ann" })).token;
    const P = "/api/projects/ann/ping/conversations";
    const say = (id: string, body: string) => pingRest("POST", `${P}/${id}/messages`, { token: ann, body: { body } });
    for (let i = 0; i < 3; i++) {
      const res = await say("agt-k", "@agent-k @bob @ann @agent-k#agt-k-default hello");
      expect(res.status).toBe(201);
      expect(res.body.mentions).toEqual([]);
    }
    const group = await pingRest("POST", P, {
      token: ann,
      body: { title: "Pings", participants: ["hum-bob", "agt-k"] },
    });
    expect(group.status).toBe(201);
    // The rate is 1 ping per 600 s: the direct messages spent none of it.
    const first = await say(group.body.id, "@bob first");
    expect(first.status).toBe(201);
    expect(first.body.mentions).toHaveLength(1);
    const before = await state(pingHub);
    const over = await say(group.body.id, "@agent-k second");
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: "rate_limited", details: { limit: "pings" } });
    expect(await state(pingHub)).toEqual(before);
    const still = await say("agt-k", "@agent-k @bob still plain text");
    expect(still.status).toBe(201);
    expect(still.body.mentions).toEqual([]);
    expect(
      await pingHub.db.event.aggregate({ where: { conversation: { publicId: "agt-k" } }, _sum: { pings: true } }),
    ).toEqual({ _sum: { pings: 0 } });
  });

  it("M-030 M-036 attachments are [] on a direct message without files, for both parties; a malformed list is refused by name; an unknown file reads as missing", async () => {
    const m = await post("ben", "agt-b", "nothing attached");
    expect(m.attachments).toEqual([]);
    for (const who of ["ben", "agt-b"])
      for (const i of (await read(who, "agt-b", "after=0&limit=200")).items) expect(i.attachments).toEqual([]);
    const before = await state();
    // Attachments are attachment ids (strings); anything else is refused naming the field.
    const attach = await rest("POST", `${conv("agt-b")}/messages`, {
      token: T.ben,
      body: { body: "with a file", attachments: [{ id: "att-1" }] },
    });
    expect(attach.status).toBe(400);
    expect(attach.body.error).toMatchObject({
      code: "invalid",
      details: { fields: { "attachments.0": expect.any(String) } },
    });
    expect(await state()).toEqual(before);
    for (const path of [`${LAB}/attachments/att-1`, `${LAB}/attachments/att-1/content`]) {
      for (const who of ["ben", "agt-b"]) {
        const res = await rest("GET", path, { token: tok(who) });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("not_found");
      }
    }
  });
});

describe("§9.1 redaction", () => {
  it("M-037 M-038 M-040 M-042 M-026 M-039 a redacted direct message keeps its id, seq and place with body null, mentions [], attachments [], redacted true and redaction {at, by, reason}; the others stay unredacted", async () => {
    const start = await lastSeq();
    const h1 = await post("ben", "agt-b", "first");
    const a1 = await post("agt-b", "agt-b", "secret: hunter2", { instance: "agt-b-default" });
    const h2 = await post("ben", "agt-b", "third");
    const t0 = Date.now();
    const res = await rest("POST", `${conv("agt-b")}/messages/${a1.seq}/redact`, {
      token: T.ben,
      body: { reason: "pasted a password" },
    });
    const t1 = Date.now();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toEqual({
      ...a1,
      body: null,
      mentions: [],
      attachments: [],
      redacted: true,
      redaction: { at: expect.stringMatching(ISO), by: "hum-ben", reason: "pasted a password" },
    });
    const at = new Date(res.body.redaction.at).getTime();
    expect(at).toBeGreaterThanOrEqual(t0 - 1000);
    expect(at).toBeLessThanOrEqual(t1 + 1000);
    const forBen = await read("ben", "agt-b", `after=${start}`);
    expect(forBen.items.map((m) => [m.id, m.seq, m.body, m.redacted, m.redaction])).toEqual([
      [h1.id, h1.seq, "first", false, null],
      [a1.id, a1.seq, null, true, res.body.redaction],
      [h2.id, h2.seq, "third", false, null],
    ]);
    for (const m of forBen.items) expect(Object.keys(m).sort()).toEqual(MESSAGE_KEYS);
    // The bytes are gone from the log.
    expect(
      await hub.db.event.findUniqueOrThrow({
        where: { seq: a1.seq },
        select: { body: true, mentions: true, redacted: true },
      }),
    ).toEqual({ body: null, mentions: [], redacted: true });
    const forAgent = await read("agt-b", "agt-b", `after=${start}`);
    expect(forAgent.items[1]).toMatchObject({
      id: a1.id,
      seq: a1.seq,
      body: null,
      mentions: [],
      attachments: [],
      redacted: true,
    });
    expect((await events("agt-b", start)).filter((e) => e.seq === a1.seq).map((e) => [e.body, e.redacted])).toEqual([
      [null, true],
    ]);
  });

  it("M-041 in a direct conversation the reason shows to the human who redacted and is null to the agent, on every read", async () => {
    const a = await post("agt-b", "agt-b", "oops");
    const redacted = await rest("POST", `${conv("agt-b")}/messages/${a.seq}/redact`, {
      token: T.ben,
      body: { reason: "wrong chat" },
    });
    expect(redacted.body.redaction).toEqual({ at: expect.stringMatching(ISO), by: "hum-ben", reason: "wrong chat" });
    expect((await read("ben", "agt-b", `after=${a.seq - 1}`)).items[0]?.redaction).toEqual(redacted.body.redaction);
    expect((await read("agt-b", "agt-b", `after=${a.seq - 1}`)).items[0]?.redaction).toEqual({
      ...redacted.body.redaction,
      reason: null,
    });
    expect((await read("agt-b", "agt-b", `before=${a.seq + 1}&limit=1`)).items[0]?.redaction).toEqual({
      ...redacted.body.redaction,
      reason: null,
    });
    expect((await events("agt-b", a.seq - 1)).find((e) => e.seq === a.seq)?.redaction).toEqual({
      ...redacted.body.redaction,
      reason: null,
    });
    expect((await events("ben", a.seq - 1)).find((e) => e.seq === a.seq)?.redaction).toEqual(redacted.body.redaction);
    // Without a reason: null for everyone.
    const b = await post("ben", "agt-b", "my own slip");
    const own = await rest("POST", `${conv("agt-b")}/messages/${b.seq}/redact`, { token: T.ben });
    expect(own.status).toBe(200);
    expect(own.body.redaction).toEqual({ at: expect.stringMatching(ISO), by: "hum-ben", reason: null });
  });

  it("M-043 M-041 group messages use the same redaction shape (without delivered_at); the reason shows to the redactor and members:admin holders, null to the others", async () => {
    const group = await createGroup("ben", { title: "Redactions", participants: ["hum-cara", "hum-gus", "agt-a"] });
    const g = await post("gus", group.id, "@agent-a off topic");
    expect(g.mentions).toHaveLength(1);
    const res = await rest("POST", `${conv(group.id)}/messages/${g.seq}/redact`, {
      token: T.ben,
      body: { reason: "off topic" },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(GROUP_MESSAGE_KEYS);
    const redaction = { at: expect.stringMatching(ISO), by: "hum-ben", reason: "off topic" };
    expect(res.body).toEqual({ ...g, body: null, mentions: [], attachments: [], redacted: true, redaction });
    // ben redacted; cara holds members:admin; olga reads along as agent-a's owner and holds members:admin.
    for (const [who, reason] of [
      ["ben", "off topic"],
      ["cara", "off topic"],
      ["olga", "off topic"],
      ["gus", null],
      ["agt-a", null],
    ] as const) {
      const got = (await read(who, group.id, `before=${g.seq + 1}&limit=1`)).items[0];
      expect(got, who).toEqual({
        ...g,
        body: null,
        mentions: [],
        redacted: true,
        redaction: { ...redaction, by: "hum-ben", reason },
      });
    }
  });

  it("M-038 M-040 M-240 redacting again answers the same message; the agent is forbidden (humans_only); a bad reason is invalid; a message of another conversation answers like none; nothing is written", async () => {
    const a = await post("agt-b", "agt-b", "redact me twice");
    const first = await rest("POST", `${conv("agt-b")}/messages/${a.seq}/redact`, {
      token: T.ben,
      body: { reason: "first reason" },
    });
    expect(first.status).toBe(200);
    const b = await post("agt-b", "agt-b", "keep me");
    const before = await state();
    const again = await rest("POST", `${conv("agt-b")}/messages/${a.seq}/redact`, {
      token: T.ben,
      body: { reason: "second reason" },
    });
    expect(again).toEqual(first);
    const byAgent = await rest("POST", `${conv("agt-b")}/messages/${b.seq}/redact`, { token: T["agt-b"], body: {} });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.error).toMatchObject({ code: "forbidden", details: { reason: "humans_only" } });
    const long = await rest("POST", `${conv("agt-b")}/messages/${b.seq}/redact`, {
      token: T.ben,
      body: { reason: "x".repeat(501) },
    });
    expect(long.status).toBe(400);
    expect(Object.keys(long.body.error.details.fields)).toEqual(["reason"]);
    expect(await state()).toEqual(before);
    const elsewhere = await post("ben", "agt-r", "in another conversation");
    const before2 = await state();
    const other = await rest("POST", `${conv("agt-b")}/messages/${elsewhere.seq}/redact`, { token: T.ben, body: {} });
    const none = await rest("POST", `${conv("agt-b")}/messages/99999999/redact`, { token: T.ben, body: {} });
    const garbage = await rest("POST", `${conv("agt-b")}/messages/abc/redact`, { token: T.ben, body: {} });
    expect(other).toEqual(none);
    expect(garbage).toEqual(none);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe("not_found");
    expect(await state()).toEqual(before2);
    expect(await hub.db.redaction.count({ where: { eventSeq: a.seq } })).toBe(1);
    expect((await read("ben", "agt-b", `before=${b.seq + 1}&limit=1`)).items[0]).toMatchObject({
      seq: b.seq,
      body: "keep me",
      redacted: false,
      redaction: null,
    });
  });
});

describe("§9.1 the list preview", () => {
  it("M-048 M-049 M-050 the direct item carries agent_id, last_message_at, unread and last_message; with no message both are null", async () => {
    const empty = await item("ben", "agt-p");
    expect(Object.keys(empty).sort()).toEqual(DIRECT_ITEM_KEYS);
    expect(empty).toEqual({
      id: "agt-p",
      kind: "direct",
      agent_id: "agt-p",
      title: null,
      participants: [humanEntry("hum-ben", "ben"), agentEntry("agt-p", "agent-p", "ben")],
      access: "party",
      closed_at: null,
      last_message_at: null,
      unread: 0,
      mentions_unread: 0,
      pinned: false,
      last_message: null,
    });
    const a = await post("agt-p", "agt-p", "Build is green.");
    const one = await item("ben", "agt-p");
    expect(one).toEqual({
      ...empty,
      last_message_at: a.sent_at,
      unread: 1,
      last_message: { seq: a.seq, from: "agt-p", body: "Build is green.", sent_at: a.sent_at, redacted: false },
    });
    expect(Object.keys(one.last_message as object).sort()).toEqual(PREVIEW_KEYS);
    const h = await post("ben", "agt-p", "Thanks.");
    const two = await item("ben", "agt-p");
    expect(two.last_message).toEqual({
      seq: h.seq,
      from: "hum-ben",
      body: "Thanks.",
      sent_at: h.sent_at,
      redacted: false,
    });
    expect(two.last_message_at).toBe(h.sent_at);
    expect((await list("ben")).find((i) => i.id === "agt-p")).toEqual(two);
  });

  it("M-051 the preview body is cut at 200 code points, never inside one and with nothing appended; the full text stays at …/messages", async () => {
    const cases: [string, string][] = [
      ["😀".repeat(250), "😀".repeat(200)],
      [`${"a".repeat(199)}😀tail`, `${"a".repeat(199)}😀`],
      [`${"a".repeat(200)}😀`, "a".repeat(200)],
      ["b".repeat(200), "b".repeat(200)],
      ["short", "short"],
      [`${"é".repeat(150)}${"ü".repeat(100)}`, `${"é".repeat(150)}${"ü".repeat(50)}`],
    ];
    for (const [body, preview] of cases) {
      const m = await post("ben", "agt-p", body);
      const got = await item("ben", "agt-p");
      expect(got.last_message).toEqual({
        seq: m.seq,
        from: "hum-ben",
        body: preview,
        sent_at: m.sent_at,
        redacted: false,
      });
      expect(Array.from(got.last_message?.body ?? "").length).toBe(Math.min(200, Array.from(body).length));
      expect((await item("agt-p", "agt-p")).last_message?.body).toBe(preview);
      const full = await read("agt-p", "agt-p", `after=${m.seq - 1}`);
      expect(full.items.map((i) => i.body)).toEqual([body]);
    }
  });

  it("M-052 a redacted last message shows in the preview with body null and redacted true, to the owner and the agent", async () => {
    const m = await post("agt-p", "agt-p", "this goes");
    expect(
      (await rest("POST", `${conv("agt-p")}/messages/${m.seq}/redact`, { token: T.ben, body: { reason: "gone" } }))
        .status,
    ).toBe(200);
    for (const who of ["ben", "agt-p"]) {
      const got = await item(who, "agt-p");
      expect(got.last_message).toEqual({ seq: m.seq, from: "agt-p", body: null, sent_at: m.sent_at, redacted: true });
      expect(got.last_message_at).toBe(m.sent_at);
      expect((await list(who)).find((i) => i.id === "agt-p")?.last_message).toEqual(got.last_message);
    }
  });

  it("M-053 the preview carries no mentions and resolves none: a direct body with @handles and a group body with a resolved mention show as text", async () => {
    const d = await post("ben", "agt-p", "@agent-p and @olga, see #42");
    const got = await item("ben", "agt-p");
    expect(Object.keys(got.last_message as object).sort()).toEqual(PREVIEW_KEYS);
    expect(got.last_message).toEqual({
      seq: d.seq,
      from: "hum-ben",
      body: "@agent-p and @olga, see #42",
      sent_at: d.sent_at,
      redacted: false,
    });
    const group = await createGroup("ben", { title: "Preview", participants: ["hum-cara", "agt-p"] });
    const g = await post("ben", group.id, "@agent-p please check @cara");
    expect(g.mentions).toHaveLength(2);
    for (const who of ["ben", "cara", "agt-p"]) {
      const groupItem = (await list(who)).find((i) => i.id === group.id);
      expect(groupItem?.last_message, who).toEqual({
        seq: g.seq,
        from: "hum-ben",
        body: "@agent-p please check @cara",
        sent_at: g.sent_at,
        redacted: false,
      });
    }
  });

  it("M-054 the preview has the list's audience: the agent's owner and the agent for its own conversation, nobody else", async () => {
    const m = await post("agt-p", "agt-p", "for ben's eyes");
    const preview = { seq: m.seq, from: "agt-p", body: "for ben's eyes", sent_at: m.sent_at, redacted: false };
    expect((await list("ben")).find((i) => i.id === "agt-p")?.last_message).toEqual(preview);
    expect((await list("agt-p")).find((i) => i.id === "agt-p")?.last_message).toEqual(preview);
    for (const who of ["olga", "cara", "gus", "agt-a", "agt-b"])
      expect(
        (await list(who)).map((i) => i.id),
        who,
      ).not.toContain("agt-p");
    for (const who of ["olga", "cara", "gus"]) {
      const me = await rest("GET", "/api/me/conversations?limit=200", { token: tok(who) });
      expect(me.status).toBe(200);
      expect(JSON.stringify(me.body)).not.toContain("for ben's eyes");
    }
  });
});

describe("§9.1 delivered_at and unread", () => {
  it("M-055 M-056 M-028 delivered_at is set the first time …/messages returns the message to its recipient — not by its author's reads, the list or the conversation GET — and never changes after", async () => {
    const start = await lastSeq();
    const h = await post("ben", "agt-r", "ping");
    expect(h.delivered_at).toBeNull();
    expect((await read("ben", "agt-r", `after=${start}`)).items.map((m) => m.delivered_at)).toEqual([null]);
    await item("agt-r", "agt-r");
    await list("agt-r");
    await item("ben", "agt-r");
    expect(
      (await hub.db.event.findUniqueOrThrow({ where: { seq: h.seq }, select: { deliveredAt: true } })).deliveredAt,
    ).toBeNull();
    const first = await read("agt-r", "agt-r", `after=${start}`);
    const delivered = first.items[0]?.delivered_at as string;
    expect(delivered).toMatch(ISO);
    expect(new Date(delivered).getTime()).toBeGreaterThanOrEqual(new Date(h.sent_at).getTime());
    // Later reads, by any cursor, instance or party, see the same value.
    await hub.db.agentInstance.create({ data: { id: "agt-r-other", agentId: "agt-r" } });
    expect(
      (await read("agt-r", "agt-r", "after=0", { instance: "agt-r-other" })).items.find((m) => m.seq === h.seq)
        ?.delivered_at,
    ).toBe(delivered);
    expect((await read("agt-r", "agt-r", `before=${h.seq + 1}&limit=1`)).items[0]?.delivered_at).toBe(delivered);
    expect((await read("ben", "agt-r", `after=${start}`)).items[0]?.delivered_at).toBe(delivered);
    // The other direction: the agent's message is delivered when the human reads it.
    const a = await post("agt-r", "agt-r", "pong");
    expect(a.delivered_at).toBeNull();
    expect((await read("agt-r", "agt-r", `after=${h.seq}`)).items.map((m) => m.delivered_at)).toEqual([null]);
    await item("ben", "agt-r");
    expect(
      (await hub.db.event.findUniqueOrThrow({ where: { seq: a.seq }, select: { deliveredAt: true } })).deliveredAt,
    ).toBeNull();
    const got = (await read("ben", "agt-r")).items;
    expect(got.map((m) => m.seq)).toEqual([a.seq]);
    const deliveredA = got[0]?.delivered_at as string;
    expect(deliveredA).toMatch(ISO);
    expect((await read("ben", "agt-r", "after=0")).items.find((m) => m.seq === a.seq)?.delivered_at).toBe(deliveredA);
    expect((await read("agt-r", "agt-r", "after=0")).items.find((m) => m.seq === a.seq)?.delivered_at).toBe(deliveredA);
  });

  it("M-056 M-057 a history read (before=) delivers too, yet delivered_at implies nothing else: the human's unread, read marker and the log stay as they were", async () => {
    const a = await post("agt-r", "agt-r", "history");
    expect((await item("ben", "agt-r")).unread).toBe(1);
    const marker = async () =>
      (
        await hub.db.participation.findFirstOrThrow({
          where: { memberId: "hum-ben", leftAt: null, conversation: { publicId: "agt-r" } },
          select: { readMarkerSeq: true },
        })
      ).readMarkerSeq;
    const markerBefore = await marker();
    const eventsBefore = await hub.db.event.count();
    const verdictsBefore = await hub.db.routingVerdict.count();
    const hist = await read("ben", "agt-r", `before=${a.seq + 1}&limit=1`);
    expect(Object.keys(hist).sort()).toEqual(["earlier", "items"]);
    expect(hist.items.map((m) => m.seq)).toEqual([a.seq]);
    const delivered = hist.items[0]?.delivered_at as string;
    expect(delivered).toMatch(ISO);
    expect((await item("ben", "agt-r")).unread).toBe(1);
    expect(await marker()).toBe(markerBefore);
    expect(await hub.db.event.count()).toBe(eventsBefore);
    expect(await hub.db.routingVerdict.count()).toBe(verdictsBefore);
    // The plain read still serves it as new, with the same delivered_at.
    const plain = await read("ben", "agt-r");
    expect(plain.items.map((m) => [m.seq, m.delivered_at])).toEqual([[a.seq, delivered]]);
    expect((await item("ben", "agt-r")).unread).toBe(0);
    // The agent's reads deliver the human's messages but change nothing on the human's side.
    await post("agt-r", "agt-r", "one more");
    const h = await post("ben", "agt-r", "and mine");
    await post("agt-r", "agt-r", "after yours");
    const unread = (await item("ben", "agt-r")).unread;
    expect(unread).toBe(1);
    expect((await read("agt-r", "agt-r", "after=0")).items.find((m) => m.seq === h.seq)?.delivered_at).toMatch(ISO);
    expect((await item("ben", "agt-r")).unread).toBe(unread);
  });

  it("M-058 the human's unread counts the agent's messages after the highest seq …/messages has returned to it (posting moves the marker, docs/api.md OQ-M-10)", async () => {
    const unread = async () => {
      const got = await item("ben", "agt-u");
      expect((await list("ben")).find((i) => i.id === "agt-u")?.unread).toBe(got.unread);
      return got.unread;
    };
    expect(await unread()).toBe(0);
    const r1 = await post("agt-u", "agt-u", "one");
    const r2 = await post("agt-u", "agt-u", "two");
    const r3 = await post("agt-u", "agt-u", "three");
    expect(await unread()).toBe(3);
    const page = await read("ben", "agt-u", "limit=2");
    expect(page.items.map((m) => m.seq)).toEqual([r1.seq, r2.seq]);
    expect(page.next_cursor).toBe(String(r2.seq));
    expect(await unread()).toBe(1);
    const rest1 = await read("ben", "agt-u");
    expect(rest1).toMatchObject({ next_cursor: null });
    expect(rest1.items.map((m) => m.seq)).toEqual([r3.seq]);
    expect(await unread()).toBe(0);
    expect(await read("ben", "agt-u")).toEqual({ items: [], next_cursor: null });
    // The human's own messages never count; re-reading from the start does not lower the marker.
    await post("ben", "agt-u", "mine");
    expect(await unread()).toBe(0);
    expect((await read("ben", "agt-u", "after=0")).items).toHaveLength(4);
    expect(await unread()).toBe(0);
    const r4 = await post("agt-u", "agt-u", "four");
    const r5 = await post("agt-u", "agt-u", "five");
    expect(await unread()).toBe(2);
    // A read that returns nothing marks nothing; the agent's own reads change nothing for the human.
    expect((await read("ben", "agt-u", `after=${r5.seq}`)).items).toEqual([]);
    await read("agt-u", "agt-u", "after=0");
    expect(await unread()).toBe(2);
    // Returning r4 only leaves r5.
    expect((await read("ben", "agt-u", `after=${r4.seq - 1}&limit=1`)).items.map((m) => m.seq)).toEqual([r4.seq]);
    expect(await unread()).toBe(1);
    // Posting moves the human's marker to its own message.
    await post("ben", "agt-u", "noted");
    expect(await unread()).toBe(0);
    expect(await read("ben", "agt-u")).toEqual({ items: [], next_cursor: null });
  });
});

describe("§9.1 the agent answers", () => {
  it("M-061 the agent answers by POST …/messages or by POST /events with type chat: both give the same message", async () => {
    const viaMessages = await post("agt-b", "agt-b", "same answer", { instance: "agt-b-default" });
    const res = await rest("POST", `${LAB}/events`, {
      token: T["agt-b"],
      headers: { "x-agent-instance": "agt-b-default" },
      body: { type: "chat", conversation_id: "agt-b", body: "same answer" },
    });
    expect(res.status).toBe(201);
    const viaEvents: Msg = res.body;
    const strip = ({ id: _id, seq: _seq, sent_at: _sent, ...m }: Msg) => m;
    expect(Object.keys(viaEvents).sort()).toEqual(MESSAGE_KEYS);
    expect(strip(viaEvents)).toEqual(strip(viaMessages));
    expect(viaEvents.seq).toBeGreaterThan(viaMessages.seq);
    const both = (await read("ben", "agt-b", `after=${viaMessages.seq - 1}`)).items;
    expect(both.map(strip)).toEqual([
      strip({ ...viaMessages, delivered_at: both[0]?.delivered_at ?? null }),
      strip({ ...viaEvents, delivered_at: both[1]?.delivered_at ?? null }),
    ]);
    expect(both.map((m) => m.delivered_at)).toEqual([expect.stringMatching(ISO), expect.stringMatching(ISO)]);
    const rows = await hub.db.event.findMany({
      where: { seq: { in: [viaMessages.seq, viaEvents.seq] } },
      select: { kind: true, type: true, fromId: true, toId: true, audience: { select: { memberId: true } } },
      orderBy: { seq: "asc" },
    });
    const norm = rows.map((r) => ({ ...r, audience: r.audience.map((a) => a.memberId).sort() }));
    expect(norm[0]).toEqual(norm[1]);
    expect(await verdicts(viaMessages.seq)).toEqual(await verdicts(viaEvents.seq));
  });

  it("M-061 both routes refuse bad input alike, with the field named, and write nothing", async () => {
    const before = await state();
    const cases: [unknown, string][] = [
      [{ body: "   " }, "body"],
      [{ body: 5 }, "body"],
      [{}, "body"],
      [{ body: "x".repeat(20_001) }, "body"],
      [{ body: "ok", extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const a = await rest("POST", `${conv("agt-b")}/messages`, { token: T["agt-b"], body });
      const b = await rest("POST", `${LAB}/events`, {
        token: T["agt-b"],
        body: { type: "chat", conversation_id: "agt-b", ...(body as object) },
      });
      expect(a.status).toBe(400);
      expect(b).toEqual(a);
      expect(Object.keys(a.body.error.details.fields)).toEqual([field]);
    }
    const wrongType = await rest("POST", `${LAB}/events`, {
      token: T["agt-b"],
      body: { type: "note", conversation_id: "agt-b", body: "hello" },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details.fields).toEqual({ type: "not_supported" });
    expect(await state()).toEqual(before);
  });
});

describe("§9.1 GET on a direct conversation", () => {
  it("M-062 GET on a direct conversation answers its item exactly as both lists show it, pinned included, to the human and to the agent; every list item opens by its id", async () => {
    expect((await rest("PUT", `${conv("agt-b")}/pin`, { token: T.ben })).status).toBe(204);
    expect(
      (await rest("PUT", `${conv("agt-b")}/meat-proxy`, { token: T.ben, body: { meat_proxy: true } })).status,
    ).toBe(204);
    await post("agt-b", "agt-b", "something new");
    const items = await list("ben");
    expect(items.find((i) => i.id === "agt-b")).toMatchObject({ pinned: true, unread: 1 });
    for (const i of items) {
      const got = await rest("GET", conv(i.id), { token: T.ben });
      expect(got.status).toBe(200);
      expect(got.body.kind).toBe(i.kind);
      expect(got.body.id).toBe(i.id);
      if (i.kind === "direct") expect(got.body).toEqual(i);
    }
    const direct = await item("ben", "agt-b");
    expect(direct.participants[0]).toMatchObject({
      member_id: "hum-ben",
      meat_proxy_chat: true,
      meat_proxy_lead: true,
    });
    const me = await rest("GET", "/api/me/conversations?limit=200", { token: T.ben });
    const meItem = (me.body.items as Item[]).find((i) => i.id === "agt-b" && i.project?.full_name === "olga/lab");
    const { project: _project, ...withoutProject } = meItem as Item;
    expect(withoutProject).toEqual(direct);
    // The agent's own item: the same fields, never pinned for an agent.
    const agentItems = await list("agt-b");
    const agentDirect = agentItems.find((i) => i.id === "agt-b");
    expect(agentDirect?.pinned).toBe(false);
    expect(await item("agt-b", "agt-b")).toEqual(agentDirect);
    for (const i of agentItems) expect((await item("agt-b", i.id)).kind).toBe(i.kind);
    expect((await rest("DELETE", `${conv("agt-b")}/pin`, { token: T.ben })).status).toBe(204);
    expect(
      (await rest("PUT", `${conv("agt-b")}/meat-proxy`, { token: T.ben, body: { meat_proxy: null } })).status,
    ).toBe(204);
    const unpinned = await item("ben", "agt-b");
    expect(unpinned.pinned).toBe(false);
    expect((await list("ben")).find((i) => i.id === "agt-b")).toEqual(unpinned);
  });
});

describe("instances are the agent's own (M-031 M-032, DESIGN §1)", () => {
  it("M-031 without X-Agent-Instance the agent writes as its default instance; another agent's instance is a wrong credential", async () => {
    const own = await post("agt-b", "agt-b", "from the default");
    expect(own.from_instance).toBe("agt-b-default");
    const foreign = await rest("POST", `${conv("agt-b")}/messages`, {
      token: tok("agt-b"),
      body: { body: "x" },
      headers: { "x-agent-instance": "agt-r-default" },
    });
    const unknown = await rest("POST", `${conv("agt-b")}/messages`, {
      token: tok("agt-b"),
      body: { body: "x" },
      headers: { "x-agent-instance": "agt-nope" },
    });
    expect(foreign).toEqual({
      status: 401,
      body: { error: { code: "unauthenticated", message: "missing or invalid credentials", details: {} } },
    });
    expect(unknown).toEqual(foreign);
  });

  it("M-032 to_instance must name one of the agent's instances; nothing written otherwise", async () => {
    const before = await hub.db.event.count();
    const res = await rest("POST", `${conv("agt-b")}/messages`, {
      token: T.ben,
      body: { body: "x", to_instance: "agt-r-default" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual({ fields: { to_instance: "not_an_instance" } });
    expect(await hub.db.event.count()).toBe(before);
  });
});
