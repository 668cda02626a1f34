import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { PROTOCOL_VERSION } from "@maity/domain";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// Agent protocol identity (004 §1): B-010 B-011 B-012 B-029 B-031.
const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const tokens: Record<string, string> = {};
const call = async (path: string, token?: string, headers: Record<string, string> = {}) => {
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api${path}`, {
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    }),
  );
  return { status: res.status, body: await res.json() };
};

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "hum-maintainer"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
});

describe("GET /api/agent-api/me", () => {
  it("B-012 B-029 B-031 names the agent and the protocol version", async () => {
    expect(await call("/me", tokens["agt-a"])).toEqual({
      status: 200,
      body: {
        id: "agt-a",
        name: "maintainer/agent-a",
        description: "Builds and reviews the hub's API contract.",
        instanceId: "agt-a-default",
        protocolVersion: "1.23",
      },
    });
    expect(PROTOCOL_VERSION).toMatch(/^\d+\.\d+$/);
  });

  it("B-010 B-011 a missing, unknown or revoked token, or a human's token, answers the same 401", async () => {
    const unauthorized = { status: 401, body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" } };
    expect(await call("/me")).toEqual(unauthorized);
    expect(await call("/me", "bay_not-a-real-token")).toEqual(unauthorized);
    expect(await call("/me", tokens["hum-maintainer"])).toEqual(unauthorized);
    const { token } = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "agt-a" } })).body;
    await rest("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } });
    expect(await call("/me", token)).toEqual(unauthorized);
  });

  it("an unknown agent-api path answers the protocol's 404 shape", async () => {
    expect(await call("/nothing", tokens["agt-a"])).toEqual({
      status: 404,
      body: { error: "no such route", code: "NOT_FOUND" },
    });
  });
});

describe("GET /api/agent-api/conversations", () => {
  it("lists the agent's DM and GROUP rooms with global ids and where they live in Maity", async () => {
    const res = await call("/conversations", tokens["agt-a"]);
    expect(res.status).toBe(200);
    const rooms = res.body.conversations as {
      id: string;
      type: string;
      title: string | null;
      maity: { project: string; id: string };
      project: { name: string };
    }[];
    expect(rooms.map((r) => [r.type, r.title, r.maity])).toEqual([
      ["GROUP", "Release 0.2 go/no-go", { project: "maintainer/maity", id: expect.stringMatching(/^cnv-/) }],
      ["DM", null, { project: "maintainer/maity", id: "agt-a" }],
    ]);
    expect(new Set(rooms.map((r) => r.id)).size).toBe(2);
    expect(rooms.every((r) => r.project.name === "Maity")).toBe(true);
  });
});

describe("GET /api/agent-api/conversations/:id/context (B-036 B-038 B-039 B-040 B-042 B-046 B-049)", () => {
  it("the group envelope: roster without private fields, MENTIONS policy, instructions in order, visitors marked", async () => {
    const rooms = (await call("/conversations", tokens["agt-a"])).body.conversations as { id: string; type: string }[];
    const group = rooms.find((r) => r.type === "GROUP")?.id as string;
    const res = await call(`/conversations/${group}/context`, tokens["agt-a"]);
    expect(res.status).toBe(200);
    expect(res.body.conversation).toEqual({ id: group, type: "GROUP", title: "Release 0.2 go/no-go" });
    expect(res.body.policy).toEqual({
      rule: "MENTIONS",
      effectiveRule: "MENTIONS",
      policyApplies: true,
      maxAgentRounds: 2,
    });
    expect(res.body.you).toEqual({ id: "agt-a", name: "maintainer/agent-a", isOrchestrator: false });
    expect(res.body.participants).toEqual([
      { id: "hum-maintainer", name: "Maintainer", kind: "user", role: "creator", visiting: null },
      {
        id: "agt-a",
        name: "maintainer/agent-a",
        kind: "agent",
        role: "member",
        description: "Builds and reviews the hub's API contract.",
        visiting: null,
      },
      {
        id: "agt-x",
        name: "guest/agent-x",
        kind: "agent",
        role: "member",
        description: "Release checks and changelogs.",
        visiting: { homeBay: "guest", sponsor: { id: "hum-guest", name: "Guest" } },
      },
    ]);
    expect(res.body.instructions.split("\n")[0]).toBe(
      'You are "maintainer/agent-a", an agent in the "Release 0.2 go/no-go" group chat.',
    );
    expect(res.body.instructions).toContain(
      "- guest/agent-x (agent) — Release checks and changelogs. (visiting from another Bay: guest, brought by Guest)",
    );
  });

  it("B-046 a direct conversation: no policy machinery", async () => {
    const rooms = (await call("/conversations", tokens["agt-a"])).body.conversations as { id: string; type: string }[];
    const dm = rooms.find((r) => r.type === "DM")?.id as string;
    const res = await call(`/conversations/${dm}/context`, tokens["agt-a"]);
    expect(res.body.policy).toEqual({
      rule: null,
      effectiveRule: "EVERY_USER_MESSAGE",
      policyApplies: false,
      maxAgentRounds: null,
    });
    expect(res.body.instructions).toContain("answer every human message");
  });

  it("B-038 a room the agent is not in answers 403 NOT_PARTICIPANT exactly like an unknown id", async () => {
    const { token } = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "agt-x" } })).body;
    const rooms = (await call("/conversations", tokens["agt-a"])).body.conversations as { id: string; type: string }[];
    const dmOfA = rooms.find((r) => r.type === "DM")?.id as string;
    const hidden = await call(`/conversations/${dmOfA}/context`, token);
    expect(hidden).toEqual({
      status: 403,
      body: { error: "you are not a participant of this conversation", code: "NOT_PARTICIPANT" },
    });
    expect(await call("/conversations/nope/context", token)).toEqual(hidden);
  });
});
