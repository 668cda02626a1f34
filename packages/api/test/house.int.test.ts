import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// People run their own house (issue 29, DESIGN §4c): a project in one's Bay, its members, one's own
// agents — on the operator's services. Every route × every kind of caller: who may, who is told
// 403, and who meets the project as missing (hidden = missing, §9.2 M-146).

const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const T: Record<string, string> = {};
const as = (who: string) => ({ token: T[who] ?? null });

beforeAll(async () => {
  await seedDemo(hub);
  for (const [handle, name] of [
    ["alice", "Alice"],
    ["bob", "Bob"],
    ["carol", "Carol"],
  ])
    await rest("POST", "/api/admin/humans", { token: ADMIN, body: { handle, name, password: `${handle}-password-1` } });
  for (const id of ["hum-maintainer", "hum-guest", "hum-alice", "hum-bob", "agt-a"]) {
    const minted = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } });
    T[id] = minted.body.token;
  }
  const revoked = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-guest" } })).body
    .token;
  await rest("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token: revoked } });
  T.revoked = revoked;
});

describe("projects of one's own Bay (DESIGN §4c)", () => {
  it("POST /api/projects: 201 in the caller's Bay, the caller its members:admin; a taken or bad slug named", async () => {
    const made = await rest("POST", "/api/projects", { ...as("hum-alice"), body: { slug: "garden", name: "Garden" } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ owner: "alice", slug: "garden", full_name: "alice/garden", name: "Garden" });
    const members = await rest("GET", "/api/projects/alice/garden/members", as("hum-alice"));
    expect(members.body.items).toEqual([
      {
        member_id: "hum-alice",
        kind: "human",
        name: "Alice",
        handle: "alice",
        owner_id: null,
        permissions: ["members:admin"],
        status: "active",
        visiting: null,
      },
    ]);
    const again = await rest("POST", "/api/projects", { ...as("hum-alice"), body: { slug: "garden", name: "Two" } });
    expect(again.status).toBe(400);
    expect(again.body.error.details.fields).toEqual({ slug: "taken" });
    const bad = await rest("POST", "/api/projects", { ...as("hum-alice"), body: { slug: "Not A Slug", name: "x" } });
    expect(Object.keys(bad.body.error.details.fields)).toEqual(["slug"]);
    // Another person's Bay may have the same slug.
    expect(
      (await rest("POST", "/api/projects", { ...as("hum-bob"), body: { slug: "garden", name: "G" } })).status,
    ).toBe(201);
    expect((await rest("POST", "/api/projects", { ...as("agt-a"), body: { slug: "x", name: "x" } })).status).toBe(403);
    expect((await rest("POST", "/api/projects", { body: { slug: "x", name: "x" } })).status).toBe(401);
  });

  it("PATCH: an admin renames (the brief's version stays) and shares; a member 403, an outsider 404", async () => {
    const before = (await rest("GET", `${P}/brief`, as("hum-maintainer"))).body.version;
    const renamed = await rest("PATCH", P, { ...as("hum-maintainer"), body: { name: "Maity Hub" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      full_name: "maintainer/maity",
      name: "Maity Hub",
      share_with_visitors: false,
    });
    expect((await rest("GET", `${P}/brief`, as("hum-maintainer"))).body.version).toBe(before);
    // Any member reads it, its sharing with visitors too (the People page's switch).
    expect((await rest("GET", P, as("hum-guest"))).body).toMatchObject({
      name: "Maity Hub",
      share_with_visitors: false,
    });
    expect((await rest("GET", P, as("hum-alice"))).status).toBe(404);
    const member = await rest("PATCH", P, { ...as("hum-guest"), body: { name: "Mine" } });
    expect(member.status).toBe(403);
    expect(member.body.error.details.reason).toBe("not_an_admin");
    const outsider = await rest("PATCH", P, { ...as("hum-alice"), body: { name: "Mine" } });
    const missing = await rest("PATCH", "/api/projects/maintainer/nothing-here", {
      ...as("hum-alice"),
      body: { name: "Mine" },
    });
    expect(outsider).toEqual(missing);
    expect(outsider.status).toBe(404);
    expect(
      (await rest("PATCH", P, { ...as("hum-maintainer"), body: { name: " " } })).body.error.details.fields,
    ).toEqual({ name: "required" });
  });
});

describe("members (DESIGN §4c)", () => {
  it("GET for any member, visitors marked from their Bay; an outsider meets a missing project", async () => {
    const list = await rest("GET", `${P}/members`, as("hum-guest"));
    expect(list.status).toBe(200);
    const byId = new Map(list.body.items.map((m: { member_id: string }) => [m.member_id, m]));
    expect(byId.get("agt-a")).toMatchObject({ kind: "agent", name: "maintainer/agent-a", visiting: null });
    const visitor = [...byId.values()].find((m) => (m as { handle: string }).handle === "agent-x");
    expect(visitor).toMatchObject({ visiting: { home_bay: "guest", sponsor: { id: "hum-guest", name: "Guest" } } });
    expect((await rest("GET", `${P}/members`, as("agt-a"))).status).toBe(200);
    const outsider = await rest("GET", `${P}/members`, as("hum-alice"));
    expect(outsider).toEqual(await rest("GET", "/api/projects/maintainer/none/members", as("hum-alice")));
  });

  it("POST: an admin adds a person by handle; both or neither named, an unknown handle, another Bay's agent: 400", async () => {
    const added = await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { handle: "alice" } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ member_id: "hum-alice", permissions: [], status: "active" });
    const mine = await rest("GET", "/api/me/conversations?limit=5", as("hum-alice"));
    expect(mine.status).toBe(200);
    for (const [body, field, reason] of [
      [{}, "handle", "required"],
      [{ handle: "bob", member_id: "hum-bob" }, "handle", "not_with_member_id"],
      [{ handle: "nobody-here" }, "handle", "not_found"],
      [{ member_id: "agt-nope" }, "member_id", "not_found"],
    ] as const) {
      const refused = await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.details.fields[field]).toBe(reason);
    }
    // An agent of another Bay comes in as a visitor, placed by the person who brings it: never here,
    // it is answered exactly like no agent (no agent id of another Bay is confirmed).
    const made = await rest("POST", "/api/agents", { ...as("hum-bob"), body: { handle: "scout" } });
    const foreign = await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { member_id: made.body.id } });
    expect(foreign.status).toBe(400);
    expect(foreign).toEqual(
      await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { member_id: "agt-nobody-here" } }),
    );
    // A member who is no admin is told so; an outsider meets a missing project.
    const member = await rest("POST", `${P}/members`, { ...as("hum-guest"), body: { handle: "bob" } });
    expect(member.status).toBe(403);
    const outsider = await rest("POST", `${P}/members`, { ...as("hum-bob"), body: { handle: "bob" } });
    expect(outsider.status).toBe(404);
  });

  it("DELETE: an admin removes a member from every chat (§9.2 removal); the last admin stays; others refused", async () => {
    const chat = await rest("POST", `${P}/conversations`, {
      ...as("hum-maintainer"),
      body: { title: "Garden party", participants: ["hum-alice", "hum-guest"] },
    });
    expect(chat.status).toBe(201);
    expect((await rest("DELETE", `${P}/members/hum-alice`, as("hum-guest"))).status).toBe(403);
    expect((await rest("DELETE", `${P}/members/hum-alice`, as("hum-bob"))).status).toBe(404);
    const removed = await rest("DELETE", `${P}/members/hum-alice`, as("hum-maintainer"));
    expect(removed).toEqual({ status: 200, body: { member_id: "hum-alice", status: "removed" } });
    const view = await rest("GET", `${P}/conversations/${chat.body.id}`, as("hum-maintainer"));
    expect(view.body.participants.map((p: { member_id: string }) => p.member_id)).not.toContain("hum-alice");
    expect((await rest("GET", `${P}/conversations/${chat.body.id}`, as("hum-alice"))).status).toBe(404);
    expect((await rest("DELETE", `${P}/members/hum-alice`, as("hum-maintainer"))).status).toBe(404);
    const last = await rest("DELETE", `${P}/members/hum-maintainer`, as("hum-maintainer"));
    expect(last.status).toBe(409);
    expect(last.body.error.details.reason).toBe("last_admin");
  });
});

describe("one's own agents (DESIGN §4c)", () => {
  it("POST /api/agents: 201 `<owner>/<handle>`, pairable at once; PATCH by its owner alone", async () => {
    const made = await rest("POST", "/api/agents", {
      ...as("hum-alice"),
      body: { handle: "gardener", description: "Waters things." },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: "alice/gardener", owner_id: "hum-alice", description: "Waters things." });
    const code = await rest("POST", `/api/agents/${made.body.id}/pairing-codes`, as("hum-alice"));
    expect(code.status).toBe(201);
    const again = await rest("POST", "/api/agents", { ...as("hum-alice"), body: { handle: "gardener" } });
    expect(again.status).toBe(400);
    expect(again.body.error.details.fields).toEqual({ handle: "taken" });
    const edited = await rest("PATCH", `/api/agents/${made.body.id}`, {
      ...as("hum-alice"),
      body: { description: "Waters and weeds." },
    });
    expect(edited.body.description).toBe("Waters and weeds.");
    // Another person's agent, or none: the same 404.
    const other = await rest("PATCH", `/api/agents/${made.body.id}`, { ...as("hum-bob"), body: { description: "x" } });
    const none = await rest("PATCH", "/api/agents/agt-none", { ...as("hum-bob"), body: { description: "x" } });
    expect(other).toEqual(none);
    expect(other.status).toBe(404);
    expect(
      (await rest("PATCH", `/api/agents/${made.body.id}`, { ...as("agt-a"), body: { description: "x" } })).status,
    ).toBe(403);
  });
});

describe("the authorization matrix of the new routes (issue 29)", () => {
  // Each route × {admin, member, another Bay's person (an outsider), agent token, revoked token, no token}.
  const routes: [string, string, unknown][] = [
    ["PATCH", P, { name: "Maity" }],
    ["GET", `${P}/members`, undefined],
    ["POST", `${P}/members`, { handle: "carol" }],
    ["DELETE", `${P}/members/hum-carol`, undefined],
  ];
  const expected: Record<string, number[]> = {
    // admin, member, outsider, agent, revoked, none
    [`PATCH ${P}`]: [200, 403, 404, 403, 401, 401],
    [`GET ${P}/members`]: [200, 200, 404, 200, 401, 401],
    [`POST ${P}/members`]: [201, 403, 404, 403, 401, 401],
    [`DELETE ${P}/members/hum-carol`]: [200, 403, 404, 403, 401, 401],
  };
  it("every caller gets the status of its place; an outsider's answer is byte-equal to a missing project's", async () => {
    for (const [method, path, body] of routes) {
      const got: number[] = [];
      for (const who of ["hum-maintainer", "hum-guest", "hum-bob", "agt-a", "revoked", "none"]) {
        // The admin goes first: POST adds carol, DELETE removes her; bob stays an outsider throughout.
        const answer = await rest(method, path, { ...(who === "none" ? {} : as(who)), body });
        got.push(answer.status);
        if (who === "hum-bob") {
          const missing = await rest(method, path.replace("/maity", "/no-such-project"), { ...as(who), body });
          expect(answer, `${method} ${path}`).toEqual(missing);
        }
      }
      expect(got, `${method} ${path}`).toEqual(expected[`${method} ${path}`]);
    }
  });
});
