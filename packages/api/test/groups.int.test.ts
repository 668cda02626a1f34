import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, createWithVisitors, restClient, testHub } from "./helpers.ts";

const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const tokens: Record<string, string> = {};
const PATH = "/api/projects/maintainer/maity/conversations";
const PROJECT = "/api/projects/maintainer/maity";

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest", "agt-a"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { body: { member_id: id }, token: ADMIN })).body.token;
});

describe("create a group chat (§9.2 Who creates / Who takes part)", () => {
  it("201 with the §9.2 view; the creator is a participant; observers are agent owners outside the chat (M-090)", async () => {
    // guest places its agent-x, a visitor here (B-300), and reads along.
    const res = await createWithVisitors(rest, PROJECT, (id) => tokens[id] as string, "hum-maintainer", {
      title: "Docs sync",
      participants: ["agt-a", "agt-x"],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^cnv-\d{4}$/),
      kind: "group",
      title: "Docs sync",
      created_by: "hum-maintainer",
      observers: ["hum-guest"],
      closed_at: null,
      closed_reason: null,
      access: "participant",
      pinned: false,
    });
    expect(res.body.participants.map((p: { member_id: string }) => p.member_id)).toEqual([
      "hum-maintainer",
      "agt-a",
      "agt-x",
    ]);
    expect(res.body.participants[2]).toMatchObject({
      kind: "agent",
      handle: "agent-x",
      name: "guest/agent-x",
      owner_id: "hum-guest",
    });
    // conversation_created is in the log for the participants and wakes no agent.
    const event = await hub.db.event.findFirstOrThrow({
      where: { kind: "conversation_created" },
      orderBy: { seq: "desc" },
      select: { seq: true, verdicts: true, audience: { select: { memberId: true } } },
    });
    expect(event.verdicts).toEqual([]);
    // The chat was made by the maintainer with agt-a and guest (who then placed agt-x and left).
    expect(event.audience.map((a) => a.memberId).sort()).toEqual(["agt-a", "hum-guest", "hum-maintainer"]);
  });

  it("GET answers the view to participants and to owners reading along; not_found to others", async () => {
    const created = await createWithVisitors(rest, PROJECT, (id) => tokens[id] as string, "hum-maintainer", {
      title: "Visible",
      participants: ["agt-x"],
    });
    const view = await rest("GET", `${PATH}/${created.body.id}`, { token: tokens["hum-maintainer"] });
    expect(view).toEqual({ status: 200, body: created.body });
    const observer = await rest("GET", `${PATH}/${created.body.id}`, { token: tokens["hum-guest"] });
    expect(observer.body.access).toBe("observer");
    const agentA = await rest("GET", `${PATH}/${created.body.id}`, { token: tokens["agt-a"] });
    const missing = await rest("GET", `${PATH}/cnv-9999`, { token: tokens["agt-a"] });
    expect(agentA).toEqual(missing);
    expect(agentA.status).toBe(404);
  });

  it.each([
    ["too_few", []],
    ["too_few", ["hum-maintainer"]],
    ["use_direct", ["agt-a"]],
    ["not_a_member", ["hum-nobody"]],
  ])("invalid participants: %s (%j), nothing written", async (reason, participants) => {
    const before = await hub.db.conversation.count();
    const res = await rest("POST", PATH, { token: tokens["hum-maintainer"], body: { participants } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid", details: { fields: { participants: reason } } });
    expect(await hub.db.conversation.count()).toBe(before);
  });

  it("an agent's POST is forbidden: humans_only", async () => {
    const res = await rest("POST", PATH, { token: tokens["agt-a"], body: { participants: ["hum-guest"] } });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("humans_only");
  });

  it("wake is not built: refused with the field named", async () => {
    const res = await rest("POST", PATH, {
      token: tokens["hum-maintainer"],
      body: { participants: ["agt-x"], wake: "all" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.wake).toBe("not_supported");
  });

  it("a project the caller is not in answers not_found", async () => {
    const res = await rest("POST", "/api/projects/nobody/none/conversations", {
      token: tokens["hum-guest"],
      body: { participants: ["agt-x"] },
    });
    expect(res.status).toBe(404);
  });

  it("Idempotency-Key: same key and body → 200 with the same view; other body → invalid", async () => {
    const body = { title: "Replay", participants: ["hum-guest"] };
    const headers = { "idempotency-key": "k-1" };
    const first = await rest("POST", PATH, { token: tokens["hum-maintainer"], body, headers });
    expect(first.status).toBe(201);
    const again = await rest("POST", PATH, { token: tokens["hum-maintainer"], body, headers });
    expect(again).toEqual({ status: 200, body: first.body });
    const other = await rest("POST", PATH, {
      token: tokens["hum-maintainer"],
      body: { ...body, title: "Other" },
      headers,
    });
    expect(other.status).toBe(400);
    expect(Object.keys(other.body.error.details.fields)).toEqual(["idempotency_key"]);
    expect(await hub.db.conversation.count({ where: { title: "Replay" } })).toBe(1);
  });
});

describe("limits (§1.7) and closed projects", () => {
  it("the 13th participant is too_many", async () => {
    for (let i = 0; i < 12; i++) {
      await rest("POST", "/api/admin/humans", {
        token: ADMIN,
        body: { handle: `p${i}`, name: `P${i}`, password: "password-123" },
      });
      await rest("POST", "/api/admin/projects/maintainer/maity/members", {
        token: ADMIN,
        body: { member_id: `hum-p${i}` },
      });
    }
    const res = await rest("POST", PATH, {
      token: tokens["hum-maintainer"],
      body: { participants: Array.from({ length: 12 }, (_, i) => `hum-p${i}`) },
    });
    expect(res.body.error.details.fields.participants).toBe("too_many");
    const ok = await rest("POST", PATH, {
      token: tokens["hum-maintainer"],
      body: { participants: Array.from({ length: 11 }, (_, i) => `hum-p${i}`) },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.participants).toHaveLength(12);
  });

  it("an archived project answers project_closed (M-097)", async () => {
    await rest("POST", "/api/admin/projects", {
      token: ADMIN,
      body: { owner: "maintainer", slug: "old", name: "Old" },
    });
    await rest("POST", "/api/admin/projects/maintainer/old/members", {
      token: ADMIN,
      body: { member_id: "hum-guest" },
    });
    await rest("POST", "/api/admin/projects/maintainer/old/archive", { token: ADMIN });
    const res = await rest("POST", "/api/projects/maintainer/old/conversations", {
      token: tokens["hum-maintainer"],
      body: { participants: ["hum-guest"] },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("project_closed");
  });

  it("conversation_quota when the project has as many open group chats as allowed (M-096)", async () => {
    const { groupService } = await import("../../hub/src/conversations/groups.ts");
    const open = await hub.db.conversation.count({
      where: { kind: "group", closedAt: null, project: { slug: "maity" } },
    });
    const limited = groupService(hub.db, hub.bus, { quota: open });
    const caller = { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" };
    await expect(
      limited.create(caller, { owner: "maintainer", slug: "maity" }, { participants: ["hum-guest"] }),
    ).rejects.toMatchObject({ code: "conversation_quota" });
  });
});
