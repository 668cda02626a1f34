import { REQUEST_BODY_MAX_BYTES } from "@maity/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest, restRoutes } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub, trpcBrowser } from "./helpers.ts";

// Every bad input answers `invalid` naming the field and writes nothing.
const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
let token = "";
let chat = "";

beforeAll(async () => {
  await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle: "maintainer", name: "Maintainer", password: "maintainer-pw" },
  });
  await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle: "guest", name: "Guest", password: "guest-pass" },
  });
  await rest("POST", "/api/admin/projects", {
    token: ADMIN,
    body: { owner: "maintainer", slug: "maity", name: "Maity" },
  });
  await rest("POST", `/api/admin/projects/maintainer/maity/members`, {
    token: ADMIN,
    body: { member_id: "hum-guest" },
  });
  await rest("POST", "/api/admin/agents", { token: ADMIN, body: { owner: "maintainer", handle: "agent-a" } });
  await rest("POST", `/api/admin/projects/maintainer/maity/members`, { token: ADMIN, body: { member_id: "agt-a" } });
  token = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-maintainer" } })).body.token;
  chat = (
    await rest("POST", `${P}/conversations`, { token, body: { title: "Inputs", participants: ["hum-guest", "agt-a"] } })
  ).body.id;
  await rest("POST", `${P}/conversations/${chat}/messages`, { token, body: { body: "first" } });
});

/** The state a refused request must leave untouched. */
const snapshot = async () => ({
  events: await hub.db.event.count(),
  conversations: await hub.db.conversation.findMany({
    select: { title: true, closedAt: true },
    orderBy: { number: "asc" },
  }),
  participations: await hub.db.participation.count(),
  pins: await hub.db.pin.count(),
  meat: await hub.db.participation.findMany({ select: { meatProxyChat: true } }),
});

async function raw(method: string, path: string, body: string, headers: Record<string, string> = {}) {
  const res = await handleRest(
    hub,
    new Request(`${BASE}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body,
    }),
    { adminToken: ADMIN },
  );
  return { status: res.status, body: await res.json() };
}

const writes = () => [
  ["POST", `${P}/conversations/${chat}/messages`],
  ["POST", `${P}/conversations`],
  ["PATCH", `${P}/conversations/${chat}`],
  ["POST", `${P}/conversations/${chat}/participants`],
  ["PUT", `${P}/conversations/${chat}/meat-proxy`],
  ["POST", `${P}/conversations/${chat}/messages/1/redact`],
  ["POST", `${P}/events`],
];

describe("bad JSON, non-objects and oversize bodies (M-240)", () => {
  it("not JSON → invalid fields.body not_json on every write route, nothing written", async () => {
    const before = await snapshot();
    for (const [method, path] of writes()) {
      const res = await raw(method as string, path as string, '{"body": "unterminated');
      expect(res, `${method} ${path}`).toEqual({
        status: 400,
        body: {
          error: {
            code: "invalid",
            message: "the request body is not valid JSON",
            details: { fields: { body: "not_json" } },
          },
        },
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("a JSON array or string is not an object → fields.body not_an_object", async () => {
    for (const body of ["[1,2]", '"hello"', "42"]) {
      const res = await raw("POST", `${P}/conversations/${chat}/messages`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ fields: { body: "not_an_object" } });
    }
  });

  it(`a body over ${REQUEST_BODY_MAX_BYTES} bytes → 413 too_large, the limit named, nothing written`, async () => {
    const before = await snapshot();
    const big = JSON.stringify({ body: "x".repeat(REQUEST_BODY_MAX_BYTES) });
    const res = await raw("POST", `${P}/conversations/${chat}/messages`, big);
    expect(res.status).toBe(413);
    expect(res.body.error.details).toEqual({ fields: { body: "too_large" }, limit: REQUEST_BODY_MAX_BYTES });
    // A lying Content-Length is caught by the bytes actually read.
    const lying = await raw("POST", `${P}/conversations/${chat}/messages`, big, { "content-length": "10" });
    expect(lying).toEqual({
      status: 413,
      body: {
        error: {
          code: "too_large",
          message: expect.stringContaining("larger than"),
          details: { fields: { body: "too_large" }, limit: REQUEST_BODY_MAX_BYTES },
        },
      },
    });
    expect(await snapshot()).toEqual(before);
  });
});

describe("unknown fields and wrong types name the field (M-240)", () => {
  it.each([
    ["POST", "/messages", { body: "hi", color: "red" }, { color: "unknown_field" }],
    ["POST", "/messages", { body: 5 }, { body: "a string" }],
    ["POST", "/messages", { body: "hi", to_instance: 7 }, { to_instance: "a string" }],
    ["POST", "/messages", { body: "hi", owner: "guest" }, { owner: "unknown_field" }],
    ["PATCH", "", { title: 5 }, { title: "a string or null" }],
    ["PATCH", "", { name: "x" }, { name: "unknown_field" }],
    ["PATCH", "", {}, { title: "nothing to change" }],
    ["PATCH", "", { title: "x".repeat(201) }, { title: "at most 200 characters" }],
    ["POST", "/participants", { member_id: 5 }, { member_id: "a member id (hum-… or agt-…)" }],
    ["POST", "/participants", {}, { member_id: "required" }],
    ["POST", "/participants", { member_id: "agt-a", wake: "all" }, { wake: "not_supported" }],
    ["PUT", "/meat-proxy", { meat_proxy: "yes" }, { meat_proxy: "true, false or null" }],
    ["PUT", "/meat-proxy", {}, { meat_proxy: "required" }],
    ["POST", "/messages/1/redact", { reason: 5 }, { reason: "a string or null" }],
    ["POST", "/messages/1/redact", { reason: "x".repeat(501) }, { reason: "at most 500 characters" }],
  ])("%s …%s %j → %j", async (method, suffix, body, fields) => {
    const before = await snapshot();
    const res = await rest(method, `${P}/conversations/${chat}${suffix}`, { token, body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid");
    expect(res.body.error.details.fields).toMatchObject(fields);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    [{ participants: "agt-a" }, { participants: "a list of member ids" }],
    [{ participants: ["agt-a"], title: ["x"] }, { title: "a string or null" }],
    [{ participants: ["not an id"] }, { "participants.0": "a member id (hum-… or agt-…)" }],
    [{ participants: ["agt-a"], extra: true }, { extra: "unknown_field" }],
  ])("create %j → %j", async (body, fields) => {
    const before = await snapshot();
    const res = await rest("POST", `${P}/conversations`, { token, body });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields).toEqual(fields);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    [`/conversations?limit=abc`, { limit: "an integer" }],
    [`/conversations?limit=0`, { limit: "at least 1" }],
    [`/conversations?limit=201`, { limit: "at most 200" }],
    [`/conversations?observed=maybe`, { observed: "true or false" }],
    [`/conversations?cursor=not-a-cursor`, { cursor: "bad_cursor" }],
    [`/conversations?sort=new`, { sort: "unknown_field" }],
    [`/conversations/CHAT/messages?after=-1`, { after: "at least 0" }],
    [`/conversations/CHAT/messages?before=x`, { before: "an integer" }],
    [`/conversations/CHAT/messages?after=1&before=3`, { before: "not_with_after" }],
    [`/conversations/CHAT/messages?limit=1.5`, { limit: "an integer" }],
    [`/conversations/CHAT/messages?page=2`, { page: "unknown_field" }],
    [`/events?after=z`, { after: "an integer" }],
  ])("M-241 M-242 GET …%s → %j (paging and its limits)", async (suffix, fields) => {
    const res = await rest("GET", `${P}${suffix.replace("CHAT", chat)}`, { token });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields).toEqual(fields);
  });

  it("/me/conversations checks its query the same way", async () => {
    const res = await rest("GET", "/api/me/conversations?limit=500&cursor=%%%", { token });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields).toEqual({ limit: "at most 200" });
    const cursor = await rest("GET", "/api/me/conversations?cursor=eyJhIjoxfQ", { token });
    expect(cursor.body.error.details.fields).toEqual({ cursor: "bad_cursor" });
  });

  it("POST /events: only type chat; the fields are those of a message plus conversation_id", async () => {
    const before = await snapshot();
    const wrongType = await rest("POST", `${P}/events`, {
      token,
      body: { type: "card", conversation_id: chat, body: "x" },
    });
    expect(wrongType.body.error.details.fields).toEqual({ type: "not_supported" });
    const missing = await rest("POST", `${P}/events`, { token, body: { type: "chat", body: "x" } });
    expect(missing.body.error.details.fields).toEqual({ conversation_id: "required" });
    expect(await snapshot()).toEqual(before);
  });

  it("tRPC refuses the same input with the same fields", async () => {
    const browser = trpcBrowser(hub);
    await browser.mutation("auth.login", { handle: "maintainer", password: "maintainer-pw" });
    const res = await browser.mutation("messages.post", {
      owner: "maintainer",
      slug: "maity",
      conversation_id: chat,
      body: "hi",
      color: "red",
    });
    expect(res.status).toBe(400);
    expect(res.body.error?.data.hubError).toMatchObject({
      code: "invalid",
      details: { fields: { color: "unknown_field" } },
    });
  });
});

describe("every route and the OpenAPI document", () => {
  it("every REST route without credentials answers 401 unauthenticated (operator routes: 401 too), before reading the body", async () => {
    for (const route of restRoutes()) {
      if (route.access === "public") continue;
      const path = route.meta.path.replace(/\{(\w+)\}/g, (_, k: string) =>
        k === "conversation_id"
          ? chat
          : k === "seq"
            ? "1"
            : k === "owner"
              ? "maintainer"
              : k === "slug"
                ? "maity"
                : k === "conversationId"
                  ? chat
                  : "hum-guest",
      );
      const res = await handleRest(
        hub,
        new Request(`${BASE}${path}`, {
          method: route.meta.method,
          body: route.meta.method === "GET" || route.meta.method === "DELETE" ? undefined : "not json",
        }),
        { adminToken: ADMIN },
      );
      expect(res.status, `${route.meta.method} ${route.meta.path}`).toBe(401);
      const body = await res.json();
      // The agent API answers in the protocol's words (B-011), the Maity routes in theirs.
      if (route.style === "agent")
        expect(body).toEqual({ error: "missing or invalid agent token", code: "UNAUTHORIZED" });
      else expect(body.error.code).toBe("unauthenticated");
    }
  });

  it("GET /api/openapi.json is OpenAPI 3.1 with every REST route, generated from the zod schemas", async () => {
    const res = await rest("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(
      [...restRoutes().map((r) => `${r.meta.method} ${r.meta.path}`), "GET /api/agent-api/ws"].sort(),
    );
    // The agent API from the same zod schemas its routes parse with, so the document cannot drift.
    const send = res.body.paths["/api/agent-api/conversations/{conversationId}/messages"].post;
    expect(Object.keys(send.requestBody.content["application/json"].schema.properties)).toEqual([
      "content",
      "metadata",
      "replyToMessageId",
      "card",
      "attachments",
      "attachmentId",
      "clientMessageId",
      "usage",
    ]);
    expect(send.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
    expect(Object.keys(send.responses)).toContain("201");
    const updates = res.body.paths["/api/agent-api/updates"].get;
    expect(updates.parameters.map((p: { name: string }) => p.name)).toEqual(["wait", "cursor", "features"]);
    expect(updates.responses["200"].content["application/json"].schema.required).toEqual(["cursor", "events"]);
    expect(res.body.paths["/api/agent-api/pair"].post.security).toEqual([]);
    const post = res.body.paths["/api/projects/{owner}/{slug}/conversations/{conversation_id}/messages"].post;
    expect(post.operationId).toBe("messages.post");
    expect(post.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      "path:owner",
      "path:slug",
      "path:conversation_id",
      "header:idempotency-key",
    ]);
    const body = post.requestBody.content["application/json"].schema;
    expect(body).toMatchObject({
      additionalProperties: false,
      required: ["body"],
      properties: { body: { type: "string" } },
    });
    expect(Object.keys(post.responses)).toContain("201");
    const create = res.body.paths["/api/projects/{owner}/{slug}/conversations"].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: "idempotency-key", in: "header" }));
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["200", "201"]));
    const list = res.body.paths["/api/projects/{owner}/{slug}/conversations"].get;
    expect(
      list.parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name),
    ).toEqual(["observed", "limit", "cursor", "direction"]);
    const pin = res.body.paths["/api/projects/{owner}/{slug}/conversations/{conversation_id}/pin"].put;
    expect(pin.responses["204"]).toEqual({ description: "No content" });
  });
});
