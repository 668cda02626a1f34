import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  await rest("POST", "/api/admin/humans", { token: ADMIN, body: { handle: "alice", name: "Alice", password: "alice-pass-1" } });
  for (const id of ["hum-maintainer", "hum-guest", "hum-alice", "agt-a"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  // Alice of another Bay is a member of maintainer/maity; her agent is not (yet).
  await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { handle: "alice" } });
  scout = (await rest("POST", "/api/agents", { ...as("hum-alice"), body: { handle: "scout", description: "Scouts." } }))
    .body.id;
  T.scout = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: scout } })).body.token;
});

const room = async (title: string, participants: string[]) => {
  const made = await rest("POST", `${P}/conversations`, { ...as("hum-maintainer"), body: { title, participants } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.id as string;
};

describe("placing a visitor (B-300, DESIGN §4c)", () => {
  it("only its sponsor places it — an admin of the project, another member: 403 not_sponsor", async () => {
    const r = await room("Visit refused", ["hum-alice", "hum-guest"]);
    for (const who of ["hum-maintainer", "hum-guest"]) {
      const refused = await place(who, r);
      expect(refused.status, who).toBe(403);
      expect(refused.body.error.details.reason).toBe("not_sponsor");
    }
    // A room the sponsor is not in answers as a room that does not exist.
    const other = await room("Not hers", ["hum-guest"]);
    expect((await place("hum-alice", other)).status).toBe(404);
    // wake: "sponsor" is not built: refused by name, never silently taken as "anyone".
    const sponsorWake = await place("hum-alice", r, { wake: "sponsor" });
    expect(sponsorWake.body.error.details.fields).toEqual({ wake: "not_supported" });
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
  it("from its placement: history, the summary and the file listing stop there", async () => {
    const r = await room("Floor room", ["hum-alice", "hum-guest"]);
    for (let i = 0; i < 3; i++) await say(r, `before ${i}`);
    expect((await place("hum-alice", r)).status).toBe(200);
    const after = await say(r, "after the placement");
    const key = await keyOf(r);
    const history = await rest("GET", `${A}/conversations/${key}/messages?limit=50`, as("scout"));
    expect(history.body.messages.map((m: { content: string }) => m.content)).toEqual(["after the placement"]);
    const summary = await rest("GET", `${A}/conversations/${key}/summary`, as("scout"));
    expect(summary.body.messages.map((m: { id: string }) => m.id)).toEqual([after.id]);
  });

  it("shared by its sponsor: the room's earlier history too, and the entry says so", async () => {
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
