import { JSON_TOO_DEEP, TEXT_REFUSED } from "@maity/domain";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub, trpcBrowser } from "./helpers.ts";

// NUL and lone surrogates in any stored or queried string answered 500 (PostgreSQL
// refuses NUL in text and jsonb; tRPC leaked its error text). Now every surface refuses them with
// the field named and writes nothing; and an unexpected error answers the generic 500 on every
// surface, its detail in the server log only. Runs on PGlite and, with TEST_DATABASE_URL, PostgreSQL.

const hub = await testHub({ limits: { agent: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
afterEach(() => {
  vi.restoreAllMocks();
});
const P = "/api/projects/maintainer/maity";
const NUL = "a\u0000b";
const HIGH = "a\ud800b";
const LOW = "a\udc00b";
const BAD = [
  ["NUL", NUL],
  ["a lone high surrogate", HIGH],
  ["a lone low surrogate", LOW],
] as const;
let human = "";
let agent = "";
let chat = "";
let room = "";

beforeAll(async () => {
  const admin = (path: string, body: unknown) => rest("POST", path, { token: ADMIN, body });
  await admin("/api/admin/humans", { handle: "maintainer", name: "Maintainer", password: "maintainer-pw" });
  await admin("/api/admin/humans", { handle: "guest", name: "Guest", password: "guest-pass" });
  await admin("/api/admin/projects", { owner: "maintainer", slug: "maity", name: "Maity" });
  await admin("/api/admin/agents", { owner: "maintainer", handle: "agent-a" });
  for (const member_id of ["hum-guest", "agt-a"])
    await admin("/api/admin/projects/maintainer/maity/members", { member_id });
  human = (await admin("/api/admin/tokens", { member_id: "hum-maintainer" })).body.token;
  agent = (await admin("/api/admin/tokens", { member_id: "agt-a" })).body.token;
  chat = (
    await rest("POST", `${P}/conversations`, {
      token: human,
      body: { title: "Inputs", participants: ["hum-guest", "agt-a"] },
    })
  ).body.id;
  await rest("POST", `${P}/conversations/${chat}/messages`, { token: human, body: { body: "first" } });
  const rooms = (await agentCall("GET", "/conversations")).body.conversations as { id: string; title: string }[];
  room = rooms.find((r) => r.title === "Inputs")?.id ?? "";
  expect(room).not.toBe("");
});

/** Every row the refused requests could have written, and the fields of the one chat they target. */
const snapshot = async () => ({
  humans: await hub.db.human.findMany({
    select: { id: true, displayName: true, passwordHash: true },
    orderBy: { id: "asc" },
  }),
  agents: await hub.db.agent.findMany({
    select: { id: true, handle: true, description: true },
    orderBy: { id: "asc" },
  }),
  projects: await hub.db.project.count(),
  tokens: await hub.db.accessToken.count(),
  sessions: await hub.db.session.count(),
  conversations: await hub.db.conversation.findMany({
    select: { title: true, customRules: true, designatedAgentId: true },
    orderBy: { number: "asc" },
  }),
  events: await hub.db.event.count(),
  redactions: await hub.db.redaction.count(),
  idempotency: await hub.db.idempotencyKey.count(),
  webhooks: await hub.db.webhook.count(),
  links: await hub.db.linkRequest.count(),
});

async function agentCall(method: string, path: string, body?: unknown, token: string | null = agent) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await handleRest(hub, new Request(`${BASE}/api/agent-api${path}`, { method, headers, body: payload }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const restRefusal = (fields: Record<string, string>) => ({
  status: 400,
  body: { error: { code: "invalid", message: expect.any(String), details: { fields } } },
});
const agentRefusal = (fields: Record<string, string>) => ({
  status: 400,
  body: { error: expect.any(String), code: "INVALID_REQUEST", fields },
});

describe("REST: NUL or a lone surrogate in a JSON body → 400, the field named, nothing written", () => {
  const C = () => `${P}/conversations/${chat}`;
  // [route, method, path, body with the bad string in the named field, field]
  const cases: [string, string, () => string, (bad: string) => unknown, string][] = [
    ["message body", "POST", () => `${C()}/messages`, (bad) => ({ body: bad }), "body"],
    [
      "message to_instance",
      "POST",
      () => `${C()}/messages`,
      (bad) => ({ body: "hi", to_instance: bad }),
      "to_instance",
    ],
    ["event body", "POST", () => `${P}/events`, (bad) => ({ type: "chat", conversation_id: chat, body: bad }), "body"],
    [
      "event conversation_id",
      "POST",
      () => `${P}/events`,
      (bad) => ({ type: "chat", conversation_id: bad, body: "hi" }),
      "conversation_id",
    ],
    [
      "group title",
      "POST",
      () => `${P}/conversations`,
      (bad) => ({ title: bad, participants: ["hum-guest"] }),
      "title",
    ],
    ["rename", "PATCH", C, (bad) => ({ title: bad }), "title"],
    ["custom rules", "PATCH", C, (bad) => ({ custom_rules: bad }), "custom_rules"],
    [
      "designated agent",
      "PATCH",
      C,
      (bad) => ({ reply_policy: "DEDICATED", designated_agent_id: bad }),
      "designated_agent_id",
    ],
    ["redaction reason", "POST", () => `${C()}/messages/1/redact`, (bad) => ({ reason: bad }), "reason"],
  ];
  for (const [label, value] of BAD)
    it.each(cases)(`%s with ${label}`, async (_name, method, path, body, field) => {
      const before = await snapshot();
      expect(await rest(method, path(), { token: human, body: body(value) })).toEqual(
        restRefusal({ [field]: TEXT_REFUSED }),
      );
      expect(await snapshot()).toEqual(before);
    });

  const admin: [string, string, (bad: string) => unknown, string][] = [
    ["human name", "/api/admin/humans", (bad) => ({ handle: "new-human", name: bad, password: "long-enough" }), "name"],
    [
      "human password",
      "/api/admin/humans",
      (bad) => ({ handle: "new-human", name: "N", password: `long-enough${bad}` }),
      "password",
    ],
    ["agent name", "/api/admin/agents", (bad) => ({ owner: "maintainer", handle: "new-agent", name: bad }), "name"],
    [
      "agent description",
      "/api/admin/agents",
      (bad) => ({ owner: "maintainer", handle: "new-agent", description: bad }),
      "description",
    ],
    ["project name", "/api/admin/projects", (bad) => ({ owner: "maintainer", slug: "new-project", name: bad }), "name"],
    ["token label", "/api/admin/tokens", (bad) => ({ member_id: "hum-guest", label: bad }), "label"],
    ["revoked token", "/api/admin/tokens/revoke", (bad) => ({ token: `mty_${bad}` }), "token"],
  ];
  for (const [label, value] of BAD)
    it.each(admin)(`operator: %s with ${label}`, async (_name, path, body, field) => {
      const before = await snapshot();
      expect(await rest("POST", path, { token: ADMIN, body: body(value) })).toEqual(
        restRefusal({ [field]: TEXT_REFUSED }),
      );
      expect(await snapshot()).toEqual(before);
    });
});

describe("REST: NUL or a lone surrogate in ids in the path and query strings", () => {
  it("a NUL conversation id in the path → 400 conversation_id named, on every conversation route", async () => {
    const before = await snapshot();
    const C = `${P}/conversations/a%00b`;
    const routes: [string, string, unknown][] = [
      ["GET", C, undefined],
      ["PATCH", C, { title: "x" }],
      ["GET", `${C}/messages`, undefined],
      ["POST", `${C}/messages`, { body: "hi" }],
      ["PUT", `${C}/pin`, undefined],
      ["POST", `${C}/participants`, { member_id: "hum-guest" }],
    ];
    for (const [method, path, body] of routes) {
      const res = await rest(method, path, { token: human, body });
      expect(res, `${method} ${path}`).toEqual(restRefusal({ conversation_id: TEXT_REFUSED }));
    }
    expect(await snapshot()).toEqual(before);
  });

  it("a NUL participant id, link code or message seq in the path → 400, the param named", async () => {
    const C = `${P}/conversations/${chat}`;
    expect(await rest("DELETE", `${C}/participants/hum-guest%00`, { token: human })).toEqual(
      restRefusal({ member_id: TEXT_REFUSED }),
    );
    expect(await rest("GET", "/api/links/a%00b", { token: human })).toEqual(restRefusal({ code: TEXT_REFUSED }));
    expect(await rest("POST", `${C}/messages/1%00/redact`, { token: human, body: {} })).toEqual(
      restRefusal({ seq: TEXT_REFUSED }),
    );
  });

  it("percent-encoding that decodes to no text (a lone surrogate's bytes, %ZZ) → 400 named, not 500", async () => {
    for (const id of ["%ED%A0%80", "%ZZ", "%C0"]) {
      const res = await rest("GET", `${P}/conversations/${id}`, { token: human });
      expect(res, id).toEqual(restRefusal({ conversation_id: "malformed_percent_encoding" }));
    }
  });

  it("a NUL in a query string → 400 named", async () => {
    expect(await rest("GET", `${P}/conversations?cursor=a%00b`, { token: human })).toEqual(
      restRefusal({ cursor: TEXT_REFUSED }),
    );
    expect(await rest("GET", "/api/me/conversations?cursor=%00", { token: human })).toEqual(
      restRefusal({ cursor: TEXT_REFUSED }),
    );
  });

  it("a NUL Idempotency-Key cannot arrive: HTTP refuses it before the hub", () => {
    expect(() => new Headers({ "idempotency-key": NUL })).toThrow();
  });
});

describe("tRPC: NUL or a lone surrogate refused as invalid with the field named, never PostgreSQL's text", () => {
  it("auth.login with a NUL or lone-surrogate handle or password → BAD_REQUEST, the field named", async () => {
    const trpc = trpcBrowser(hub);
    for (const [label, value] of BAD) {
      for (const input of [
        { handle: value, password: "maintainer-pw" },
        { handle: "maintainer", password: value },
      ]) {
        const field = input.handle === value ? "handle" : "password";
        const res = await trpc.mutation("auth.login", input);
        expect(res.status, `${label} ${field}`).toBe(400);
        expect(res.body.error?.data.hubError).toMatchObject({
          code: "invalid",
          details: { fields: { [field]: TEXT_REFUSED } },
        });
        expect(JSON.stringify(res.body)).not.toMatch(/UTF8|byte sequence|encoding/i);
      }
    }
  });

  it("messages.post, conversations.update and conversations.create → BAD_REQUEST, nothing written", async () => {
    const trpc = trpcBrowser(hub);
    expect((await trpc.mutation("auth.login", { handle: "maintainer", password: "maintainer-pw" })).status).toBe(200);
    const ref = { owner: "maintainer", slug: "maity" };
    for (const [label, value] of BAD) {
      const before = await snapshot();
      const calls: [string, unknown, string][] = [
        ["messages.post", { ...ref, conversation_id: chat, body: value }, "body"],
        ["conversations.update", { ...ref, conversation_id: chat, custom_rules: value }, "custom_rules"],
        ["conversations.update", { ...ref, conversation_id: chat, title: value }, "title"],
        ["conversations.create", { ...ref, title: value, participants: ["hum-guest"] }, "title"],
        ["messages.post", { ...ref, conversation_id: value, body: "hi" }, "conversation_id"],
      ];
      for (const [name, input, field] of calls) {
        const res = await trpc.mutation(name, input);
        expect(res.status, `${name} ${field} ${label}`).toBe(400);
        expect(res.body.error?.data.hubError).toMatchObject({
          code: "invalid",
          details: { fields: { [field]: TEXT_REFUSED } },
        });
      }
      expect(await snapshot()).toEqual(before);
    }
  });
});

describe("agent API: NUL or a lone surrogate → INVALID_REQUEST with the field named, nothing written", () => {
  const cases: [string, (bad: string) => unknown, string][] = [
    ["content", (bad) => ({ content: bad }), "content"],
    ["a metadata value", (bad) => ({ content: "hi", metadata: { note: bad } }), "metadata.note"],
    ["a nested metadata value", (bad) => ({ content: "hi", metadata: { a: { b: ["ok", bad] } } }), "metadata.a.b.1"],
    ["a metadata key", (bad) => ({ content: "hi", metadata: { a: { [bad]: 1 } } }), "metadata.a"],
    ["metadata.type", (bad) => ({ content: "hi", metadata: { type: bad } }), "metadata.type"],
    ["replyToMessageId", (bad) => ({ content: "hi", replyToMessageId: bad }), "replyToMessageId"],
    ["clientMessageId", (bad) => ({ content: "hi", clientMessageId: bad }), "clientMessageId"],
  ];
  for (const [label, value] of BAD)
    it.each(cases)(`send: %s with ${label}`, async (_name, body, field) => {
      const before = await snapshot();
      expect(await agentCall("POST", `/conversations/${room}/messages`, body(value))).toEqual(
        agentRefusal({ [field]: TEXT_REFUSED }),
      );
      expect(await snapshot()).toEqual(before);
    });

  it("metadata nested 5,000 levels deep (a stack overflow, 500) → INVALID_REQUEST fields.metadata", async () => {
    const before = await snapshot();
    const body = `{"content":"hi","metadata":{"a":${"[".repeat(5000)}1${"]".repeat(5000)}}}`;
    const res = await handleRest(
      hub,
      new Request(`${BASE}/api/agent-api/conversations/${room}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${agent}`, "content-type": "application/json" },
        body,
      }),
    );
    expect({ status: res.status, body: await res.json() }).toEqual(agentRefusal({ metadata: JSON_TOO_DEEP }));
    expect(await snapshot()).toEqual(before);
  });

  it("webhook url and secret, pairing code, link label, link secret → INVALID_REQUEST named", async () => {
    const before = await snapshot();
    for (const [, value] of BAD) {
      const url = `https://example.com/${value}`;
      expect(await agentCall("POST", "/webhook", { url })).toEqual(agentRefusal({ url: TEXT_REFUSED }));
      expect(
        await agentCall("POST", "/webhook", { url: "https://example.com/h", secret: `${"s".repeat(16)}${value}` }),
      ).toEqual(agentRefusal({ secret: TEXT_REFUSED }));
      expect(await agentCall("POST", "/pair", { code: value }, null)).toEqual(agentRefusal({ code: TEXT_REFUSED }));
      expect(await agentCall("POST", "/link", { label: value }, null)).toEqual(agentRefusal({ label: TEXT_REFUSED }));
      expect(await agentCall("POST", "/link/lnk-abc/poll", { secret: value }, null)).toEqual(
        agentRefusal({ secret: TEXT_REFUSED }),
      );
    }
    expect(await snapshot()).toEqual(before);
  });

  it("a NUL cursor in the query → INVALID_REQUEST cursor named", async () => {
    expect(await agentCall("GET", `/conversations/${room}/messages?cursor=m1%00`)).toEqual(
      agentRefusal({ cursor: TEXT_REFUSED }),
    );
    expect(await agentCall("GET", "/updates?wait=0&cursor=u1%00")).toEqual(agentRefusal({ cursor: TEXT_REFUSED }));
  });

  it("a room id of NUL answers like an unknown room (hidden = missing); undecodable bytes 400 naming the path; never 500", async () => {
    const before = await snapshot();
    for (const id of ["%ED%A0%80", "%ZZ"])
      expect(await agentCall("POST", `/conversations/${id}/messages`, { content: "hi" }), id).toMatchObject({
        status: 400,
        body: { code: "INVALID_REQUEST", fields: { path: expect.any(String) } },
      });
    for (const id of ["a%00b", `${room}%00`]) {
      expect(await agentCall("POST", `/conversations/${id}/messages`, { content: "hi" }), id).toMatchObject({
        status: 404,
        body: { code: "NOT_FOUND" },
      });
      expect(await agentCall("POST", `/conversations/${id}/typing`), id).toMatchObject({
        status: 404,
        body: { code: "NOT_FOUND" },
      });
      expect(await agentCall("GET", `/conversations/${id}/context`), id).toMatchObject({
        status: 403,
        body: { code: "NOT_PARTICIPANT" },
      });
      expect(await agentCall("GET", `/conversations/${id}/messages`), id).toMatchObject({
        status: 403,
        body: { code: "NOT_PARTICIPANT" },
      });
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("an unexpected database error answers the generic 500 on every surface, the detail logged", () => {
  /** A database error the hub did not expect: PostgreSQL's (or PGlite's) own text in its message. */
  const failingQuery = () => hub.db.$queryRawUnsafe("SELECT * FROM no_such_table_issue13");
  const leaks = /no_such_table|relation|does not exist|prisma|invocation/i;

  it("REST: {error: {code: internal, message: internal error}}", async () => {
    vi.spyOn(hub.messages, "post").mockImplementation(failingQuery as never);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await rest("POST", `${P}/conversations/${chat}/messages`, { token: human, body: { body: "hi" } });
    expect(res).toEqual({ status: 500, body: { error: { code: "internal", message: "internal error", details: {} } } });
    expect(JSON.stringify(res.body)).not.toMatch(leaks);
    expect(log).toHaveBeenCalled();
  });

  it("tRPC: INTERNAL_SERVER_ERROR, message internal error, no stack, no database text", async () => {
    const trpc = trpcBrowser(hub);
    expect((await trpc.mutation("auth.login", { handle: "maintainer", password: "maintainer-pw" })).status).toBe(200);
    vi.spyOn(hub.messages, "post").mockImplementation(failingQuery as never);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await trpc.mutation("messages.post", {
      owner: "maintainer",
      slug: "maity",
      conversation_id: chat,
      body: "hi",
    });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({
      message: "internal error",
      data: { code: "INTERNAL_SERVER_ERROR", hubError: null },
    });
    expect(res.body.error?.data).not.toHaveProperty("stack");
    expect(JSON.stringify(res.body)).not.toMatch(leaks);
    expect(log).toHaveBeenCalled();
  });

  it("agent API: {error: internal error, code: INTERNAL}", async () => {
    vi.spyOn(hub.agents, "send").mockImplementation(failingQuery as never);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await agentCall("POST", `/conversations/${room}/messages`, { content: "hi" });
    expect(res).toEqual({ status: 500, body: { error: "internal error", code: "INTERNAL" } });
    expect(log).toHaveBeenCalled();
  });
});
