import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, createWithVisitors, restClient, testHub } from "./helpers.ts";

// The project brief, the people's side (DESIGN §4b; 004 v1.15 B-261, B-262): GET|PUT
// /api/projects/{owner}/{slug}/brief. Any human member reads and writes it; an agent of the project
// gets humans_only; anyone outside the project gets the answer of a project that does not exist.

const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const tokens: Record<string, string> = {};

beforeAll(async () => {
  await seedDemo(hub);
  const outsider = await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle: "outsider", name: "Outsider", password: "outsider-pass" },
  });
  expect(outsider.status).toBe(201);
  const stranger = await rest("POST", "/api/admin/agents", {
    token: ADMIN,
    body: { owner: "outsider", handle: "stranger" },
  });
  expect(stranger.status).toBe(201);
  for (const id of ["hum-maintainer", "hum-guest", "agt-a", outsider.body.id, stranger.body.id]) {
    const minted = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } });
    tokens[id] = minted.body.token;
  }
  tokens.outsider = tokens[outsider.body.id] as string;
  tokens.stranger = tokens[stranger.body.id] as string;
});

const get = (who: string) => rest("GET", `${P}/brief`, { token: tokens[who] as string });
const put = (who: string, body: unknown) => rest("PUT", `${P}/brief`, { token: tokens[who] as string, body });

describe("DESIGN §4b the project brief, for its people", () => {
  it("B-261 before the first one: no text, version 0, nobody", async () => {
    expect(await get("hum-guest")).toEqual({
      status: 200,
      body: { brief: null, version: 0, updated_at: null, updated_by: null },
    });
  });

  it("B-262 the version grows by one only when the text changes: the same text again leaves it", async () => {
    const first = await put("hum-maintainer", { brief: "# Maity\nShip the hub; tests first." });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ brief: "# Maity\nShip the hub; tests first.", version: 1 });
    expect(first.body.updated_by).toBe("hum-maintainer");
    expect(Date.parse(first.body.updated_at)).toBeGreaterThan(Date.now() - 60_000);

    const same = await put("hum-guest", { brief: "# Maity\nShip the hub; tests first." });
    expect(same.body).toEqual(first.body);

    const edited = await put("hum-guest", { brief: "# Maity\nShip the hub; tests first. Docs too." });
    expect(edited.body).toMatchObject({ version: 2, updated_by: "hum-guest" });
    expect((await get("hum-maintainer")).body).toEqual(edited.body);
  });

  it("B-262 a rename of the project leaves the version", async () => {
    const before = (await get("hum-maintainer")).body;
    await hub.db.project.updateMany({ where: { slug: "maity" }, data: { name: "Maity hub" } });
    expect((await get("hum-maintainer")).body).toEqual(before);
  });

  it("B-266 null, or only whitespace, removes it: a new version without text, once", async () => {
    const removed = await put("hum-maintainer", { brief: "  \n " });
    expect(removed.body).toMatchObject({ brief: null, version: 3 });
    expect((await put("hum-maintainer", { brief: null })).body).toMatchObject({ brief: null, version: 3 });
  });

  it("at most 20,000 characters (code points), refused naming the field, nothing written", async () => {
    const before = (await get("hum-maintainer")).body;
    const long = await put("hum-maintainer", { brief: "😀".repeat(20_001) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({
      code: "invalid",
      details: { fields: { brief: "at most 20000 characters" } },
    });
    expect((await get("hum-maintainer")).body).toEqual(before);
    // 20,000 emoji are 40,000 UTF-16 units: the limit counts characters.
    expect((await put("hum-maintainer", { brief: "😀".repeat(20_000) })).body.version).toBe(before.version + 1);
    for (const body of [{}, { brief: 3 }, { brief: "x", extra: true }]) {
      const refused = await put("hum-maintainer", body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("invalid");
    }
  });

  it("an agent of the project: humans_only; outside the project, person or agent: as a project that does not exist", async () => {
    for (const call of [() => get("agt-a"), () => put("agt-a", { brief: "agents may not" })]) {
      const refused = await call();
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: "forbidden", details: { reason: "humans_only" } });
    }
    const missing = await rest("GET", "/api/projects/maintainer/nope/brief", { token: tokens["hum-maintainer"] });
    for (const who of ["outsider", "stranger"]) {
      expect(await get(who)).toEqual(missing);
      expect(await put(who, { brief: "mine now" })).toEqual(missing);
    }
    expect(missing.status).toBe(404);
    expect((await get("hum-maintainer")).body.brief).not.toBe("mine now");
  });

  it("two people writing at once take one version each, none lost", async () => {
    const start = (await get("hum-maintainer")).body.version as number;
    const writes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => put(i % 2 ? "hum-guest" : "hum-maintainer", { brief: `draft ${i}` })),
    );
    const versions = writes.map((w) => w.body.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 12 }, (_, i) => start + 1 + i));
    const last = (await get("hum-guest")).body;
    expect(last.version).toBe(start + 12);
    expect(writes.find((w) => w.body.version === last.version)?.body).toEqual(last);
  });
});

describe("B-271 GET /api/agent-api/conversations/:id/project", () => {
  const agentGet = (who: string, key: string) =>
    rest("GET", `/api/agent-api/conversations/${key}/project`, { token: tokens[who] as string });

  it("B-271 B-262 the room's project with its brief and version; B-274 B-375 a visitor gets PROJECT_NOT_FOUND", async () => {
    const visitor = await hub.db.agent.findFirstOrThrow({ where: { handle: "agent-x" }, select: { id: true } });
    tokens.visitor = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: visitor.id } })).body
      .token as string;
    tokens["hum-guest"] ??= (
      await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-guest" } })
    ).body.token as string;
    const made = await createWithVisitors(rest, P, (id) => tokens[id] as string, "hum-maintainer", {
      title: "Brief room",
      participants: ["agt-a", visitor.id],
    });
    expect(made.status).toBe(201);
    const key = (
      await hub.db.conversation.findFirstOrThrow({ where: { publicId: made.body.id }, select: { id: true } })
    ).id;
    const written = await put("hum-maintainer", { brief: "Agents: read the changelog first." });
    const project = await hub.db.project.findFirstOrThrow({
      where: { slug: "maity" },
      select: { id: true, name: true },
    });
    expect(await agentGet("agt-a", key)).toEqual({
      status: 200,
      body: {
        id: project.id,
        name: project.name,
        version: written.body.version,
        brief: "Agents: read the changelog first.",
      },
    });

    const visiting = await agentGet("visitor", key);
    expect(visiting.status).toBe(404);
    expect(visiting.body).toEqual({
      error: "this conversation is in no project you can read",
      code: "PROJECT_NOT_FOUND",
    });

    // Not in the room, known or not: NOT_PARTICIPANT, as every room route (B-038, B-100).
    for (const other of [key, "cnv0000000000unknown"]) {
      const refused = await agentGet("stranger", other);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: "you are not a participant of this conversation",
        code: "NOT_PARTICIPANT",
      });
    }
  });
});
