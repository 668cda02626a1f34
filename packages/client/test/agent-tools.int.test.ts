import { handleRest } from "@maity/api/rest";
import { type AgentOperationInput, agentOperations } from "@maity/domain";
import { freshDatabase } from "@maity/db/testing";
import { createHub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { AgentApiError, connect } from "../src/index.ts";

// The agent side of the SDK against the real routes (in process): list_agents and contact_agent
// (B-075, B-079, B-308, B-356), and the one schema per operation that REST, the SDK and MCP share.

const hub = createHub(await freshDatabase(), { limits: { agent: 100_000, updates: 100_000 } });
afterAll(() => hub.close());
const ADMIN = "client-admin";
const BASE = "http://127.0.0.1";
const fetchHub: typeof fetch = (input, init) =>
  handleRest(hub, new Request(input as string, init), { adminToken: ADMIN });
const api = async (method: string, path: string, token: string, body?: unknown) => {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetchHub(`${BASE}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const tokens: Record<string, string> = {};
const agentClient = (id: string) => connect({ baseUrl: BASE, token: tokens[id] as string, fetch: fetchHub });
const M = "/api/projects/maintainer/maity";
let room: string; // the seeded group chat's agent-API key
let chat: string; // …and its Maity id

beforeAll(async () => {
  await seedDemo(hub);
  // An agent of the maintainer's Bay in no project, and one of another Bay in no shared project.
  await hub.admin.createAgent({ owner: "maintainer", handle: "scribe", description: "Takes notes." });
  await hub.admin.createHuman({ handle: "carol", name: "Carol", password: "carol-password" });
  await hub.admin.createAgent({ owner: "carol", handle: "stranger", description: "Elsewhere." });
  for (const id of ["hum-maintainer", "agt-a", "agt-x", "agt-scribe"])
    tokens[id] = (await hub.admin.mintToken({ member_id: id })).token;
  const rooms = await agentClient("agt-a").conversations();
  const group = rooms.find((r) => r.type === "GROUP");
  if (!group) throw new Error("the demo's group chat is missing");
  room = group.id;
  chat = group.maity.id;
});

const human = (body: string) =>
  api("POST", `${M}/conversations/${chat}/messages`, tokens["hum-maintainer"] as string, { body });
const messageCount = async () => hub.db.event.count({ where: { kind: "message", conversation: { publicId: chat } } });

describe("list_agents: GET /api/agent-api/agents (B-356, B-308, B-305)", () => {
  it("lists the agents of the caller's Bay and of its projects, never itself, never a stranger; fromAnotherBay marks another Bay's", async () => {
    // B-305: agent-a shares the demo's group chat with guest's visiting agent-x — the restricted
    // profile lists only the agents of that chat, not its own Bay's scribe.
    expect(await agentClient("agt-a").agents()).toEqual([
      { id: "agt-x", name: "guest/agent-x", description: "Release checks and changelogs.", fromAnotherBay: true },
    ]);
    // The scribe is in no project: only its own Bay's agents.
    expect(await agentClient("agt-scribe").agents()).toEqual([
      {
        id: "agt-a",
        name: "maintainer/agent-a",
        description: "Builds and reviews the hub's API contract.",
        fromAnotherBay: false,
      },
    ]);
  });

  it("B-011 a person's token or none answers the agent API's 401", async () => {
    expect(await api("GET", "/api/agent-api/agents", tokens["hum-maintainer"] as string)).toEqual({
      status: 401,
      body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" },
    });
  });
});

describe("contact_agent: POST /api/agent-api/agents/{agentId}/contact (B-075, B-079)", () => {
  it("B-079 sends in the room with the agent @mentioned in front, so the contacted agent should respond; a text that mentions it stays as written", async () => {
    await human("Status round, please.");
    const a = agentClient("agt-a");
    const sent = await a.contactAgent({
      agentId: "agt-x",
      conversationId: room,
      content: "can you check the changelog?",
    });
    expect(sent).toMatchObject({
      content: "@guest/agent-x can you check the changelog?",
      mentions: ["agt-x"],
      senderId: "agt-a",
    });
    const seen = await agentClient("agt-x").messages(room, { cursor: undefined, limit: 5 });
    expect(seen.messages.find((m) => m.id === sent.id)?.shouldRespond).toBe(true);
    await human("Thanks, next one.");
    const named = await a.contactAgent({
      agentId: "agt-x",
      conversationId: room,
      content: "@agent-x and the release notes?",
    });
    expect(named.content).toBe("@agent-x and the release notes?");
    expect(named.mentions).toEqual(["agt-x"]);
  });

  it("B-075 reports spent agent rounds before sending: 409 ROUND_CAP_REACHED and nothing written; a human message opens new rounds", async () => {
    await human("One more question for the agents.");
    await agentClient("agt-a").contactAgent({ agentId: "agt-x", conversationId: room, content: "your turn" }); // round 1 of 2
    const before = await messageCount();
    const refused = await agentClient("agt-x")
      .contactAgent({ agentId: "agt-a", conversationId: room, content: "back to you" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentApiError);
    expect(refused).toMatchObject({ status: 409, code: "ROUND_CAP_REACHED", body: { maxAgentRounds: 2 } });
    expect(await messageCount()).toBe(before);
    await human("Go on.");
    const again = await agentClient("agt-x").contactAgent({
      agentId: "agt-a",
      conversationId: room,
      content: "back to you",
    });
    expect(again.mentions).toEqual(["agt-a"]);
  });

  it("an agent outside the room, itself, a direct conversation or a room the caller is not in answer the same 404, nothing written", async () => {
    const before = await messageCount();
    const a = agentClient("agt-a");
    const dm = (await a.conversations()).find((r) => r.type === "DM")?.id as string;
    const attempts: AgentOperationInput<"contact">[] = [
      { agentId: "agt-scribe", conversationId: room, content: "hi" },
      { agentId: "agt-a", conversationId: room, content: "hi" },
      { agentId: "agt-nobody", conversationId: room, content: "hi" },
      { agentId: "agt-x", conversationId: dm, content: "hi" },
    ];
    for (const input of attempts) {
      const res = await api("POST", `/api/agent-api/agents/${input.agentId}/contact`, tokens["agt-a"] as string, {
        conversationId: input.conversationId,
        content: input.content,
      });
      expect(res, input.agentId).toEqual({
        status: 404,
        body: { error: "no such agent in this conversation", code: "NOT_FOUND" },
      });
    }
    const scribe = await api("POST", "/api/agent-api/agents/agt-a/contact", tokens["agt-scribe"] as string, {
      conversationId: room,
      content: "hi",
    });
    expect(scribe).toEqual({ status: 404, body: { error: "no such agent in this conversation", code: "NOT_FOUND" } });
    expect(await messageCount()).toBe(before);
  });

  it("refuses what the send refuses, the field named", async () => {
    const res = await api("POST", "/api/agent-api/agents/agt-x/contact", tokens["agt-a"] as string, {
      conversationId: room,
      content: "  ",
    });
    expect(res).toMatchObject({ status: 400, body: { code: "INVALID_REQUEST", fields: { content: "required" } } });
  });
});

describe("one schema per operation, the same on every surface", () => {
  it("the REST body and the OpenAPI document of a send are the operation's schema: every field of it, nothing else", async () => {
    const doc = (await (await fetchHub(`${BASE}/api/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: { "application/json": { schema: { properties: object } } } } }>
      >;
    };
    const body =
      doc.paths["/api/agent-api/conversations/{conversationId}/messages"]?.post?.requestBody.content["application/json"]
        .schema;
    const fields = Object.keys(agentOperations.send.input.shape).filter(
      (k) => k !== "conversationId" && k !== "idempotencyKey",
    );
    expect(Object.keys(body?.properties ?? {})).toEqual(fields);
    // The SDK's send takes the same fields, typed by the same schema.
    expectTypeOf<Parameters<ReturnType<typeof connect>["send"]>[1]>().toEqualTypeOf<
      Omit<AgentOperationInput<"send">, "conversationId" | "idempotencyKey">
    >();
  });
});
