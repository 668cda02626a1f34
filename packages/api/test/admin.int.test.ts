import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";

const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const admin = (method: string, path: string, body?: unknown) => rest(method, path, { body, token: ADMIN });

describe("operator routes: guard", () => {
  it("answer 404 when MAITY_ADMIN_TOKEN is unset", async () => {
    const hidden = restClient(hub, "");
    const res = await hidden("POST", "/api/admin/humans", {
      body: { handle: "x", name: "X", password: "password1" },
      token: "anything",
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });
  it("answer 401 without or with a wrong admin token", async () => {
    expect((await rest("POST", "/api/admin/humans", { body: {} })).status).toBe(401);
    expect((await rest("POST", "/api/admin/humans", { body: {}, token: "wrong" })).status).toBe(401);
  });
});

describe("operator routes: the HTTP contract of /api/admin/*", () => {
  beforeAll(async () => {
    expect(
      (await admin("POST", "/api/admin/humans", { handle: "alice", name: "Alice", password: "alice-password" })).status,
    ).toBe(201);
  });

  it("POST /api/admin/humans → 201 {id: hum-<handle>, handle, name}; 409 when taken", async () => {
    const res = await admin("POST", "/api/admin/humans", { handle: "bob", name: "Bob", password: "bob-password" });
    expect(res).toEqual({ status: 201, body: { id: "hum-bob", handle: "bob", name: "Bob" } });
    const again = await admin("POST", "/api/admin/humans", { handle: "bob", name: "Bob 2", password: "bob-password" });
    expect(again.status).toBe(409);
    expect(again.body.error.details.fields).toEqual({ handle: "taken" });
  });

  it("POST /api/admin/agents → 201 {id: agt-…, handle, name: owner/handle, owner_id}", async () => {
    const res = await admin("POST", "/api/admin/agents", {
      owner: "alice",
      handle: "agent-q",
      description: "Answers questions.",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: "agt-q", handle: "agent-q", name: "alice/agent-q", owner_id: "hum-alice" });
    expect((await admin("POST", "/api/admin/agents", { owner: "alice", handle: "agent-q" })).status).toBe(409);
    // A second owner's agent-q gets another global id.
    const other = await admin("POST", "/api/admin/agents", { owner: "bob", handle: "agent-q" });
    expect(other.status).toBe(201);
    expect(other.body.id).toBe("agt-bob-q");
  });

  it("POST /api/admin/projects → 201; the owner is an active member with members:admin", async () => {
    const res = await admin("POST", "/api/admin/projects", { owner: "alice", slug: "lab", name: "Lab" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      owner: "alice",
      slug: "lab",
      full_name: "alice/lab",
      name: "Lab",
    });
    const membership = await hub.db.membership.findFirstOrThrow({
      where: { projectId: res.body.id, memberId: "hum-alice" },
      select: { status: true, permissions: true },
    });
    expect(membership).toEqual({ status: "active", permissions: ["members:admin"] });
    expect((await admin("POST", "/api/admin/projects", { owner: "alice", slug: "lab", name: "Lab" })).status).toBe(409);
  });

  it("members: add → 201 {member_id, permissions, status: active}; remove → 200", async () => {
    const add = await admin("POST", "/api/admin/projects/alice/lab/members", {
      member_id: "hum-bob",
      permissions: ["members:admin"],
    });
    expect(add).toEqual({
      status: 201,
      body: { member_id: "hum-bob", permissions: ["members:admin"], status: "active" },
    });
    const agent = await admin("POST", "/api/admin/projects/alice/lab/members", { member_id: "agt-q" });
    expect(agent.body).toEqual({ member_id: "agt-q", permissions: [], status: "active" });
    const removed = await admin("DELETE", "/api/admin/projects/alice/lab/members/hum-bob?reason=removed");
    expect(removed.status).toBe(200);
    const isolated = await admin("DELETE", "/api/admin/projects/alice/lab/members/agt-q?reason=isolated");
    expect(isolated.status).toBe(200);
    const rows = await hub.db.membership.findMany({
      where: { memberId: { in: ["hum-bob", "agt-q"] } },
      select: { memberId: true, status: true },
      orderBy: { memberId: "asc" },
    });
    expect(rows).toEqual([
      { memberId: "agt-q", status: "isolated" },
      { memberId: "hum-bob", status: "removed" },
    ]);
    expect((await admin("DELETE", "/api/admin/projects/alice/lab/members/hum-nobody")).status).toBe(404);
    expect(
      (await admin("DELETE", "/api/admin/projects/alice/lab/members/agt-q?reason=banned")).body.error.details.fields,
    ).toEqual({ reason: expect.any(String) });
  });

  it("archive → 200, and an archived project takes no new member (project_closed)", async () => {
    await admin("POST", "/api/admin/projects", { owner: "alice", slug: "old", name: "Old" });
    const res = await admin("POST", "/api/admin/projects/alice/old/archive");
    expect(res.status).toBe(200);
    expect(res.body.archived).toBe(true);
    const add = await admin("POST", "/api/admin/projects/alice/old/members", { member_id: "hum-bob" });
    expect(add.status).toBe(409);
    expect(add.body.error.code).toBe("project_closed");
    expect((await admin("POST", "/api/admin/projects/alice/none/archive")).status).toBe(404);
  });

  it("tokens: mty_ for a human, bay_ for an agent", async () => {
    const human = await admin("POST", "/api/admin/tokens", { member_id: "hum-alice" });
    expect(human.status).toBe(201);
    expect(human.body.token).toMatch(/^mty_[A-Za-z0-9_-]{40,}$/);
    const agent = await admin("POST", "/api/admin/tokens", { member_id: "agt-q" });
    expect(agent.body.token).toMatch(/^bay_/);
    expect((await admin("POST", "/api/admin/tokens", { member_id: "hum-ghost" })).body.error.details.fields).toEqual({
      member_id: "not_found",
    });
  });
});

describe("bad input: 400 invalid with details.fields, nothing written (DESIGN §4)", () => {
  const cases: [string, string, unknown, string[]][] = [
    [
      "humans",
      "/api/admin/humans",
      { handle: "Not Valid", name: "", password: "short" },
      ["handle", "name", "password"],
    ],
    ["humans: missing body", "/api/admin/humans", {}, ["handle", "name", "password"]],
    [
      "humans: wrong types",
      "/api/admin/humans",
      { handle: 7, name: ["x"], password: null },
      ["handle", "name", "password"],
    ],
    ["agents", "/api/admin/agents", { owner: "", handle: "UPPER" }, ["owner", "handle"]],
    ["agents: unknown owner", "/api/admin/agents", { owner: "nobody", handle: "agent-z" }, ["owner"]],
    ["projects", "/api/admin/projects", { owner: "alice", slug: "no spaces" }, ["slug", "name"]],
    ["projects: unknown owner", "/api/admin/projects", { owner: "nobody", slug: "p", name: "P" }, ["owner"]],
    [
      "members",
      "/api/admin/projects/alice/lab/members",
      { member_id: "someone", permissions: ["root"] },
      ["member_id", "permissions.0"],
    ],
    ["members: unknown member", "/api/admin/projects/alice/lab/members", { member_id: "hum-ghost" }, ["member_id"]],
    ["tokens", "/api/admin/tokens", { member_id: 12 }, ["member_id"]],
  ];
  it.each(cases)("%s", async (_name, path, body, fields) => {
    const before = await counts();
    const res = await admin("POST", path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid");
    expect(Object.keys(res.body.error.details.fields).sort()).toEqual([...fields].sort());
    expect(await counts()).toEqual(before);
  });
  it("a body that is not JSON is invalid with the body named", async () => {
    const res = await rest("POST", "/api/admin/humans", { body: "{not json", token: ADMIN });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields).toEqual({ body: "not_json" });
  });
});

async function counts() {
  const [humans, agents, projects, memberships, tokens] = await Promise.all([
    hub.db.human.count(),
    hub.db.agent.count(),
    hub.db.project.count(),
    hub.db.membership.count(),
    hub.db.accessToken.count(),
  ]);
  return { humans, agents, projects, memberships, tokens };
}

describe("GET /api/health", () => {
  it("reports the database engine, the migration state and where files are stored", async () => {
    const res = await rest("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      database: {
        engine: process.env.TEST_DATABASE_URL ? "postgresql" : "pglite",
        migrations: {
          applied: [
            expect.stringMatching(/_init$/),
            expect.stringMatching(/_pings$/),
            expect.stringMatching(/_agent_protocol$/),
            expect.stringMatching(/_files_polls_reactions$/),
            expect.stringMatching(/_login_limits$/),
            expect.stringMatching(/_participation_counters$/),
            expect.stringMatching(/_participation_order$/),
            expect.stringMatching(/_webhook_deliveries_fillfactor$/),
            expect.stringMatching(/_project_brief$/),
            expect.stringMatching(/_notes$/),
            expect.stringMatching(/_project_share_with_visitors$/),
            expect.stringMatching(/_agent_context$/),
            expect.stringMatching(/_conversation_summaries$/),
            expect.stringMatching(/_events_redacted_index$/),
            expect.stringMatching(/_invites$/),
            expect.stringMatching(/_visitor_placement$/),
            expect.stringMatching(/_devices$/),
            expect.stringMatching(/_sessions$/),
            expect.stringMatching(/_search$/),
          ],
          pending: [],
        },
      },
      // The test hub keeps files in memory; the server names "local" or "s3" (e2e/transport.spec.ts).
      files: { store: "memory" },
    });
  });
  it("an unknown /api path is the error shape's not_found", async () => {
    const res = await rest("GET", "/api/nothing-here");
    expect(res).toEqual({ status: 404, body: { error: { code: "not_found", message: "no such route", details: {} } } });
  });
});
