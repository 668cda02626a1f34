// §9.2 Group chats: the conversation view, the wake that is not built, who creates, who takes
// part, who manages, closing, and a closed (archived) project — M-063 … M-115 of
// requirements/maity-conversations.md, as decided in docs/api.md.
//
// Not tested here (owned elsewhere): M-086 (the hub's jour fixe thread, §20.5 — not in this spec);
// bridges as observers (M-070's second half, §2.3 — agent protocol); and the "human with
// members:admin acting on a report" of M-109, which is not built (reports come with §8.5, see
// docs/api.md "Redaction").
import type { Hub } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";

const hub = await testHub();
const rest = restClient(hub);
// M-096 needs a small quota; a hub of its own keeps the other tests free of it.
const quotaHub = await testHub({ groupChatQuota: 2 });
const quotaRest = restClient(quotaHub);
afterAll(async () => {
  await hub.close();
  await quotaHub.close();
});

type Rest = ReturnType<typeof restClient>;
type View = {
  id: string;
  kind: string;
  title: string | null;
  created_by: string;
  created_at: string;
  participants: Record<string, unknown>[];
  observers: string[];
  closed_at: string | null;
  closed_reason: string | null;
  access: string;
  pinned: boolean;
};

const LAB = "/api/projects/olga/lab";
const ARCH = "/api/projects/olga/arch";
const OTHER = "/api/projects/olga/other";
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const T: Record<string, string> = {};

const conv = (id: string, project = LAB) => `${project}/conversations/${id}`;
const ids = (view: View) => view.participants.map((p) => p.member_id);

async function admin(r: Rest, method: string, path: string, body?: unknown) {
  const res = await r(method, path, { token: ADMIN, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function create(token: string, body: unknown, project = LAB): Promise<View> {
  const res = await rest("POST", `${project}/conversations`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function post(token: string, id: string, body: string, project = LAB) {
  const res = await rest("POST", `${conv(id, project)}/messages`, { token, body: { body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { seq: number; id: string };
}

async function view(token: string, id: string, project = LAB): Promise<View> {
  const res = await rest("GET", conv(id, project), { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Everything a refused write could have touched. */
async function state(h: Hub = hub) {
  const [events, conversations, participations, redactions, pins, keys] = await Promise.all([
    h.db.event.findMany({ select: { seq: true, body: true, redacted: true }, orderBy: { seq: "asc" } }),
    h.db.conversation.findMany({
      select: { id: true, publicId: true, title: true, closedAt: true, closedReason: true },
      orderBy: { id: "asc" },
    }),
    h.db.participation.findMany({
      select: { id: true, memberId: true, leftAt: true, leftReason: true },
      orderBy: { id: "asc" },
    }),
    h.db.redaction.count(),
    h.db.pin.count(),
    h.db.idempotencyKey.count(),
  ]);
  return { events, conversations, participations, redactions, pins, keys };
}

/** The log's events of one chat after `after`, with audience and routing verdicts. */
async function eventsOf(publicId: string, after = 0) {
  const rows = await hub.db.event.findMany({
    where: { conversation: { publicId }, seq: { gt: after } },
    orderBy: { seq: "asc" },
    select: {
      seq: true,
      kind: true,
      fromId: true,
      payload: true,
      audience: { select: { memberId: true } },
      verdicts: { select: { agentId: true, shouldRespond: true, reason: true } },
    },
  });
  return rows.map((r) => ({
    seq: r.seq,
    kind: r.kind,
    from: r.fromId,
    payload: r.payload as { conversation: Record<string, unknown>; changed?: Record<string, unknown> } | null,
    audience: r.audience.map((a) => a.memberId).sort(),
    verdicts: [...r.verdicts].sort((a, b) => a.agentId.localeCompare(b.agentId)),
  }));
}

const lastSeq = async (): Promise<number> => (await hub.db.event.aggregate({ _max: { seq: true } }))._max.seq ?? 0;

function human(memberId: string, handle: string) {
  return {
    member_id: memberId,
    kind: "human",
    handle,
    owner_id: null,
    joined_at: expect.stringMatching(ISO),
    meat_proxy_lead: false,
    meat_proxy_hands: false,
    meat_proxy: false,
    meat_proxy_chat: null,
  };
}
function agent(memberId: string, handle: string, owner: string) {
  return {
    member_id: memberId,
    kind: "agent",
    handle,
    name: `${owner}/${handle}`,
    context: null,
    // DESIGN §4c: the file's people share olga's Bay, so no agent here is a visitor.
    visiting: null,
    owner_id: `hum-${owner}`,
    joined_at: expect.stringMatching(ISO),
  };
}

beforeAll(async () => {
  // olga owns the projects (members:admin). cara holds members:admin too; ben, dan, fay, gus, hal
  // are plain members. eve is not a member but her agent-e is (an owner outside the project);
  // zed has nothing to do with the project.
  for (const h of ["olga", "ben", "cara", "dan", "eve", "fay", "gus", "hal", "ivy", "zed"])
    await admin(rest, "POST", "/api/admin/humans", {
      handle: h,
      name: h[0]?.toUpperCase() + h.slice(1),
      password: `${h}-password-1`,
      // One Bay for all (DESIGN §4c): §9's rules among a team's own agents, none of them a visitor.
      ...(h === "olga" ? {} : { bay: "olga" }),
    });
  for (const [owner, handle] of [
    ["olga", "agent-a"],
    ["ben", "agent-b"],
    ["cara", "agent-c"],
    ["eve", "agent-e"],
    ["olga", "agent-i"],
    ["zed", "agent-z"],
  ] as const)
    await admin(rest, "POST", "/api/admin/agents", { owner, handle });
  for (const slug of ["lab", "arch", "other"])
    await admin(rest, "POST", "/api/admin/projects", { owner: "olga", slug, name: slug.toUpperCase() });
  for (const m of [
    "hum-ben",
    "hum-dan",
    "hum-fay",
    "hum-gus",
    "hum-hal",
    "hum-ivy",
    "agt-a",
    "agt-b",
    "agt-c",
    "agt-e",
    "agt-i",
    "agt-z",
  ])
    await admin(rest, "POST", `/api/admin/projects/olga/lab/members`, { member_id: m });
  await admin(rest, "POST", `/api/admin/projects/olga/lab/members`, {
    member_id: "hum-cara",
    permissions: ["members:admin"],
  });
  for (const m of ["hum-ben", "hum-dan", "hum-cara", "agt-a", "agt-b"])
    await admin(rest, "POST", `/api/admin/projects/olga/arch/members`, { member_id: m });
  for (const m of ["hum-fay", "agt-i"])
    await admin(rest, "POST", `/api/admin/projects/olga/other/members`, { member_id: m });
  // zed's agent is later isolated: zed never had a membership.
  await admin(rest, "DELETE", "/api/admin/projects/olga/lab/members/agt-z?reason=isolated");
  for (const id of [
    "hum-olga",
    "hum-ben",
    "hum-cara",
    "hum-dan",
    "hum-eve",
    "hum-fay",
    "hum-gus",
    "hum-hal",
    "hum-ivy",
    "hum-zed",
    "agt-a",
    "agt-b",
    "agt-c",
    "agt-e",
    "agt-i",
  ]) {
    T[id.slice(4)] = (await admin(rest, "POST", "/api/admin/tokens", { member_id: id })).token;
  }
});

describe("§9.2 the conversation view", () => {
  it("M-063 M-064 M-065 M-066 M-068 M-069 GET on a group chat answers exactly the view fields: cnv- id, kind group, title, created_by, created_at, participants with owner_id/joined_at (agents also name), observers, closed_*, access, pinned", async () => {
    const before = new Date();
    const created = await create(T.ben as string, {
      title: "  Release 0.2 go/no-go  ",
      participants: ["agt-a", "hum-dan"],
    });
    const after = new Date();
    const res = await rest("GET", conv(created.id), { token: T.ben });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
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
    expect(res.body).toEqual({
      id: created.id,
      kind: "group",
      title: "Release 0.2 go/no-go",
      created_by: "hum-ben",
      created_at: expect.stringMatching(ISO),
      participants: [human("hum-ben", "ben"), agent("agt-a", "agent-a", "olga"), human("hum-dan", "dan")],
      observers: ["hum-olga"],
      closed_at: null,
      closed_reason: null,
      access: "participant",
      pinned: false,
      // 004 §4: a new chat answers only @mentions, with the default round cap.
      reply_policy: "MENTIONS",
      designated_agent_id: null,
      max_agent_rounds: 2,
      custom_rules: null,
    });
    expect(res.body.id).toMatch(/^cnv-/);
    const createdAt = new Date(res.body.created_at).getTime();
    expect(createdAt).toBeGreaterThanOrEqual(before.getTime() - 1000);
    expect(createdAt).toBeLessThanOrEqual(after.getTime() + 1000);
    // Exact entry keys: a human has no name, an agent no meat-proxy fields.
    expect(Object.keys(res.body.participants[0]).sort()).toEqual([
      "handle",
      "joined_at",
      "kind",
      "meat_proxy",
      "meat_proxy_chat",
      "meat_proxy_hands",
      "meat_proxy_lead",
      "member_id",
      "owner_id",
    ]);
    expect(Object.keys(res.body.participants[1]).sort()).toEqual([
      "context",
      "handle",
      "joined_at",
      "kind",
      "member_id",
      "name",
      "owner_id",
      "visiting",
    ]);
    // The create answer is the same view.
    expect(created).toEqual(res.body);
  });

  it("M-065 title is null when none was given: omitted, null, empty or only whitespace; PATCH {title: null} clears it", async () => {
    for (const body of [
      { participants: ["hum-dan"] },
      { title: null, participants: ["hum-dan"] },
      { title: "", participants: ["hum-dan"] },
      { title: "   ", participants: ["hum-dan"] },
    ]) {
      const created = await create(T.ben as string, body);
      expect(created.title).toBeNull();
      expect((await view(T.dan as string, created.id)).title).toBeNull();
    }
    const named = await create(T.ben as string, { title: "Named", participants: ["hum-dan"] });
    const cleared = await rest("PATCH", conv(named.id), { token: T.ben, body: { title: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.title).toBeNull();
    expect((await view(T.dan as string, named.id)).title).toBeNull();
  });

  it("M-065 a title over 200 code points is invalid with fields.title; 200 code points (astral) are fine", async () => {
    const before = await state();
    const res = await rest("POST", `${LAB}/conversations`, {
      token: T.ben,
      body: { title: "x".repeat(201), participants: ["hum-dan"] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid");
    expect(Object.keys(res.body.error.details.fields)).toEqual(["title"]);
    expect(await state()).toEqual(before);
    const astral = "😀".repeat(200);
    expect((await create(T.ben as string, { title: astral, participants: ["hum-dan"] })).title).toBe(astral);
  });

  it("M-066 created_by is the creating human, also when someone else reads the view", async () => {
    const created = await create(T.dan as string, { participants: ["hum-ben", "agt-b"] });
    expect(created.created_by).toBe("hum-dan");
    expect(created.created_at).toMatch(ISO);
    const forBen = await view(T.ben as string, created.id);
    expect(forBen.created_by).toBe("hum-dan");
    expect(forBen.created_at).toBe(created.created_at);
  });

  it("M-067 participants are the current ones only, in the order they joined (creator first, then as requested, then later joins; a re-join goes last)", async () => {
    const created = await create(T.ben as string, { participants: ["hum-dan", "agt-a", "hum-gus"] });
    expect(ids(created)).toEqual(["hum-ben", "hum-dan", "agt-a", "hum-gus"]);
    expect(
      (await rest("POST", `${conv(created.id)}/participants`, { token: T.ben, body: { member_id: "agt-b" } })).status,
    ).toBe(200);
    expect(
      (await rest("POST", `${conv(created.id)}/participants`, { token: T.ben, body: { member_id: "hum-ivy" } })).status,
    ).toBe(200);
    expect((await rest("DELETE", `${conv(created.id)}/participants/hum-dan`, { token: T.ben })).status).toBe(200);
    expect(ids(await view(T.ben as string, created.id))).toEqual(["hum-ben", "agt-a", "hum-gus", "agt-b", "hum-ivy"]);
    const firstJoin = created.participants.find((p) => p.member_id === "hum-dan")?.joined_at as string;
    const readded = await rest("POST", `${conv(created.id)}/participants`, {
      token: T.ben,
      body: { member_id: "hum-dan" },
    });
    expect(readded.status).toBe(200);
    expect(ids(readded.body)).toEqual(["hum-ben", "agt-a", "hum-gus", "agt-b", "hum-ivy", "hum-dan"]);
    const dan = readded.body.participants.at(-1);
    expect(new Date(dan.joined_at).getTime()).toBeGreaterThanOrEqual(new Date(firstJoin).getTime());
    // joined_at never goes backwards along the list.
    const times = readded.body.participants.map((p: { joined_at: string }) => new Date(p.joined_at).getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it("M-070 M-089 observers are the owners of agent participants who are not participants, members of the project or not (sorted ids); agents of any owner take part", async () => {
    const created = await create(T.ben as string, { participants: ["agt-e", "agt-a", "agt-b", "hum-dan"] });
    expect(ids(created)).toEqual(["hum-ben", "agt-e", "agt-a", "agt-b", "hum-dan"]);
    // hum-eve is not a member of the project; hum-ben owns agt-b but is a participant.
    expect(created.observers).toEqual(["hum-eve", "hum-olga"]);
    expect(created.participants[1]).toEqual(agent("agt-e", "agent-e", "eve"));
  });

  it("M-071 an agent's owner who is a participant is listed in participants only, never in observers", async () => {
    const created = await create(T.olga as string, { participants: ["agt-a", "hum-dan"] });
    expect(ids(created)).toEqual(["hum-olga", "agt-a", "hum-dan"]);
    expect(created.observers).toEqual([]);
    // Once the owner leaves, it reads along as an observer.
    expect((await rest("DELETE", `${conv(created.id)}/participants/hum-olga`, { token: T.olga })).status).toBe(200);
    const forDan = await view(T.dan as string, created.id);
    expect(ids(forDan)).toEqual(["agt-a", "hum-dan"]);
    expect(forDan.observers).toEqual(["hum-olga"]);
    expect((await view(T.olga as string, created.id)).access).toBe("observer");
    // Added back as a participant, it leaves observers again.
    const back = await rest("POST", `${conv(created.id)}/participants`, {
      token: T.dan,
      body: { member_id: "hum-olga" },
    });
    expect(back.status).toBe(403); // dan is no manager; the chat's creator left
    const byCara = await create(T.cara as string, { participants: ["agt-a", "hum-dan"] });
    expect(byCara.observers).toEqual(["hum-olga"]);
    const added = await rest("POST", `${conv(byCara.id)}/participants`, {
      token: T.cara,
      body: { member_id: "hum-olga" },
    });
    expect(added.status).toBe(200);
    expect(ids(added.body)).toEqual(["hum-cara", "agt-a", "hum-dan", "hum-olga"]);
    expect(added.body.observers).toEqual([]);
  });

  it("M-072 M-074 everyone who reads the chat sees the same participants and observers; access is the caller's own (participant or observer)", async () => {
    const created = await create(T.ben as string, { title: "Same room", participants: ["agt-a", "agt-e", "hum-dan"] });
    const readers = {
      ben: "participant",
      dan: "participant",
      a: "participant",
      e: "participant",
      olga: "observer",
      eve: "observer",
    } as const;
    const views: Record<string, View> = {};
    for (const [name, access] of Object.entries(readers)) {
      views[name] = await view(T[name] as string, created.id);
      expect(views[name]?.access, name).toBe(access);
    }
    for (const v of Object.values(views)) {
      expect(v.participants).toEqual(created.participants);
      expect(v.observers).toEqual(["hum-eve", "hum-olga"]);
      const { access: _a, ...rest } = v;
      const { access: _b, ...first } = created;
      expect(rest).toEqual(first);
    }
  });

  it("M-073 closed_at and closed_reason are null while open; a closed chat has a timestamp and closed_reason no_human", async () => {
    const created = await create(T.dan as string, { participants: ["agt-a", "agt-b"] });
    expect(created).toMatchObject({ closed_at: null, closed_reason: null });
    const left = await rest("DELETE", `${conv(created.id)}/participants/hum-dan`, { token: T.dan });
    expect(left.status).toBe(200);
    const closed = await view(T.a as string, created.id);
    expect(closed.closed_at).toMatch(ISO);
    expect(closed.closed_reason).toBe("no_human");
    expect(new Date(closed.closed_at as string).getTime()).toBeGreaterThanOrEqual(
      new Date(left.body.left_at).getTime() - 1000,
    );
  });

  it("hidden answers like missing: GET of a chat the caller is not in equals GET of cnv-9999 (M-063)", async () => {
    const created = await create(T.ben as string, { participants: ["hum-dan"] });
    for (const token of [T.gus, T.a, T.eve, T.zed]) {
      const hidden = await rest("GET", conv(created.id), { token });
      expect(hidden).toEqual(await rest("GET", conv("cnv-9999"), { token }));
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe("not_found");
    }
  });
});

describe("§9.2 wake — not built: refused, never half-working", () => {
  it("M-075 M-078 no participant entry carries wake: not in the view, the list items, nor the views in conversation_created/_updated", async () => {
    const created = await create(T.ben as string, { participants: ["agt-a", "agt-b", "hum-dan"] });
    await rest("PATCH", conv(created.id), { token: T.ben, body: { title: "Renamed" } });
    for (const p of created.participants) expect(p).not.toHaveProperty("wake");
    for (const p of (await view(T.olga as string, created.id)).participants) expect(p).not.toHaveProperty("wake");
    const list = await rest("GET", `${LAB}/conversations?limit=200`, { token: T.ben });
    const item = list.body.items.find((i: { id: string }) => i.id === created.id);
    expect(item.participants).toHaveLength(4);
    for (const p of item.participants) expect(p).not.toHaveProperty("wake");
    const events = await eventsOf(created.id);
    expect(events.map((e) => e.kind)).toEqual(["conversation_created", "conversation_updated"]);
    for (const e of events) {
      const participants = e.payload?.conversation.participants as Record<string, unknown>[];
      expect(participants).toHaveLength(4);
      for (const p of participants) expect(p).not.toHaveProperty("wake");
    }
  });

  it.each([["mentions"], ["all"], [null]])(
    "M-076 M-081 wake %j in POST …/participants is invalid fields.wake not_supported, nothing written",
    async (wake) => {
      const created = await create(T.ben as string, { participants: ["agt-a", "hum-dan"] });
      const before = await state();
      const res = await rest("POST", `${conv(created.id)}/participants`, {
        token: T.ben,
        body: { member_id: "agt-b", wake },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid");
      expect(res.body.error.details.fields).toEqual({ wake: "not_supported" });
      expect(await state()).toEqual(before);
      expect(ids(await view(T.ben as string, created.id))).toEqual(["hum-ben", "agt-a", "hum-dan"]);
    },
  );

  it("M-076 POST …/participants takes only member_id: any other field is invalid unknown_field, a missing member_id required; nothing written", async () => {
    const created = await create(T.ben as string, { participants: ["hum-dan"] });
    const before = await state();
    const extra = await rest("POST", `${conv(created.id)}/participants`, {
      token: T.ben,
      body: { member_id: "agt-a", role: "reviewer" },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.details.fields).toEqual({ role: "unknown_field" });
    const missing = await rest("POST", `${conv(created.id)}/participants`, { token: T.ben, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields).toEqual({ member_id: "required" });
    expect(await state()).toEqual(before);
  });

  it("M-076 M-081 wake in the create POST is invalid fields.wake not_supported, nothing written", async () => {
    const before = await state();
    for (const wake of ["mentions", "all"]) {
      const res = await rest("POST", `${LAB}/conversations`, {
        token: T.ben,
        body: { participants: ["agt-a", "hum-dan"], wake },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields).toEqual({ wake: "not_supported" });
    }
    expect(await state()).toEqual(before);
  });

  it("M-081 M-083 PATCH …/participants/{member_id} with wake is invalid fields.wake not_supported — for the manager, the agent itself and its observing owner alike; nothing written", async () => {
    const created = await create(T.ben as string, { participants: ["agt-a", "hum-dan"] });
    expect((await view(T.olga as string, created.id)).access).toBe("observer");
    const before = await state();
    for (const token of [T.ben, T.a, T.olga]) {
      for (const wake of ["all", "mentions"]) {
        const res = await rest("PATCH", `${conv(created.id)}/participants/agt-a`, { token, body: { wake } });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { wake: "not_supported" } } });
        expect(Object.keys(res.body.error.details.fields)).toEqual(["wake"]);
      }
    }
    expect(await state()).toEqual(before);
    for (const p of (await view(T.ben as string, created.id)).participants) expect(p).not.toHaveProperty("wake");
    // A chat the caller cannot see answers like a missing one.
    const hidden = await rest("PATCH", `${conv(created.id)}/participants/agt-a`, {
      token: T.gus,
      body: { wake: "all" },
    });
    expect(hidden).toEqual(
      await rest("PATCH", `${conv("cnv-9999")}/participants/agt-a`, { token: T.gus, body: { wake: "all" } }),
    );
    expect(hidden.status).toBe(404);
  });

  it("M-082 a manager adding another owner's agent with wake all gets invalid not_supported (not forbidden owner_sets_wake): the field does not exist yet", async () => {
    const created = await create(T.ben as string, { participants: ["hum-dan"] });
    const before = await state();
    const res = await rest("POST", `${conv(created.id)}/participants`, {
      token: T.ben,
      body: { member_id: "agt-a", wake: "all" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { wake: "not_supported" } } });
    expect(res.body.error.details.reason).toBeUndefined();
    expect(await state()).toEqual(before);
  });

  it("M-077 M-079 an agent in a group chat is woken only by a mention: a human's message without one wakes no agent (no wake: all)", async () => {
    const created = await create(T.ben as string, { participants: ["agt-a", "agt-b", "hum-dan"] });
    const plain = await post(T.ben as string, created.id, "Anyone around? someone should read this");
    const mention = await post(T.dan as string, created.id, "@agent-a can we tag today?");
    const events = await eventsOf(created.id);
    const byseq = new Map(events.map((e) => [e.seq, e]));
    expect(byseq.get(plain.seq)?.verdicts).toEqual([
      { agentId: "agt-a", shouldRespond: false, reason: "not_addressed" },
      { agentId: "agt-b", shouldRespond: false, reason: "not_addressed" },
    ]);
    expect(byseq.get(mention.seq)?.verdicts).toEqual([
      { agentId: "agt-a", shouldRespond: true, reason: "mentioned" },
      { agentId: "agt-b", shouldRespond: false, reason: "not_addressed" },
    ]);
    // The message is addressed to every participant all the same.
    expect(byseq.get(plain.seq)?.audience).toEqual(["agt-a", "agt-b", "hum-ben", "hum-dan"]);
    // Being added wakes nobody either.
    for (const e of events.filter((x) => x.kind !== "message")) expect(e.verdicts).toEqual([]);
  });

  it("M-080 an agent's message wakes another agent only by mentioning it, and never wakes its author", async () => {
    const created = await create(T.ben as string, { participants: ["agt-a", "agt-b"] });
    const plain = await post(T.a as string, created.id, "I am done with the build.");
    // A human speaks between the two, so the round cap (004 §4, B-068) does not stop the hand-over.
    await post(T.ben as string, created.id, "thanks");
    const mention = await post(T.a as string, created.id, "@agent-b your turn");
    const events = new Map((await eventsOf(created.id)).map((e) => [e.seq, e]));
    expect(events.get(plain.seq)?.verdicts).toEqual([
      { agentId: "agt-a", shouldRespond: false, reason: "own_message" },
      { agentId: "agt-b", shouldRespond: false, reason: "not_addressed" },
    ]);
    expect(events.get(mention.seq)?.verdicts).toEqual([
      { agentId: "agt-a", shouldRespond: false, reason: "own_message" },
      { agentId: "agt-b", shouldRespond: true, reason: "mentioned" },
    ]);
  });
});

describe("§9.2 who creates", () => {
  it("M-084 a human member without members:admin creates a group chat: 201 with the view", async () => {
    const res = await rest("POST", `${LAB}/conversations`, {
      token: T.gus,
      body: { title: "Gus asks", participants: ["hum-dan"] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: "group",
      title: "Gus asks",
      created_by: "hum-gus",
      access: "participant",
      pinned: false,
      closed_at: null,
    });
    expect(ids(res.body)).toEqual(["hum-gus", "hum-dan"]);
    expect(await hub.db.conversation.count({ where: { publicId: res.body.id, kind: "group" } })).toBe(1);
  });

  it("M-085 an agent's create POST is forbidden humans_only, whatever the body, and writes nothing", async () => {
    const before = await state();
    for (const body of [{ participants: ["hum-dan"] }, { title: "Agents only", participants: ["agt-b", "agt-e"] }]) {
      const res = await rest("POST", `${LAB}/conversations`, { token: T.a, body });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
      expect(res.body.error.details.reason).toBe("humans_only");
    }
    expect(await state()).toEqual(before);
  });

  it("M-084 only a member creates: a non-member, and an owner outside the project whose agent is in it, get the not_found of a missing project; nothing written", async () => {
    const before = await state();
    for (const token of [T.zed, T.eve]) {
      const hidden = await rest("POST", `${LAB}/conversations`, {
        token,
        body: { participants: ["agt-e", "hum-dan"] },
      });
      const missing = await rest("POST", "/api/projects/olga/nope/conversations", {
        token,
        body: { participants: ["agt-e", "hum-dan"] },
      });
      expect(hidden).toEqual(missing);
      expect(hidden.status).toBe(404);
    }
    // An agent that is not a member of the project: also not_found, not humans_only.
    const agentOutside = await rest("POST", `${ARCH}/conversations`, {
      token: T.e,
      body: { participants: ["hum-dan"] },
    });
    expect(agentOutside).toEqual(
      await rest("POST", "/api/projects/olga/nope/conversations", { token: T.e, body: { participants: ["hum-dan"] } }),
    );
    expect(await state()).toEqual(before);
  });

  it("M-087 the creator is a participant whether or not participants names it, listed once and first", async () => {
    const named = await create(T.dan as string, { participants: ["agt-a", "hum-dan"] });
    expect(ids(named)).toEqual(["hum-dan", "agt-a"]);
    const unnamed = await create(T.dan as string, { participants: ["agt-a"] });
    expect(ids(unnamed)).toEqual(["hum-dan", "agt-a"]);
    const rows = await hub.db.participation.findMany({
      where: { conversation: { publicId: unnamed.id } },
      select: { memberId: true, leftAt: true },
    });
    expect(rows.map((r) => r.memberId).sort()).toEqual(["agt-a", "hum-dan"]);
    // conversation_created is addressed to the creator too.
    const [created] = await eventsOf(unnamed.id);
    expect(created?.audience).toEqual(["agt-a", "hum-dan"]);
  });

  it("M-088 the idempotent replay answers 200 with the group chat view as it is now — pinned included — and writes nothing", async () => {
    const headers = { "idempotency-key": "group-manage-replay-1" };
    const body = { title: "Replayed", participants: ["hum-dan", "agt-b"] };
    const first = await rest("POST", `${LAB}/conversations`, { token: T.ben, body, headers });
    expect(first.status).toBe(201);
    expect(first.body.pinned).toBe(false);
    expect((await rest("PUT", `${conv(first.body.id)}/pin`, { token: T.ben })).status).toBe(204);
    const before = await state();
    const again = await rest("POST", `${LAB}/conversations`, { token: T.ben, body, headers });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, pinned: true });
    expect(again.body).toEqual(await view(T.ben as string, first.body.id));
    expect(await state()).toEqual(before);
  });
});

describe("§9.2 who takes part", () => {
  let extras: string[] = [];
  beforeAll(async () => {
    for (let i = 1; i <= 12; i++) {
      const handle = `tp${String(i).padStart(2, "0")}`;
      await admin(rest, "POST", "/api/admin/humans", { handle, name: `Taker ${i}`, password: "taker-password-1" });
      await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: `hum-${handle}` });
    }
    extras = Array.from({ length: 12 }, (_, i) => `hum-tp${String(i + 1).padStart(2, "0")}`);
  });

  it("M-089 humans and agents of any owner — the creator's, another member's, an owner's outside the project — take part", async () => {
    const created = await create(T.olga as string, { participants: ["agt-a", "agt-b", "agt-e", "agt-c", "hum-cara"] });
    expect(ids(created)).toEqual(["hum-olga", "agt-a", "agt-b", "agt-e", "agt-c", "hum-cara"]);
    expect(created.participants.map((p) => p.kind)).toEqual(["human", "agent", "agent", "agent", "agent", "human"]);
    expect(created.observers).toEqual(["hum-ben", "hum-eve"]);
  });

  it("M-090 a repeated id counts once: no error, listed once", async () => {
    const created = await create(T.ben as string, {
      participants: ["agt-a", "hum-dan", "agt-a", "hum-dan", "hum-ben"],
    });
    expect(ids(created)).toEqual(["hum-ben", "agt-a", "hum-dan"]);
    expect(await hub.db.participation.count({ where: { conversation: { publicId: created.id } } })).toBe(3);
  });

  it("M-090 M-092 twelve distinct participants with the creator are allowed, repeats not counted; a thirteenth distinct one is too_many, nothing written", async () => {
    const eleven = extras.slice(0, 11);
    const ok = await create(T.ben as string, { participants: [...eleven, ...eleven.slice(0, 5)] });
    expect(ok.participants).toHaveLength(12);
    const before = await state();
    const res = await rest("POST", `${LAB}/conversations`, { token: T.ben, body: { participants: extras } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { participants: "too_many" } } });
    expect(Object.keys(res.body.error.details.fields)).toEqual(["participants"]);
    expect(await state()).toEqual(before);
  });

  it("M-092 adding a 13th participant is invalid fields.member_id too_many, nothing written", async () => {
    const full = await create(T.ben as string, { participants: extras.slice(0, 11) });
    expect(full.participants).toHaveLength(12);
    const before = await state();
    const res = await rest("POST", `${conv(full.id)}/participants`, { token: T.ben, body: { member_id: "hum-dan" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { member_id: "too_many" } } });
    expect(await state()).toEqual(before);
  });

  it.each([
    ["no one", []],
    ["the creator only", ["hum-ben"]],
    ["the creator twice", ["hum-ben", "hum-ben"]],
  ])(
    "M-091 after adding the creator and dropping repeats, fewer than two is too_few (%s), nothing written",
    async (_name, participants) => {
      const before = await state();
      const res = await rest("POST", `${LAB}/conversations`, { token: T.ben, body: { participants } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { participants: "too_few" } } });
      expect(await state()).toEqual(before);
    },
  );

  it.each([
    ["an unknown human", "hum-nobody"],
    ["an unknown agent", "agt-nobody"],
    ["a human of another project", "hum-zed"],
    ["an owner outside the project", "hum-eve"],
    ["an isolated agent", "agt-z"],
  ])(
    "M-093 a participant who is not an active member (%s) is invalid not_a_member, nothing written",
    async (_name, memberId) => {
      const before = await state();
      const res = await rest("POST", `${LAB}/conversations`, {
        token: T.ben,
        body: { participants: ["hum-dan", memberId] },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { participants: "not_a_member" } } });
      expect(await state()).toEqual(before);
    },
  );

  it("M-093 adding a member who is not an active member of the project is invalid fields.member_id not_a_member, nothing written", async () => {
    const created = await create(T.ben as string, { participants: ["hum-dan"] });
    const before = await state();
    for (const memberId of ["hum-zed", "hum-eve", "agt-z", "agt-nobody"]) {
      const res = await rest("POST", `${conv(created.id)}/participants`, {
        token: T.ben,
        body: { member_id: memberId },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { member_id: "not_a_member" } } });
    }
    expect(await state()).toEqual(before);
  });

  it("M-094 exactly the creator and one agent the creator owns is use_direct (also when named twice), nothing written", async () => {
    const before = await state();
    for (const participants of [["agt-a"], ["agt-a", "agt-a"], ["hum-olga", "agt-a"]]) {
      const res = await rest("POST", `${LAB}/conversations`, { token: T.olga, body: { participants } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { participants: "use_direct" } } });
    }
    expect(await state()).toEqual(before);
    // Two own agents, or one own agent and another member, is a group chat.
    expect((await create(T.olga as string, { participants: ["agt-a", "agt-i"] })).participants).toHaveLength(3);
  });

  it("M-095 the creator plus one agent of another owner, or plus one other human, is a valid two-participant chat", async () => {
    const withAgent = await create(T.ben as string, { participants: ["agt-a"] });
    expect(ids(withAgent)).toEqual(["hum-ben", "agt-a"]);
    expect(withAgent.observers).toEqual(["hum-olga"]);
    const withHuman = await create(T.ben as string, { participants: ["hum-cara"] });
    expect(ids(withHuman)).toEqual(["hum-ben", "hum-cara"]);
    const outsideOwner = await create(T.ben as string, { participants: ["agt-e"] });
    expect(outsideOwner.observers).toEqual(["hum-eve"]);
  });

  it("M-096 M-088 a project with as many open group chats as allowed answers conversation_quota 409 (details.limit), but not to a replay; per project; closed chats do not count", async () => {
    const qa = async (method: string, path: string, body?: unknown) => admin(quotaRest, method, path, body);
    await qa("POST", "/api/admin/humans", { handle: "qa", name: "Qa", password: "qa-password-1" });
    await qa("POST", "/api/admin/humans", { handle: "qb", name: "Qb", password: "qb-password-1", bay: "qa" });
    await qa("POST", "/api/admin/agents", { owner: "qb", handle: "agent-q" });
    for (const slug of ["one", "two"]) {
      await qa("POST", "/api/admin/projects", { owner: "qa", slug, name: slug });
      await qa("POST", `/api/admin/projects/qa/${slug}/members`, { member_id: "hum-qb" });
      await qa("POST", `/api/admin/projects/qa/${slug}/members`, { member_id: "agt-q" });
    }
    const token = (await qa("POST", "/api/admin/tokens", { member_id: "hum-qa" })).token as string;
    const make = (slug: string, participants: string[]) =>
      quotaRest("POST", `/api/projects/qa/${slug}/conversations`, { token, body: { participants } });
    expect((await make("one", ["hum-qb"])).status).toBe(201);
    const second = await quotaRest("POST", "/api/projects/qa/one/conversations", {
      token,
      body: { participants: ["agt-q"] },
      headers: { "idempotency-key": "q-2" },
    });
    expect(second.status).toBe(201);
    const before = await state(quotaHub);
    const third = await make("one", ["hum-qb"]);
    expect(third.body.error?.code).toBe("conversation_quota");
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe("conversation_quota");
    expect(third.body.error.details).toEqual({ limit: 2 });
    // M-088: a replay creates nothing, so the quota does not refuse it.
    const replay = await quotaRest("POST", "/api/projects/qa/one/conversations", {
      token,
      body: { participants: ["agt-q"] },
      headers: { "idempotency-key": "q-2" },
    });
    expect(replay).toEqual({ status: 200, body: second.body });
    expect(await state(quotaHub)).toEqual(before);
    // Another project has its own count.
    expect((await make("two", ["hum-qb"])).status).toBe(201);
    // The last human leaving closes the second chat; a closed chat does not count.
    const leave = await quotaRest(
      "DELETE",
      `/api/projects/qa/one/conversations/${second.body.id}/participants/hum-qa`,
      { token },
    );
    expect(leave.status).toBe(200);
    expect((await make("one", ["hum-qb"])).status).toBe(201);
    expect((await make("one", ["hum-qb"])).status).toBe(409);
  });
});

describe("§9.2 who manages", () => {
  // ben creates; cara (members:admin) and dan (no admin) take part with two agents.
  let chat: View;
  beforeAll(async () => {
    chat = await create(T.ben as string, { title: "Managed", participants: ["hum-cara", "hum-dan", "agt-a", "agt-b"] });
  });

  it("M-097 M-098 the creator renames: 200 view; conversation_updated with changed.title to the participants, waking no agent", async () => {
    const from = await lastSeq();
    const res = await rest("PATCH", conv(chat.id), { token: T.ben, body: { title: "Managed by Ben" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...(await view(T.ben as string, chat.id)), title: "Managed by Ben" });
    const events = await eventsOf(chat.id, from);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: "conversation_updated",
      from: "hum-ben",
      verdicts: [],
      audience: ["agt-a", "agt-b", "hum-ben", "hum-cara", "hum-dan"],
    });
    expect(events[0]?.payload?.changed).toEqual({ title: "Managed by Ben" });
    expect(events[0]?.payload?.conversation).toMatchObject({ id: chat.id, title: "Managed by Ben" });
    expect(events[0]?.payload?.conversation).not.toHaveProperty("access");
    expect(events[0]?.payload?.conversation).not.toHaveProperty("pinned");
  });

  it("M-097 M-098 a human participant holding members:admin who did not create the chat renames, adds and removes", async () => {
    const renamed = await rest("PATCH", conv(chat.id), { token: T.cara, body: { title: "Managed by Cara" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe("Managed by Cara");
    const from = await lastSeq();
    const added = await rest("POST", `${conv(chat.id)}/participants`, {
      token: T.cara,
      body: { member_id: "hum-gus" },
    });
    expect(added.status).toBe(200);
    expect(ids(added.body)).toEqual(["hum-ben", "hum-cara", "hum-dan", "agt-a", "agt-b", "hum-gus"]);
    expect(added.body).toEqual(await view(T.cara as string, chat.id));
    const removed = await rest("DELETE", `${conv(chat.id)}/participants/hum-gus`, { token: T.cara });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      member_id: "hum-gus",
      joined_at: expect.stringMatching(ISO),
      left_at: expect.stringMatching(ISO),
      reason: "removed",
    });
    const events = await eventsOf(chat.id, from);
    expect(events.map((e) => [e.kind, e.from, e.payload?.changed])).toEqual([
      ["conversation_updated", "hum-cara", { participants: { added: ["hum-gus"] } }],
      ["conversation_updated", "hum-cara", { participants: { removed: ["hum-gus"] } }],
    ]);
    // The newcomer and the removed member are in the audience of their event.
    expect(events[0]?.audience).toContain("hum-gus");
    expect(events[1]?.audience).toEqual(["agt-a", "agt-b", "hum-ben", "hum-cara", "hum-dan", "hum-gus"]);
    expect(ids(await view(T.ben as string, chat.id))).toEqual(["hum-ben", "hum-cara", "hum-dan", "agt-a", "agt-b"]);
  });

  it("M-097 a participant who is neither the creator nor holds members:admin — human or agent — is forbidden not_a_manager to rename, add or remove; nothing written", async () => {
    const before = await state();
    for (const token of [T.dan, T.a, T.b]) {
      const attempts = [
        await rest("PATCH", conv(chat.id), { token, body: { title: "Hijacked" } }),
        await rest("POST", `${conv(chat.id)}/participants`, { token, body: { member_id: "hum-gus" } }),
        await rest("DELETE", `${conv(chat.id)}/participants/hum-cara`, { token }),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: "forbidden", details: { reason: "not_a_manager" } });
      }
    }
    expect(await state()).toEqual(before);
  });

  it("M-097 an agent holding members:admin is no manager: managers are human participants", async () => {
    const room = await create(T.ben as string, { participants: ["agt-c", "hum-dan"] });
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", {
      member_id: "agt-c",
      permissions: ["members:admin"],
    });
    try {
      const before = await state();
      for (const res of [
        await rest("PATCH", conv(room.id), { token: T.c, body: { title: "Agent rules" } }),
        await rest("POST", `${conv(room.id)}/participants`, { token: T.c, body: { member_id: "hum-gus" } }),
        await rest("DELETE", `${conv(room.id)}/participants/hum-dan`, { token: T.c }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: "forbidden", details: { reason: "not_a_manager" } });
      }
      expect(await state()).toEqual(before);
    } finally {
      await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: "agt-c", permissions: [] });
    }
  });

  it("M-097 a project admin who only reads along as an agent's owner is forbidden observer for every write, nothing written", async () => {
    const before = await state();
    const attempts = [
      await rest("PATCH", conv(chat.id), { token: T.olga, body: { title: "Olga's" } }),
      await rest("POST", `${conv(chat.id)}/participants`, { token: T.olga, body: { member_id: "hum-olga" } }),
      await rest("DELETE", `${conv(chat.id)}/participants/hum-dan`, { token: T.olga }),
      await rest("DELETE", `${conv(chat.id)}/participants/agt-a`, { token: T.olga }),
      await rest("POST", `${conv(chat.id)}/messages`, { token: T.olga, body: { body: "hello" } }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: "forbidden", details: { reason: "observer" } });
    }
    expect(await state()).toEqual(before);
  });

  it("M-097 the creator manages only while a participant: after leaving it cannot see the chat (not_found like a missing one)", async () => {
    const own = await create(T.dan as string, { title: "Dan's", participants: ["hum-gus", "agt-a"] });
    expect((await rest("DELETE", `${conv(own.id)}/participants/hum-dan`, { token: T.dan })).status).toBe(200);
    const before = await state();
    for (const [method, suffix, body] of [
      ["PATCH", "", { title: "Still mine" }],
      ["POST", "/participants", { member_id: "hum-dan" }],
      ["DELETE", "/participants/hum-gus", undefined],
    ] as const) {
      const res = await rest(method, `${conv(own.id)}${suffix}`, { token: T.dan, body });
      expect(res).toEqual(await rest(method, `${conv("cnv-9999")}${suffix}`, { token: T.dan, body }));
      expect(res.status).toBe(404);
    }
    expect(await state()).toEqual(before);
    // gus is not a manager (no admin, not the creator) either.
    expect((await rest("PATCH", conv(own.id), { token: T.gus, body: { title: "x" } })).body.error.details.reason).toBe(
      "not_a_manager",
    );
  });

  it("M-097 members:admin counts only while held: cara without it is not_a_manager", async () => {
    const room = await create(T.dan as string, { participants: ["hum-ivy", "hum-fay"] });
    expect(
      (await rest("POST", `${conv(room.id)}/participants`, { token: T.ivy, body: { member_id: "hum-gus" } })).body.error
        .details.reason,
    ).toBe("not_a_manager");
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", {
      member_id: "hum-ivy",
      permissions: ["members:admin"],
    });
    const added = await rest("POST", `${conv(room.id)}/participants`, { token: T.ivy, body: { member_id: "hum-gus" } });
    expect(added.status).toBe(200);
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: "hum-ivy", permissions: [] });
    const before = await state();
    const res = await rest("DELETE", `${conv(room.id)}/participants/hum-gus`, { token: T.ivy });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("not_a_manager");
    expect(await state()).toEqual(before);
  });

  it("M-099 any participant leaves with DELETE on its own id — a plain human and an agent: 200 participation reason left", async () => {
    const room = await create(T.ben as string, { participants: ["hum-dan", "agt-a", "agt-b"] });
    const from = await lastSeq();
    const dan = await rest("DELETE", `${conv(room.id)}/participants/hum-dan`, { token: T.dan });
    expect(dan).toEqual({
      status: 200,
      body: {
        member_id: "hum-dan",
        joined_at: room.participants[1]?.joined_at,
        left_at: expect.stringMatching(ISO),
        reason: "left",
      },
    });
    const agentB = await rest("DELETE", `${conv(room.id)}/participants/agt-b`, { token: T.b });
    expect(agentB).toEqual({
      status: 200,
      body: {
        member_id: "agt-b",
        joined_at: room.participants[3]?.joined_at,
        left_at: expect.stringMatching(ISO),
        reason: "left",
      },
    });
    const events = await eventsOf(room.id, from);
    expect(events.map((e) => [e.from, e.payload?.changed, e.verdicts])).toEqual([
      ["hum-dan", { participants: { removed: ["hum-dan"] } }, []],
      ["agt-b", { participants: { removed: ["agt-b"] } }, []],
    ]);
    expect(events[0]?.audience).toEqual(["agt-a", "agt-b", "hum-ben", "hum-dan"]);
    const now = await view(T.ben as string, room.id);
    expect(ids(now)).toEqual(["hum-ben", "agt-a"]);
    expect(now.closed_at).toBeNull();
    // The leavers no longer see the chat.
    for (const token of [T.dan, T.b])
      expect(await rest("GET", conv(room.id), { token })).toEqual(await rest("GET", conv("cnv-9999"), { token }));
  });

  it("M-100 a members:admin holder who is not in the chat cannot see it and manages nothing: every chat route answers like cnv-9999, nothing written", async () => {
    const hidden = await create(T.ben as string, { title: "Not for Olga", participants: ["hum-dan", "agt-b"] });
    const message = await post(T.ben as string, hidden.id, "between us");
    const before = await state();
    const calls: [string, string, unknown][] = [
      ["GET", "", undefined],
      ["PATCH", "", { title: "Olga was here" }],
      ["POST", "/participants", { member_id: "hum-olga" }],
      ["POST", "/participants", { member_id: "hum-cara" }],
      ["DELETE", "/participants/hum-dan", undefined],
      ["DELETE", "/participants/hum-olga", undefined],
      ["GET", "/messages", undefined],
      ["GET", `/messages?before=${message.seq + 1}`, undefined],
      ["POST", "/messages", { body: "admin speaking" }],
      ["POST", `/messages/${message.seq}/redact`, { reason: "admin" }],
      ["PUT", "/pin", undefined],
      ["DELETE", "/pin", undefined],
      ["PUT", "/meat-proxy", { meat_proxy: true }],
    ];
    for (const token of [T.olga, T.cara]) {
      for (const [method, suffix, body] of calls) {
        const res = await rest(method, `${conv(hidden.id)}${suffix}`, { token, body });
        expect(res, `${method} ${suffix}`).toEqual(await rest(method, `${conv("cnv-9999")}${suffix}`, { token, body }));
        expect(res.status, `${method} ${suffix}`).toBe(404);
        expect(res.body.error.code).toBe("not_found");
      }
      const viaEvents = await rest("POST", `${LAB}/events`, {
        token,
        body: { type: "chat", conversation_id: hidden.id, body: "sneaky" },
      });
      expect(viaEvents).toEqual(
        await rest("POST", `${LAB}/events`, {
          token,
          body: { type: "chat", conversation_id: "cnv-9999", body: "sneaky" },
        }),
      );
      expect(viaEvents.status).toBe(404);
      // Not in the list, observed or not, and nothing of it in the admin's events.
      const list = await rest("GET", `${LAB}/conversations?observed=true&limit=200`, { token });
      expect(list.status).toBe(200);
      expect(list.body.items.map((i: { id: string }) => i.id)).not.toContain(hidden.id);
      const events = await rest("GET", `${LAB}/events?after=0&limit=200`, { token });
      expect(events.status).toBe(200);
      expect(events.body.items.filter((e: { conversation_id: string }) => e.conversation_id === hidden.id)).toEqual([]);
    }
    expect(await state()).toEqual(before);
  });

  it("M-101 adding a participant already in the chat answers 200 with the view unchanged and writes nothing", async () => {
    const room = await create(T.ben as string, { participants: ["hum-dan", "agt-a"] });
    const before = await state();
    const viewBefore = await view(T.ben as string, room.id);
    for (const memberId of ["hum-dan", "agt-a", "hum-ben"]) {
      const res = await rest("POST", `${conv(room.id)}/participants`, { token: T.ben, body: { member_id: memberId } });
      expect(res).toEqual({ status: 200, body: viewBefore });
    }
    expect(await state()).toEqual(before);
  });

  it("M-102 removing a member who is not a participant answers 200 with its last participation (no event); never a participant → not_found", async () => {
    const room = await create(T.ben as string, { participants: ["hum-dan", "hum-gus", "agt-a"] });
    // dan leaves, is added again, and is removed: the last participation is the removal.
    const left = await rest("DELETE", `${conv(room.id)}/participants/hum-dan`, { token: T.dan });
    expect(left.body.reason).toBe("left");
    expect(
      (await rest("POST", `${conv(room.id)}/participants`, { token: T.ben, body: { member_id: "hum-dan" } })).status,
    ).toBe(200);
    const removed = await rest("DELETE", `${conv(room.id)}/participants/hum-dan`, { token: T.ben });
    expect(removed.status).toBe(200);
    expect(removed.body.reason).toBe("removed");
    expect(removed.body.joined_at).not.toBe(left.body.joined_at);
    const before = await state();
    const again = await rest("DELETE", `${conv(room.id)}/participants/hum-dan`, { token: T.ben });
    expect(again).toEqual({ status: 200, body: removed.body });
    expect(await state()).toEqual(before);
    for (const memberId of ["hum-cara", "agt-b", "hum-nobody"]) {
      const res = await rest("DELETE", `${conv(room.id)}/participants/${memberId}`, { token: T.ben });
      expect(res.status, memberId).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    expect(await state()).toEqual(before);
  });

  it("M-103 M-247 a member removed from the project leaves every chat of that project with reason membership_removed (only that project's)", async () => {
    const earlier = await hub.db.participation.findMany({
      where: { memberId: "hum-fay", leftAt: null, conversation: { projectId: "prj-olga-lab" } },
      select: { id: true },
    });
    const one = await create(T.ben as string, { participants: ["hum-fay", "hum-dan"] });
    const two = await create(T.dan as string, { participants: ["hum-fay", "agt-a"] });
    const elsewhere = await create(T.fay as string, { participants: ["agt-i"] }, OTHER);
    const from = await lastSeq();
    await admin(rest, "DELETE", "/api/admin/projects/olga/lab/members/hum-fay?reason=removed");
    for (const [room, manager] of [
      [one, T.ben],
      [two, T.dan],
    ] as const) {
      const now = await view(manager as string, room.id);
      expect(ids(now)).not.toContain("hum-fay");
      const last = await rest("DELETE", `${conv(room.id)}/participants/hum-fay`, { token: manager });
      expect(last).toEqual({
        status: 200,
        body: {
          member_id: "hum-fay",
          joined_at: room.participants[1]?.joined_at,
          left_at: expect.stringMatching(ISO),
          reason: "membership_removed",
        },
      });
      const events = await eventsOf(room.id, from);
      expect(events).toHaveLength(1);
      expect(events[0]?.payload?.changed).toEqual({ participants: { removed: ["hum-fay"] } });
      expect(events[0]?.audience).toContain("hum-fay");
    }
    // dan is still a human in `two`: it stays open.
    expect((await view(T.dan as string, two.id)).closed_at).toBeNull();
    expect(ids(await view(T.fay as string, elsewhere.id, OTHER))).toEqual(["hum-fay", "agt-i"]);
    const rows = await hub.db.participation.findMany({
      where: { memberId: "hum-fay", conversation: { publicId: { in: [one.id, two.id, elsewhere.id] } } },
      select: { leftReason: true, conversation: { select: { publicId: true } } },
    });
    expect(Object.fromEntries(rows.map((r) => [r.conversation.publicId, r.leftReason]))).toEqual({
      [one.id]: "membership_removed",
      [two.id]: "membership_removed",
      [elsewhere.id]: null,
    });
    // Back in the project, fay is in none of those chats again.
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: "hum-fay" });
    expect(ids(await view(T.ben as string, one.id))).toEqual(["hum-ben", "hum-dan"]);
    expect(await rest("GET", conv(one.id), { token: T.fay })).toEqual(
      await rest("GET", conv("cnv-9999"), { token: T.fay }),
    );
    // Every chat of the project fay was still in, from earlier tests too.
    expect(earlier.length).toBeGreaterThan(0);
    for (const p of await hub.db.participation.findMany({
      where: { id: { in: earlier.map((e) => e.id) } },
      select: { leftReason: true, leftAt: true },
    }))
      expect(p).toEqual({ leftReason: "membership_removed", leftAt: expect.any(Date) });
  });

  it("M-103 an agent removed from the project (not isolated) leaves its chats with reason membership_removed", async () => {
    await admin(rest, "POST", "/api/admin/agents", { owner: "dan", handle: "agent-r" });
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: "agt-r" });
    const room = await create(T.ben as string, { participants: ["agt-r", "hum-gus"] });
    expect(room.observers).toEqual(["hum-dan"]);
    await admin(rest, "DELETE", "/api/admin/projects/olga/lab/members/agt-r?reason=removed");
    const after = await view(T.ben as string, room.id);
    expect(ids(after)).toEqual(["hum-ben", "hum-gus"]);
    expect(after.observers).toEqual([]);
    const last = await rest("DELETE", `${conv(room.id)}/participants/agt-r`, { token: T.ben });
    expect(last.body).toEqual({
      member_id: "agt-r",
      joined_at: room.participants[1]?.joined_at,
      left_at: expect.stringMatching(ISO),
      reason: "membership_removed",
    });
  });

  it("M-104 M-247 an isolated agent leaves every chat of the project with reason membership_isolated", async () => {
    const one = await create(T.ben as string, { participants: ["agt-i", "hum-dan"] });
    const two = await create(T.olga as string, { participants: ["agt-i", "agt-a"] });
    expect(one.observers).toEqual(["hum-olga"]);
    await admin(rest, "DELETE", "/api/admin/projects/olga/lab/members/agt-i?reason=isolated");
    const after = await view(T.ben as string, one.id);
    expect(ids(after)).toEqual(["hum-ben", "hum-dan"]);
    expect(after.observers).toEqual([]);
    expect(ids(await view(T.olga as string, two.id))).toEqual(["hum-olga", "agt-a"]);
    for (const [room, manager] of [
      [one, T.ben],
      [two, T.olga],
    ] as const) {
      const last = await rest("DELETE", `${conv(room.id)}/participants/agt-i`, { token: manager });
      expect(last).toEqual({
        status: 200,
        body: {
          member_id: "agt-i",
          joined_at: room.participants[1]?.joined_at,
          left_at: expect.stringMatching(ISO),
          reason: "membership_isolated",
        },
      });
    }
    // olga no longer reads `one` along through agt-i.
    expect(await rest("GET", conv(one.id), { token: T.olga })).toEqual(
      await rest("GET", conv("cnv-9999"), { token: T.olga }),
    );
  });
});

describe("§9.2 closing", () => {
  it("M-105 M-106 the last human leaving closes the chat: closed_at, no_human, and conversation_updated with changed.closed to the remaining participants and the leaver", async () => {
    const room = await create(T.ben as string, { title: "Two humans", participants: ["hum-dan", "agt-a"] });
    const from = await lastSeq();
    expect((await rest("DELETE", `${conv(room.id)}/participants/hum-dan`, { token: T.dan })).status).toBe(200);
    expect((await view(T.ben as string, room.id)).closed_at).toBeNull();
    const middle = await lastSeq();
    const leave = await rest("DELETE", `${conv(room.id)}/participants/hum-ben`, { token: T.ben });
    expect(leave.status).toBe(200);
    const closed = await view(T.a as string, room.id);
    expect(closed).toMatchObject({
      closed_at: expect.stringMatching(ISO),
      closed_reason: "no_human",
      participants: [agent("agt-a", "agent-a", "olga")],
      observers: ["hum-olga"],
    });
    const events = await eventsOf(room.id, from);
    expect(events.map((e) => e.payload?.changed)).toEqual([
      { participants: { removed: ["hum-dan"] } },
      { participants: { removed: ["hum-ben"] }, closed: true },
    ]);
    expect(events[1]?.audience).toEqual(["agt-a", "hum-ben"]);
    expect(events[1]?.verdicts).toEqual([]);
    // The event as the remaining agent reads it in GET /events.
    const read = await rest("GET", `${LAB}/events?after=${middle}&limit=200`, { token: T.a });
    expect(read.status).toBe(200);
    const closing = read.body.items.filter((e: { conversation_id: string }) => e.conversation_id === room.id);
    expect(closing).toEqual([
      {
        id: `evt-${events[1]?.seq}`,
        seq: events[1]?.seq,
        kind: "conversation_updated",
        conversation_id: room.id,
        from: "hum-ben",
        sent_at: expect.stringMatching(ISO),
        payload: {
          conversation: { ...closed, access: undefined, pinned: undefined, participants: closed.participants },
          changed: { participants: { removed: ["hum-ben"] }, closed: true },
        },
      },
    ]);
    expect(closing[0].payload.conversation).not.toHaveProperty("access");
    expect(closing[0].payload.conversation).not.toHaveProperty("pinned");
  });

  it("M-105 M-106 M-110 the last human removed from the project closes the chat with no_human and changed.closed; re-adding it to the project does not reopen it", async () => {
    const room = await create(T.hal as string, { participants: ["agt-a", "agt-b"] });
    const from = await lastSeq();
    await admin(rest, "DELETE", "/api/admin/projects/olga/lab/members/hum-hal?reason=removed");
    const closed = await view(T.b as string, room.id);
    expect(closed).toMatchObject({ closed_at: expect.stringMatching(ISO), closed_reason: "no_human" });
    expect(ids(closed)).toEqual(["agt-a", "agt-b"]);
    const events = await eventsOf(room.id, from);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload?.changed).toEqual({ participants: { removed: ["hum-hal"] }, closed: true });
    expect(events[0]?.payload?.conversation).toMatchObject({ closed_reason: "no_human", closed_at: closed.closed_at });
    // M-110: hal back in the project reopens nothing and does not see the chat.
    await admin(rest, "POST", "/api/admin/projects/olga/lab/members", { member_id: "hum-hal" });
    expect(await view(T.b as string, room.id)).toEqual(closed);
    expect(await rest("GET", conv(room.id), { token: T.hal })).toEqual(
      await rest("GET", conv("cnv-9999"), { token: T.hal }),
    );
  });

  describe("a closed chat", () => {
    // dan opens a room with two agents of other owners, says something, and leaves: it closes.
    let room: View;
    let secret: { seq: number };
    let closedView: View;
    beforeAll(async () => {
      room = await create(T.dan as string, { title: "Closing", participants: ["agt-a", "agt-e"] });
      await post(T.a as string, room.id, "agent-a here");
      secret = await post(T.dan as string, room.id, "the password is hunter2");
      expect((await rest("DELETE", `${conv(room.id)}/participants/hum-dan`, { token: T.dan })).status).toBe(200);
      closedView = await view(T.a as string, room.id);
      expect(closedView.closed_reason).toBe("no_human");
    });

    it("M-107 refuses new messages with conversation_closed 409 — POST …/messages and POST /events alike — nothing written", async () => {
      const before = await state();
      const viaMessages = await rest("POST", `${conv(room.id)}/messages`, {
        token: T.a,
        body: { body: "still here?" },
      });
      expect(viaMessages.status).toBe(409);
      expect(viaMessages.body.error.code).toBe("conversation_closed");
      const viaEvents = await rest("POST", `${LAB}/events`, {
        token: T.e,
        body: { type: "chat", conversation_id: room.id, body: "hello?" },
      });
      expect(viaEvents.status).toBe(409);
      expect(viaEvents.body.error.code).toBe("conversation_closed");
      expect(await state()).toEqual(before);
    });

    it("M-107 M-110 takes no participant or title change: conversation_closed 409 before who may manage (docs order); removing another still needs a manager; the former human cannot see it; nothing written, title unchanged", async () => {
      const before = await state();
      for (const [method, suffix, body, status, error] of [
        [
          "PATCH",
          "",
          { title: "Reopened?" },
          409,
          { code: "conversation_closed", details: { closed_reason: "no_human" } },
        ],
        ["POST", "/participants", { member_id: "hum-dan" }, 409, { code: "conversation_closed" }],
        ["POST", "/participants", { member_id: "hum-ben" }, 409, { code: "conversation_closed" }],
        ["DELETE", "/participants/agt-e", undefined, 403, { code: "forbidden", details: { reason: "not_a_manager" } }],
      ] as const) {
        const res = await rest(method, `${conv(room.id)}${suffix}`, { token: T.a, body });
        expect(res.status).toBe(status);
        expect(res.body.error).toMatchObject(error);
        const former = await rest(method, `${conv(room.id)}${suffix}`, { token: T.dan, body });
        expect(former).toEqual(await rest(method, `${conv("cnv-9999")}${suffix}`, { token: T.dan, body }));
      }
      expect(await state()).toEqual(before);
      expect((await view(T.a as string, room.id)).title).toBe("Closing");
    });

    it("M-108 its remaining participants keep reading it: the view, …/messages (history included) and the list; its observers too", async () => {
      expect(await view(T.a as string, room.id)).toEqual(closedView);
      expect(await view(T.e as string, room.id)).toEqual(closedView);
      const observer = await view(T.olga as string, room.id);
      expect(observer).toEqual({ ...closedView, access: "observer" });
      expect((await view(T.eve as string, room.id)).access).toBe("observer");
      const messages = await rest("GET", `${conv(room.id)}/messages?after=0`, { token: T.e });
      expect(messages.status).toBe(200);
      expect(messages.body.items.map((m: { body: string }) => m.body)).toEqual([
        "agent-a here",
        "the password is hunter2",
      ]);
      const history = await rest("GET", `${conv(room.id)}/messages?before=${secret.seq + 1}`, { token: T.a });
      expect(history.status).toBe(200);
      expect(history.body.items.map((m: { seq: number }) => m.seq).at(-1)).toBe(secret.seq);
      const list = await rest("GET", `${LAB}/conversations?limit=200`, { token: T.a });
      const item = list.body.items.find((i: { id: string }) => i.id === room.id);
      expect(item).toMatchObject({ kind: "group", closed_at: closedView.closed_at });
    });

    it("M-109 its former human participant still redacts in it: 200, the message keeps its place with body null; agents (humans_only) and observers (observer) do not", async () => {
      const agentTry = await rest("POST", `${conv(room.id)}/messages/${secret.seq}/redact`, { token: T.a, body: {} });
      expect(agentTry.status).toBe(403);
      expect(agentTry.body.error.details.reason).toBe("humans_only");
      const observerTry = await rest("POST", `${conv(room.id)}/messages/${secret.seq}/redact`, {
        token: T.olga,
        body: {},
      });
      expect(observerTry.status).toBe(403);
      expect(observerTry.body.error.details.reason).toBe("observer");
      // A project admin never in the chat: not_found like a missing chat (acting on a report is not built).
      const outsider = await rest("POST", `${conv(room.id)}/messages/${secret.seq}/redact`, {
        token: T.cara,
        body: {},
      });
      expect(outsider).toEqual(
        await rest("POST", `${conv("cnv-9999")}/messages/${secret.seq}/redact`, { token: T.cara, body: {} }),
      );
      expect(await hub.db.redaction.count({ where: { eventSeq: secret.seq } })).toBe(0);

      const res = await rest("POST", `${conv(room.id)}/messages/${secret.seq}/redact`, {
        token: T.dan,
        body: { reason: "a password" },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        seq: secret.seq,
        id: `evt-${secret.seq}`,
        conversation_id: room.id,
        from: "hum-dan",
        body: null,
        mentions: [],
        attachments: [],
        redacted: true,
        redaction: { at: expect.stringMatching(ISO), by: "hum-dan", reason: "a password" },
      });
      const read = await rest("GET", `${conv(room.id)}/messages?after=0`, { token: T.a });
      expect(
        read.body.items.map((m: { seq: number; body: string | null; redacted: boolean }) => [
          m.seq,
          m.body,
          m.redacted,
        ]),
      ).toEqual([
        [secret.seq - 1, "agent-a here", false],
        [secret.seq, null, true],
      ]);
      expect(
        (await hub.db.event.findUniqueOrThrow({ where: { seq: secret.seq }, select: { body: true } })).body,
      ).toBeNull();
      // Still closed.
      expect((await view(T.a as string, room.id)).closed_at).toBe(closedView.closed_at);
    });

    it("M-109 a former human participant who now reads along as its agent's owner still redacts in the closed chat", async () => {
      // cara opens a room with her own agent and another owner's, speaks, and leaves: the chat
      // closes and cara becomes an observer (agt-c is hers). She is still a former participant.
      const own = await create(T.cara as string, { participants: ["agt-c", "agt-a"] });
      const said = await post(T.cara as string, own.id, "oops, a private key");
      expect((await rest("DELETE", `${conv(own.id)}/participants/hum-cara`, { token: T.cara })).status).toBe(200);
      const closed = await view(T.cara as string, own.id);
      expect(closed).toMatchObject({ access: "observer", closed_reason: "no_human" });
      const res = await rest("POST", `${conv(own.id)}/messages/${said.seq}/redact`, { token: T.cara, body: {} });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ seq: said.seq, body: null, redacted: true, redaction: { by: "hum-cara" } });
    });

    it("M-109 in an open chat a former participant does not redact: not_found like a missing chat", async () => {
      const open = await create(T.ben as string, { participants: ["hum-dan", "agt-a"] });
      const said = await post(T.dan as string, open.id, "dan said this");
      expect((await rest("DELETE", `${conv(open.id)}/participants/hum-dan`, { token: T.dan })).status).toBe(200);
      const res = await rest("POST", `${conv(open.id)}/messages/${said.seq}/redact`, { token: T.dan, body: {} });
      expect(res).toEqual(
        await rest("POST", `${conv("cnv-9999")}/messages/${said.seq}/redact`, { token: T.dan, body: {} }),
      );
      expect(res.status).toBe(404);
      expect(await hub.db.redaction.count({ where: { eventSeq: said.seq } })).toBe(0);
    });

    it("M-110 it is never reopened: no closing field can be patched, re-adding the human to the project changes nothing; a human starts a new one", async () => {
      const before = await state();
      const patch = await rest("PATCH", conv(room.id), { token: T.a, body: { closed_at: null, closed_reason: null } });
      expect(patch.status).toBe(400);
      expect(patch.body.error.details.fields).toEqual({ closed_at: "unknown_field", closed_reason: "unknown_field" });
      expect(await state()).toEqual(before);
      // The remaining agents may still leave (allowed in a closed chat); it stays closed.
      const leave = await rest("DELETE", `${conv(room.id)}/participants/agt-e`, { token: T.e });
      expect(leave.status).toBe(200);
      expect(leave.body.reason).toBe("left");
      const still = await view(T.a as string, room.id);
      expect(still).toMatchObject({ closed_at: closedView.closed_at, closed_reason: "no_human" });
      expect(ids(still)).toEqual(["agt-a"]);
      const fresh = await create(T.dan as string, { title: "Closing", participants: ["agt-a", "agt-e"] });
      expect(fresh.id).not.toBe(room.id);
      expect(fresh).toMatchObject({ closed_at: null, closed_reason: null });
      expect((await view(T.a as string, room.id)).closed_at).toBe(closedView.closed_at);
    });
  });
});

describe("§9.2 a closed (archived) project", () => {
  // Before archiving: ben's room with dan and two agents, and dan's room with agt-a.
  let room: View;
  let pair: View;
  let said: { seq: number };
  beforeAll(async () => {
    room = await create(T.ben as string, { title: "Archived room", participants: ["hum-dan", "agt-a", "agt-b"] }, ARCH);
    pair = await create(T.dan as string, { participants: ["agt-a"] }, ARCH);
    said = await post(T.dan as string, room.id, "to be taken out", ARCH);
    await admin(rest, "POST", "/api/admin/projects/olga/arch/archive");
  });

  it("M-112 M-246 creating a group chat answers project_closed 409, nothing written", async () => {
    const before = await state();
    const res = await rest("POST", `${ARCH}/conversations`, { token: T.ben, body: { participants: ["hum-dan"] } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("project_closed");
    expect(await state()).toEqual(before);
  });

  it("M-112 adding a participant answers project_closed 409, nothing written", async () => {
    const before = await state();
    const res = await rest("POST", `${conv(room.id, ARCH)}/participants`, {
      token: T.ben,
      body: { member_id: "hum-cara" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("project_closed");
    expect(await state()).toEqual(before);
    expect(ids(await view(T.ben as string, room.id, ARCH))).toEqual(["hum-ben", "hum-dan", "agt-a", "agt-b"]);
  });

  it("M-115 archiving does not close the chats", async () => {
    expect(await view(T.ben as string, room.id, ARCH)).toMatchObject({ closed_at: null, closed_reason: null });
    expect(await view(T.dan as string, pair.id, ARCH)).toMatchObject({ closed_at: null, closed_reason: null });
  });

  it("M-114 M-246 posting (…/messages and POST /events, human and agent) and renaming stay allowed", async () => {
    const human = await rest("POST", `${conv(room.id, ARCH)}/messages`, {
      token: T.ben,
      body: { body: "still talking" },
    });
    expect(human.status).toBe(201);
    expect(human.body).toMatchObject({ conversation_id: room.id, from: "hum-ben", to: room.id, body: "still talking" });
    const agentMsg = await rest("POST", `${ARCH}/events`, {
      token: T.a,
      body: { type: "chat", conversation_id: room.id, body: "agent too" },
    });
    expect(agentMsg.status).toBe(201);
    expect(agentMsg.body).toMatchObject({ conversation_id: room.id, from: "agt-a", body: "agent too" });
    const from = await lastSeq();
    const renamed = await rest("PATCH", conv(room.id, ARCH), { token: T.ben, body: { title: "Archived, renamed" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe("Archived, renamed");
    expect((await eventsOf(room.id, from)).map((e) => e.payload?.changed)).toEqual([{ title: "Archived, renamed" }]);
  });

  it("M-113 removing a participant, leaving and redacting stay allowed", async () => {
    const removed = await rest("DELETE", `${conv(room.id, ARCH)}/participants/agt-b`, { token: T.ben });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ member_id: "agt-b", reason: "removed", left_at: expect.stringMatching(ISO) });
    const redacted = await rest("POST", `${conv(room.id, ARCH)}/messages/${said.seq}/redact`, {
      token: T.ben,
      body: { reason: "cleanup" },
    });
    expect(redacted.status).toBe(200);
    expect(redacted.body).toMatchObject({
      seq: said.seq,
      body: null,
      redacted: true,
      redaction: { by: "hum-ben", reason: "cleanup" },
    });
    const left = await rest("DELETE", `${conv(room.id, ARCH)}/participants/hum-dan`, { token: T.dan });
    expect(left.status).toBe(200);
    expect(left.body.reason).toBe("left");
    expect(ids(await view(T.ben as string, room.id, ARCH))).toEqual(["hum-ben", "agt-a"]);
  });

  it("M-115 M-105 a chat of an archived project closes by the no-human rule when its last human leaves", async () => {
    const from = await lastSeq();
    const left = await rest("DELETE", `${conv(pair.id, ARCH)}/participants/hum-dan`, { token: T.dan });
    expect(left.status).toBe(200);
    expect(await view(T.a as string, pair.id, ARCH)).toMatchObject({
      closed_at: expect.stringMatching(ISO),
      closed_reason: "no_human",
    });
    expect((await eventsOf(pair.id, from)).map((e) => e.payload?.changed)).toEqual([
      { participants: { removed: ["hum-dan"] }, closed: true },
    ]);
  });
});

describe("§9.2 the no-human invariant", () => {
  it("M-111 after everything above, no open group chat lacks a current human participant, and every closed one has none", async () => {
    const chats = await hub.db.conversation.findMany({
      where: { kind: "group" },
      select: {
        publicId: true,
        closedAt: true,
        closedReason: true,
        participations: { where: { leftAt: null }, select: { memberKind: true } },
      },
    });
    expect(chats.length).toBeGreaterThan(40);
    const broken = chats.filter(
      (c) => (c.closedAt === null) !== c.participations.some((p) => p.memberKind === "human"),
    );
    expect(broken).toEqual([]);
    for (const c of chats.filter((x) => x.closedAt !== null)) expect(c.closedReason).toBe("no_human");
  });

  it("M-111 M-085 agents cannot open a room among themselves: an agent's create of an agents-only chat is refused humans_only, nothing written", async () => {
    const before = await state();
    const res = await rest("POST", `${LAB}/conversations`, { token: T.b, body: { participants: ["agt-a", "agt-e"] } });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("humans_only");
    expect(await state()).toEqual(before);
  });
});
