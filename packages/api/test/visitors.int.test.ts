import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploaded } from "./attachments.ts";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// Visiting agents (issue 29, DESIGN §4c; 004 v1.14, B-297…B-301): an agent of another Bay is placed
// into a room only by its sponsor (the person of its Bay who brings it, in that room), the first
// placement making it a member; the visit shows on every entry, set by the server; its reads stop
// at its placement unless the sponsor shared the earlier history.

const hub = await testHub({ limits: { agent: 100_000, updates: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const A = "/api/agent-api";
const T: Record<string, string> = {};
const as = (who: string) => ({ token: T[who] ?? null });
let scout = "";
let bystander = "";
const say = async (room: string, body: string) =>
  (await rest("POST", `${P}/conversations/${room}/messages`, { ...as("hum-maintainer"), body: { body } })).body as {
    id: string;
  };
const keyOf = async (publicId: string) =>
  (await hub.db.conversation.findFirstOrThrow({ where: { publicId }, select: { id: true } })).id;
const place = (who: string, room: string, body: Record<string, unknown> = {}) =>
  rest("POST", `${P}/conversations/${room}/participants`, { ...as(who), body: { member_id: scout, ...body } });

beforeAll(async () => {
  await seedDemo(hub);
  await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle: "alice", name: "Alice", password: "alice-pass-1" },
  });
  for (const id of ["hum-maintainer", "hum-guest", "hum-alice", "agt-a"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  // Alice of another Bay is a member of maintainer/maity; her agent is not (yet).
  await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { handle: "alice" } });
  scout = (await rest("POST", "/api/agents", { ...as("hum-alice"), body: { handle: "scout", description: "Scouts." } }))
    .body.id;
  T.scout = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: scout } })).body.token;
  // alice's second agent, never placed in maintainer/maity.
  bystander = (await rest("POST", "/api/agents", { ...as("hum-alice"), body: { handle: "bystander" } })).body.id;
});

const room = async (title: string, participants: string[]) => {
  const made = await rest("POST", `${P}/conversations`, { ...as("hum-maintainer"), body: { title, participants } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id as string;
};

describe("placing a visitor (B-300, DESIGN §4c)", () => {
  it("B-300 another Bay's agent not yet placed is unknown to anyone but its sponsor: not_a_member, like no agent", async () => {
    const r = await room("Unknown visitor", ["hum-alice", "hum-guest"]);
    const unknown = await rest("POST", `${P}/conversations/${r}/participants`, {
      ...as("hum-maintainer"),
      body: { member_id: "agt-nobody-at-all" },
    });
    expect(unknown.status).toBe(400);
    const foreign = await rest("POST", `${P}/conversations/${r}/participants`, {
      ...as("hum-maintainer"),
      body: { member_id: bystander },
    });
    expect(foreign).toEqual(unknown);
  });

  it("B-300 only its sponsor places it — an admin of the project, another member: 403 not_sponsor", async () => {
    // Placed once (a member of the project now, listed with its sponsor), then asked for elsewhere.
    const first = await room("First visit", ["hum-alice"]);
    expect((await place("hum-alice", first)).status).toBe(200);
    const r = await room("Visit refused", ["hum-alice", "hum-guest"]);
    for (const who of ["hum-maintainer", "hum-guest"]) {
      const refused = await place(who, r);
      expect(refused.status, who).toBe(403);
      expect(refused.body.error.details.reason).toBe("not_sponsor");
    }
    // A room the sponsor is not in answers as a room that does not exist.
    const other = await room("Not hers", ["hum-guest"]);
    expect((await place("hum-alice", other)).status).toBe(404);
    // §9.2's own wake values stay not built (M-076); a visitor's are "anyone" and "sponsor".
    const allWake = await place("hum-alice", r, { wake: "all" });
    expect(allWake.body.error.details.fields).toEqual({ wake: "not_supported" });
    // A placement's settings are a visitor's only.
    const member = await rest("POST", `${P}/conversations/${r}/participants`, {
      ...as("hum-maintainer"),
      body: { member_id: "agt-a", share_history: true },
    });
    expect(member.body.error.details.fields).toEqual({ share_history: "visitors_only" });
  });

  it("B-297 B-298 B-299 its sponsor places it: a member now, marked on every entry from the Bays and the placement", async () => {
    const r = await room("Visit room", ["hum-alice", "hum-guest"]);
    await say(r, "before the visitor came");
    const placed = await place("hum-alice", r);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const entry = placed.body.participants.find((p: { member_id: string }) => p.member_id === scout);
    expect(entry.visiting).toEqual({
      home_bay: "alice",
      sponsor: { id: "hum-alice", name: "Alice" },
      history: "from_placement",
      wake: "anyone",
    });
    expect(placed.body.participants.find((p: { member_id: string }) => p.member_id === "agt-a")?.visiting ?? null).toBe(
      null,
    );
    const members = await rest("GET", `${P}/members`, as("hum-guest"));
    expect(members.body.items.find((m: { member_id: string }) => m.member_id === scout).visiting).toEqual({
      home_bay: "alice",
      sponsor: { id: "hum-alice", name: "Alice" },
    });
    // The agent API's roster (B-297): {homeBay, sponsor}, whatever the agent says of itself.
    const envelope = await rest("GET", `${A}/conversations/${await keyOf(r)}/context`, as("scout"));
    expect(envelope.status).toBe(200);
    expect(envelope.body.participants.find((p: { id: string }) => p.id === scout).visiting).toEqual({
      homeBay: "alice",
      sponsor: { id: "hum-alice", name: "Alice" },
    });
  });
});

describe("a visitor's history floor (B-301)", () => {
  it("B-301 from its placement: history, ?since=, the summary stop there", async () => {
    const r = await room("Floor room", ["hum-alice", "hum-guest"]);
    for (let i = 0; i < 3; i++) await say(r, `before ${i}`);
    expect((await place("hum-alice", r)).status).toBe(200);
    const after = await say(r, "after the placement");
    const key = await keyOf(r);
    const history = await rest("GET", `${A}/conversations/${key}/messages?limit=50`, as("scout"));
    expect(history.body.messages.map((m: { content: string }) => m.content)).toEqual(["after the placement"]);
    const forward = await rest("GET", `${A}/conversations/${key}/messages?since=2000-01-01T00:00:00Z`, as("scout"));
    expect(forward.body.messages.map((m: { content: string }) => m.content)).toEqual(["after the placement"]);
    const summary = await rest("GET", `${A}/conversations/${key}/summary`, as("scout"));
    expect(summary.body.messages.map((m: { id: string }) => m.id)).toEqual([after.id]);
  });

  it("B-301 B-210 the file listing: a file sent before the placement is not its to list or fetch", async () => {
    const r = await room("Files floor", ["hum-alice", "hum-guest"]);
    const sendFile = async (name: string) => {
      const id = await uploaded(hub, "hum-maintainer", { name });
      const sent = await rest("POST", `${P}/conversations/${r}/messages`, {
        ...as("hum-maintainer"),
        body: { body: name, attachments: [id] },
      });
      expect(sent.status).toBe(201);
      return id;
    };
    const before = await sendFile("before.pdf");
    expect((await place("hum-alice", r)).status).toBe(200);
    const after = await sendFile("after.pdf");
    const key = await keyOf(r);
    const listed = await rest("GET", `${A}/conversations/${key}/attachments`, as("scout"));
    expect(listed.status).toBe(200);
    expect(listed.body.files.map((f: { attachmentId: string }) => f.attachmentId)).toEqual([after]);
    // Hidden is missing: the earlier file answers like one that never was.
    const early = await rest("GET", `${A}/conversations/${key}/attachments/${before}/link`, as("scout"));
    const never = await rest("GET", `${A}/conversations/${key}/attachments/att-nope/link`, as("scout"));
    expect(early.status).toBe(404);
    expect(early.body.code).toBe(never.body.code);
  });

  it("B-301 B-274 the people's routes of the visited project answer the visitor as a non-member: no way around its floor", async () => {
    const r = await room("Around the floor", ["hum-alice", "hum-guest"]);
    await say(r, "before it came");
    expect((await place("hum-alice", r)).status).toBe(200);
    const history = await rest("GET", `${P}/conversations/${r}/messages?before=999999`, as("scout"));
    expect(history).toEqual(await rest("GET", `${P}/conversations/cnv-9999/messages?before=999999`, as("scout")));
    expect(history.status).toBe(404);
    const library = await rest("GET", `${P}/library`, as("scout"));
    expect(library).toEqual(await rest("GET", "/api/projects/maintainer/nothing/library", as("scout")));
    expect(library.status).toBe(404);
    // Its own reads, the agent API's, stand.
    expect((await rest("GET", `${A}/conversations/${await keyOf(r)}/messages?limit=5`, as("scout"))).status).toBe(200);
  });

  it("B-301 shared by its sponsor: the room's earlier history too, and the entry says so", async () => {
    const r = await room("Shared room", ["hum-alice", "hum-guest"]);
    for (let i = 0; i < 2; i++) await say(r, `earlier ${i}`);
    const placed = await place("hum-alice", r, { share_history: true });
    expect(placed.body.participants.find((p: { member_id: string }) => p.member_id === scout).visiting.history).toBe(
      "shared",
    );
    await say(r, "later");
    const history = await rest("GET", `${A}/conversations/${await keyOf(r)}/messages?limit=50`, as("scout"));
    const contents = history.body.messages.map((m: { content: string }) => m.content);
    expect(contents).toEqual(expect.arrayContaining(["earlier 0", "earlier 1", "later"]));
  });
});

describe("placing by creating a chat (B-300)", () => {
  it("a new chat takes a visitor from its sponsor only; the creator of another Bay gets 403 not_sponsor and nothing is made", async () => {
    const before = await hub.db.conversation.count();
    const refused = await rest("POST", `${P}/conversations`, {
      ...as("hum-maintainer"),
      body: { title: "Not yours", participants: [scout, "hum-alice"] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.reason).toBe("not_sponsor");
    expect(await hub.db.conversation.count()).toBe(before);
    const made = await rest("POST", `${P}/conversations`, {
      ...as("hum-alice"),
      body: { title: "Hers", participants: [scout, "hum-maintainer"] },
    });
    expect(made.status).toBe(201);
    expect(made.body.participants.find((p: { member_id: string }) => p.member_id === scout).visiting).toMatchObject({
      history: "from_placement",
      wake: "anyone",
    });
  });
});

describe('wake "sponsor" (B-302, B-303)', () => {
  it("B-302 B-303 B-309 only its sponsor's messages wake it (another's mention does not); ?since= returns only those; an explicit read shows the room from the floor", async () => {
    const r = await room("Sponsor wake", ["hum-alice", "hum-guest"]);
    const placed = await place("hum-alice", r, { wake: "sponsor" });
    expect(placed.body.participants.find((p: { member_id: string }) => p.member_id === scout).visiting.wake).toBe(
      "sponsor",
    );
    const key = await keyOf(r);
    const fromMaintainer = await say(r, "@alice/scout are you there?");
    const fromAlice = (
      await rest("POST", `${P}/conversations/${r}/messages`, {
        ...as("hum-alice"),
        body: { body: "@scout look at this" },
      })
    ).body as { id: string };
    const fromGuest = (
      await rest("POST", `${P}/conversations/${r}/messages`, { ...as("hum-guest"), body: { body: "scout, hello" } })
    ).body as { id: string };
    const verdicts = await hub.db.routingVerdict.findMany({
      where: { agentId: scout, event: { conversationId: key } },
      select: { eventSeq: true, shouldRespond: true, reason: true },
      orderBy: { eventSeq: "asc" },
    });
    expect(verdicts.map((v) => [v.shouldRespond, v.reason])).toEqual([
      [false, "not_sponsor"],
      [true, "mentioned"],
      [false, "not_sponsor"],
    ]);
    const forward = await rest("GET", `${A}/conversations/${key}/messages?since=2000-01-01T00:00:00Z`, as("scout"));
    expect(forward.body.messages.map((m: { id: string }) => m.id)).toEqual([fromAlice.id]);
    const explicit = await rest("GET", `${A}/conversations/${key}/messages?limit=50`, as("scout"));
    expect(explicit.body.messages.map((m: { id: string }) => m.id).sort()).toEqual(
      [fromMaintainer.id, fromAlice.id, fromGuest.id].sort(),
    );
  });
});

describe("contact_agent and a sponsor-only visitor (B-302)", () => {
  it("another agent's contact_agent is refused by name and writes nothing; the room's messages stay readable", async () => {
    const r = await room("Contact refused", ["hum-alice", "agt-a"]);
    expect((await place("hum-alice", r, { wake: "sponsor" })).status).toBe(200);
    const key = await keyOf(r);
    T["agt-a"] ??= (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "agt-a" } })).body.token;
    const before = await hub.db.event.count({ where: { conversationId: key } });
    const contact = await rest("POST", `${A}/agents/${scout}/contact`, {
      ...as("agt-a"),
      body: { conversationId: key, content: "please look at this" },
    });
    expect(contact.status).toBe(403);
    expect(contact.body.code).toBe("FORBIDDEN");
    expect(contact.body.error).toContain("woken only by the person who brought it");
    expect(await hub.db.event.count({ where: { conversationId: key } })).toBe(before);
  });
});

describe("the restricted profile (B-304, B-305, B-308)", () => {
  it("B-306 a visitor's own Bay's rooms stay readable to it while it visits", async () => {
    const home = await rest("POST", "/api/projects", { ...as("hum-alice"), body: { slug: "home", name: "Home" } });
    expect(home.status).toBe(201);
    expect(
      (await rest("POST", "/api/projects/alice/home/members", { ...as("hum-alice"), body: { member_id: scout } }))
        .status,
    ).toBe(201);
    const said = await rest("POST", `/api/projects/alice/home/conversations/${scout}/messages`, {
      ...as("hum-alice"),
      body: { body: "at home" },
    });
    expect(said.status).toBe(201);
    const rooms = await rest("GET", `${A}/conversations`, as("scout"));
    const homeRoom = rooms.body.conversations.find(
      (c: { maity: { project: string } }) => c.maity.project === "alice/home",
    );
    const read = await rest("GET", `${A}/conversations/${homeRoom.id}/messages?limit=5`, as("scout"));
    expect(read.status).toBe(200);
    expect(read.body.messages.map((m: { content: string }) => m.content)).toContain("at home");
  });

  it("B-304 B-305 B-308 a visitor, and an agent beside one, list only the agents of those rooms, marked fromAnotherBay", async () => {
    const listed = await rest("GET", `${A}/agents`, as("scout"));
    expect(listed.status).toBe(200);
    const names = listed.body.agents.map((a: { name: string; fromAnotherBay: boolean }) => [a.name, a.fromAnotherBay]);
    // scout shares its rooms with no other agent but agent-a of the Bay it visits (from another Bay to it).
    for (const [, from] of names) expect(from).toBe(true);
    const quiet = (await rest("POST", "/api/agents", { ...as("hum-maintainer"), body: { handle: "agent-q" } })).body;
    expect(
      (await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { member_id: quiet.id } })).status,
    ).toBe(201);
    const beside = await room("Beside a visitor", ["agt-a", "hum-alice"]);
    expect((await place("hum-alice", beside)).status).toBe(200);
    const forA = await rest("GET", `${A}/agents`, as("agt-a"));
    const ids = forA.body.agents.map((a: { id: string }) => a.id);
    // agent-q, of agent-a's own Bay, shares no room with it: not listed while agent-a is beside a visitor.
    expect(ids).toContain(scout);
    expect(ids).not.toContain(quiet.id);
    expect(forA.body.agents.find((a: { id: string }) => a.id === scout).fromAnotherBay).toBe(true);
  });
});

describe("taking a visitor out (B-307)", () => {
  it("its sponsor takes it out of one room even while reading along; a room admin too; the usual removal", async () => {
    const r = await room("One room", ["hum-alice", "hum-guest"]);
    expect((await place("hum-alice", r)).status).toBe(200);
    expect((await rest("DELETE", `${P}/conversations/${r}/participants/hum-alice`, as("hum-alice"))).status).toBe(200);
    const out = await rest("DELETE", `${P}/conversations/${r}/participants/${scout}`, as("hum-alice"));
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(out.body.reason).toBe("removed");
    // Another member who is no manager may not.
    const r2 = await room("Second room", ["hum-alice", "hum-guest"]);
    expect((await place("hum-alice", r2)).status).toBe(200);
    const guest = await rest("DELETE", `${P}/conversations/${r2}/participants/${scout}`, as("hum-guest"));
    expect(guest.status).toBe(403);
  });

  it('recall: out of every room with "… was sent home", its membership ended; anyone else meets a missing visitor', async () => {
    const rooms = [await room("Recall one", ["hum-alice"]), await room("Recall two", ["hum-alice", "hum-guest"])];
    for (const r of rooms) expect((await place("hum-alice", r)).status).toBe(200);
    const before = await rest("GET", `${P}/members`, as("hum-guest"));
    expect(before.body.items.map((m: { member_id: string }) => m.member_id)).toContain(scout);
    const missing = await rest("POST", `${P}/visitors/agt-nobody/recall`, as("hum-alice"));
    for (const who of ["hum-maintainer", "hum-guest"]) {
      const refused = await rest("POST", `${P}/visitors/${scout}/recall`, as(who));
      expect(refused, who).toEqual(missing);
    }
    expect(missing.status).toBe(404);
    expect((await rest("POST", `${P}/visitors/agt-a/recall`, as("hum-maintainer"))).status).toBe(404);
    const agentToken = await rest("POST", `${P}/visitors/${scout}/recall`, as("agt-a"));
    expect(agentToken.status).toBe(403);
    expect(agentToken.body.error.details.reason).toBe("humans_only");

    const recalled = await rest("POST", `${P}/visitors/${scout}/recall`, as("hum-alice"));
    expect(recalled.status, JSON.stringify(recalled.body)).toBe(200);
    expect(recalled.body.rooms_left).toEqual(expect.arrayContaining(rooms));
    for (const r of rooms) {
      const view = await rest("GET", `${P}/conversations/${r}`, as("hum-alice"));
      expect(view.body.participants.map((p: { member_id: string }) => p.member_id)).not.toContain(scout);
      const lines = await rest("GET", `${P}/conversations/${r}/messages?after=0`, as("hum-alice"));
      expect(lines.body.items.at(-1)).toMatchObject({ from: "system", body: "alice/scout was sent home" });
    }
    const after = await rest("GET", `${P}/members`, as("hum-guest"));
    expect(after.body.items.map((m: { member_id: string }) => m.member_id)).not.toContain(scout);
    // Its reads of the project's rooms end with the visit.
    expect(
      (await rest("GET", `${A}/conversations/${await keyOf(rooms[0] as string)}/messages`, as("scout"))).status,
    ).toBe(403);
    // Sent home twice: there is no visitor any more.
    expect(await rest("POST", `${P}/visitors/${scout}/recall`, as("hum-alice"))).toEqual(missing);
  });
});

describe("the project's admins over a visitor (B-300, B-307)", () => {
  it("removed by an admin, its sponsor may not bring it back; an admin lets it in again; sent home, its sponsor may", async () => {
    const r = await room("Admins decide", ["hum-alice", "hum-guest"]);
    expect((await place("hum-alice", r)).status).toBe(200);
    expect((await rest("DELETE", `${P}/members/${scout}`, as("hum-maintainer"))).status).toBe(200);
    const back = await place("hum-alice", r);
    expect(back.status).toBe(403);
    expect(back.body.error.details.reason).toBe("removed_by_admin");
    expect((await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { member_id: scout } })).status).toBe(
      201,
    );
    expect((await place("hum-alice", r)).status).toBe(200);
    expect((await rest("POST", `${P}/visitors/${scout}/recall`, as("hum-alice"))).status).toBe(200);
    expect((await place("hum-alice", r)).status).toBe(200);
  });
});

describe("the authorization matrix of the visitor routes (issue 29)", () => {
  // Each caller meets a chat of its own making-ready: maintainer (the project's owner, members:admin),
  // guest (a member in the chat), olive (of the maintainer's Bay, reading along through her agent),
  // the visitor itself, alice (its sponsor), bob (a person of another Bay in no project), agent-a (an
  // agent token), a revoked token, none.
  const callers = [
    "hum-maintainer",
    "hum-guest",
    "hum-olive",
    "visitor",
    "hum-alice",
    "hum-bob",
    "agt-a",
    "revoked",
    "none",
  ];
  let olive = "";
  beforeAll(async () => {
    for (const [handle, bay] of [
      ["olive", "maintainer"],
      ["bob", undefined],
    ] as const)
      await rest("POST", "/api/admin/humans", {
        token: ADMIN,
        body: { handle, name: handle, password: `${handle}-password-1`, ...(bay ? { bay } : {}) },
      });
    await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { handle: "olive" } });
    olive = (await rest("POST", "/api/admin/agents", { token: ADMIN, body: { owner: "olive", handle: "olive-bot" } }))
      .body.id;
    await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { member_id: olive } });
    for (const id of ["hum-olive", "hum-bob", "agt-a"])
      T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
    const revoked = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-alice" } })).body
      .token;
    await rest("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token: revoked } });
    T.revoked = revoked;
    T.visitor = T.scout as string;
  });
  /** A chat with alice, guest, agent-a and olive's agent (olive reads along); the visitor placed when asked. */
  async function stage(withVisitor: boolean) {
    const r = await room(`Matrix ${Math.random()}`, ["hum-alice", "hum-guest", "agt-a", olive]);
    if (withVisitor) expect((await place("hum-alice", r)).status).toBe(200);
    return r;
  }
  const call = (who: string, method: string, path: string, body?: unknown) =>
    rest(method, path, { ...(who === "none" ? {} : as(who)), body });

  it("placing, taking out and sending home: each caller gets its place's answer, the outsider a missing chat's", async () => {
    const got: Record<string, number[]> = { place: [], takeOut: [], recall: [] };
    for (const who of callers) {
      await stage(true); // a member of the project with its sponsor, whatever the last caller did
      const r = await stage(false);
      const placed = await call(who, "POST", `${P}/conversations/${r}/participants`, { member_id: scout });
      got.place?.push(placed.status);
      if (who === "hum-bob")
        expect(placed).toEqual(
          await call(who, "POST", `${P}/conversations/cnv-9999/participants`, { member_id: scout }),
        );
      const r2 = await stage(true);
      const out = await call(who, "DELETE", `${P}/conversations/${r2}/participants/${scout}`);
      got.takeOut?.push(out.status);
      const recalled = await call(who, "POST", `${P}/visitors/${scout}/recall`);
      got.recall?.push(recalled.status);
      if (["hum-maintainer", "hum-guest", "hum-olive", "hum-bob"].includes(who))
        expect(recalled, who).toEqual(await call(who, "POST", `${P}/visitors/agt-nobody/recall`));
      // Whoever sent it home, it comes back for the next caller (its sponsor places it again).
    }
    // maintainer, guest, olive, visitor, alice, bob, agent-a, revoked, none. The visitor meets the
    // visited project's people's routes as a non-member (404, hidden = missing): its reads are the agent API's.
    expect(got).toEqual({
      place: [403, 403, 403, 404, 200, 404, 403, 401, 401],
      takeOut: [200, 403, 403, 404, 200, 404, 403, 401, 401],
      recall: [404, 404, 404, 403, 200, 404, 403, 401, 401],
    });
  });
});
