import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { webhookDeliverySchema } from "@maity/domain";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// Agent protocol §11 "Webhook contract v2" (B-162…B-179), v1.14 visiting (B-165, B-301), v1.15/v1.16
// "History budget" / "A trimmed history says so" (B-175…B-177) and OQ-B-21 as the hub adopts it:
// HMAC-SHA256 signature header, 3 retries with backoff, every message of the agent's rooms delivered.
//
// Not tested here: B-166's `notice` (no memory reports yet), B-168…B-174 (no notes, files or brief
// yet: the body carries empty notes metadata, checked below), B-178 (BayBrain is not a hub part).

const BACKOFF = [50, 50];
const TIMEOUT = 1500;
// The receivers listen on 127.0.0.1, which (against SSRF) only the operator's allow list opens; the
// example names resolve to a public address here, without asking real DNS.
const LOCAL_RECEIVERS = {
  allow: ["127.0.0.1"],
  lookup: async (name: string) => (name.endsWith("example.com") ? [{ address: "93.184.215.14", family: 4 }] : []),
};
const hub = await testHub({
  webhooks: { backoffMs: BACKOFF, timeoutMs: TIMEOUT, ...LOCAL_RECEIVERS },
  limits: { agent: 100_000 },
});
const rest = restClient(hub);
const PROJECT = "/api/projects/maintainer/maity/conversations";
const tokens: Record<string, string> = {};
const receivers = new Set<Receiver>();
afterAll(async () => {
  for (const r of receivers) await r.close();
  await hub.close();
});

// ---- the receiver: a real HTTP server on 127.0.0.1 --------------------------------------------------

type Sender = { id: string; name: string; kind: string; role: string | null; visiting: unknown };
type Turn = {
  id: string;
  senderId: string;
  senderName: string;
  senderType: string;
  content: string;
  createdAt: string;
  replyTo?: unknown;
};
type WebhookBody = {
  event: string;
  deliveryId: string;
  conversationId: string;
  conversation: { id: string; type: string; title: string | null };
  project: Record<string, unknown>;
  message: {
    id: string;
    senderId: string;
    content: string;
    shouldRespond: boolean;
    sender: Sender;
    mentions: string[];
    replyTo: unknown;
  };
  sender: Sender;
  replyTo: unknown;
  participants: { id: string; visiting: unknown }[];
  instructions: string;
  context: Record<string, unknown>;
  you: { id: string; shouldRespond: boolean };
  history: Turn[];
};
type Received = {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: WebhookBody;
  at: number;
  method: string;
  path: string;
};
type Answer = number | "hold";
type Receiver = {
  url: string;
  got: Received[];
  held: ServerResponse[];
  release: (status: number) => void;
  close: () => Promise<void>;
};

/** Starts a receiver; `answer(n)` is the status of the n-th request (0-based), or "hold" to never answer until released. */
async function receiver(answer: (n: number) => Answer = () => 200): Promise<Receiver> {
  const got: Received[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const n = got.length;
      got.push({
        headers: req.headers,
        raw,
        body: JSON.parse(raw.toString("utf8")) as WebhookBody,
        at: Date.now(),
        method: req.method ?? "",
        path: req.url ?? "",
      });
      const status = answer(n);
      if (status === "hold") held.push(res);
      else res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const r: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    held,
    release(status) {
      for (const res of held.splice(0)) if (!res.writableEnded && !res.destroyed) res.writeHead(status).end();
    },
    async close() {
      receivers.delete(r);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  receivers.add(r);
  return r;
}

const sign = (secret: string, raw: Buffer | string): string =>
  `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds (at most `tries` × 25 ms, after letting the sender's round finish). */
async function until(check: () => boolean | Promise<boolean>, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    await hub.webhooks.idle();
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`not reached after ${tries} tries`);
}

/** The agent's delivery rows once none is pending any more. */
async function settled(agentId: string, tries = 200) {
  const rows = () => hub.db.webhookDelivery.findMany({ where: { agentId }, orderBy: { eventSeq: "asc" } });
  await until(async () => (await rows()).every((r) => r.status !== "pending"), tries);
  return rows();
}

// ---- the two surfaces --------------------------------------------------------------------------------

async function agentApi(token: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A human's chat message through the Maity REST route; answers the message (seq, id, sent_at). */
async function say(conversation: string, body: string, extra: Record<string, unknown> = {}, who = "hum-maintainer") {
  const res = await rest("POST", `${PROJECT}/${conversation}/messages`, {
    token: tokens[who],
    body: { body, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; seq: number; sent_at: string; body: string };
}

/** A new agent of maintainer's, a member of maintainer/maity, with its token. */
async function newAgent(handle: string): Promise<{ id: string; token: string }> {
  const agent = await rest("POST", "/api/admin/agents", {
    token: ADMIN,
    body: { owner: "maintainer", handle, description: `Test agent ${handle}.` },
  });
  expect(agent.status).toBe(201);
  const id = agent.body.id as string;
  expect(
    (await rest("POST", "/api/admin/projects/maintainer/maity/members", { token: ADMIN, body: { member_id: id } }))
      .status,
  ).toBe(201);
  const token = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body
    .token as string;
  tokens[id] = token;
  return { id, token };
}

/** The agent's global id of a Maity conversation. */
async function roomOf(token: string, maityId: string): Promise<string> {
  const rooms = (await agentApi(token, "GET", "/conversations")).body.conversations as {
    id: string;
    maity: { id: string };
  }[];
  const room = rooms.find((r) => r.maity.id === maityId);
  if (!room) throw new Error(`no room ${maityId}`);
  return room.id;
}

async function setHook(token: string, url: string, secret: string) {
  const res = await agentApi(token, "POST", "/webhook", { url, secret });
  expect(res.status).toBe(200);
}

const SECRET_A = "secret-of-agent-a-0123456789";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const BODY_KEYS = [
  "event",
  "deliveryId",
  "conversationId",
  "conversation",
  "project",
  "message",
  "sender",
  "replyTo",
  "participants",
  "instructions",
  "instructionsSha256",
  "context",
  "you",
  "history",
];
const maintainer = { id: "hum-maintainer", name: "Maintainer", kind: "user", visiting: null };
const notes = { pinned: [], shelfCount: 0, fileCount: 0 };

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest", "agt-a", "agt-x"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
});

describe("POST / GET / DELETE /api/agent-api/webhook (B-162)", () => {
  it("B-162 sets the webhook: the secret is in the answer only; GET shows the URL without it", async () => {
    const { token } = await newAgent("set-hook");
    const secret = "s3cret-with-16ch";
    const set = await agentApi(token, "POST", "/webhook", { url: "https://hooks.example.com/maity", secret });
    expect(set).toEqual({
      status: 200,
      body: {
        url: "https://hooks.example.com/maity",
        secret,
        signatureHeader: "x-maity-signature",
        createdAt: expect.stringMatching(ISO),
        updatedAt: set.body.createdAt,
      },
    });
    const got = await agentApi(token, "GET", "/webhook");
    expect(got).toEqual({
      status: 200,
      body: {
        url: "https://hooks.example.com/maity",
        signatureHeader: "x-maity-signature",
        createdAt: set.body.createdAt,
        updatedAt: set.body.createdAt,
        deliveries: { pending: 0, failed: 0 },
      },
    });
    expect(JSON.stringify(got.body)).not.toContain(secret);

    // Replaced: a new URL, and without a secret the hub makes one (shown once).
    const again = await agentApi(token, "POST", "/webhook", { url: "http://127.0.0.1:9/other" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      url: "http://127.0.0.1:9/other",
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
      signatureHeader: "x-maity-signature",
      createdAt: set.body.createdAt,
      updatedAt: expect.stringMatching(ISO),
    });
    const after = await agentApi(token, "GET", "/webhook");
    expect(after.body.url).toBe("http://127.0.0.1:9/other");
    expect(after.body).not.toHaveProperty("secret");
    expect(JSON.stringify(after.body)).not.toContain(again.body.secret);
  });

  it.each([
    ["ftp URL", { url: "ftp://hooks.example.com/x", secret: "0123456789abcdef" }, { url: "an http(s) URL" }],
    ["javascript: URL", { url: "javascript:alert(1)" }, { url: "an http(s) URL" }],
    ["not a URL", { url: "hooks.example.com/x" }, { url: "an http(s) URL" }],
    ["url not a string", { url: 42 }, { url: "an http(s) URL" }],
    ["no url", { secret: "0123456789abcdef" }, { url: "required" }],
    ["credentials in the URL", { url: "https://user:pw@hooks.example.com/x" }, { url: "no user name or password" }],
    [
      "url over 2000 characters",
      { url: `https://hooks.example.com/${"a".repeat(2000)}` },
      { url: "at most 2000 characters" },
    ],
    [
      "secret of 15 characters",
      { url: "https://hooks.example.com/x", secret: "0123456789abcde" },
      { secret: "16–200 characters" },
    ],
    [
      "secret of 201 characters",
      { url: "https://hooks.example.com/x", secret: "s".repeat(201) },
      { secret: "16–200 characters" },
    ],
    ["secret not a string", { url: "https://hooks.example.com/x", secret: 1234567890123456 }, { secret: "a string" }],
    [
      "an unknown field",
      { url: "https://hooks.example.com/x", events: ["message.created"] },
      { events: "unknown_field" },
    ],
    [
      "two unknown fields and a bad URL",
      { url: "gopher://x", retries: 3, timeout: 5 },
      { url: "an http(s) URL", retries: "unknown_field", timeout: "unknown_field" },
    ],
  ])("B-162 refuses %s with 400 INVALID_REQUEST naming the field, and writes nothing", async (_, body, fields) => {
    const token = tokens["agt-x"] as string;
    const res = await agentApi(token, "POST", "/webhook", body);
    expect(res).toEqual({
      status: 400,
      body: { error: `invalid input: ${Object.keys(fields).join(", ")}`, code: "INVALID_REQUEST", fields },
    });
    expect(await agentApi(token, "GET", "/webhook")).toEqual({
      status: 404,
      body: { error: "no webhook is set", code: "NOT_FOUND" },
    });
  });

  it.each([
    ["not JSON", "{url: nope"],
    ["truncated JSON", '{"url": "https://hooks.example.com/x"'],
  ])("B-162 a body that is %s answers 400 INVALID_JSON", async (_, body) => {
    const token = tokens["agt-x"] as string;
    expect(await agentApi(token, "POST", "/webhook", body)).toEqual({
      status: 400,
      body: { error: "the body is not valid JSON", code: "INVALID_JSON", fields: { body: "invalid_json" } },
    });
    expect((await agentApi(token, "GET", "/webhook")).status).toBe(404);
  });

  it.each([
    ["http", "http://hooks.example.com/x", "s".repeat(16)],
    ["https", "https://hooks.example.com/x?agent=1", "s".repeat(200)],
  ])("B-162 accepts an %s URL and a secret at the bounds", async (_, url, secret) => {
    const { token } = await newAgent(`bounds-${secret.length}`);
    expect(await agentApi(token, "POST", "/webhook", { url, secret })).toMatchObject({
      status: 200,
      body: { url, secret },
    });
  });

  it("B-010 a human's token cannot set a webhook", async () => {
    expect(
      await agentApi(tokens["hum-maintainer"] as string, "POST", "/webhook", { url: "https://hooks.example.com/x" }),
    ).toEqual({
      status: 401,
      body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" },
    });
  });

  it("B-162 DELETE removes the webhook: 204, GET answers 404, and no message is delivered any more", async () => {
    const { id, token } = await newAgent("unhook");
    const r = await receiver();
    await setHook(token, r.url, "0123456789abcdef");
    await say(id, "first, delivered");
    await until(() => r.got.length === 1);
    expect(await agentApi(token, "DELETE", "/webhook")).toEqual({ status: 204, body: null });
    expect(await agentApi(token, "GET", "/webhook")).toEqual({
      status: 404,
      body: { error: "no webhook is set", code: "NOT_FOUND" },
    });
    await say(id, "second, not delivered");
    await hub.webhooks.idle();
    await sleep(150);
    await hub.webhooks.idle();
    expect(r.got.map((g) => g.body.message.content)).toEqual(["first, delivered"]);
    expect((await hub.db.webhookDelivery.findMany({ where: { agentId: id } })).map((d) => d.status)).toEqual([
      "delivered",
    ]);
    // Deleting again is the same answer.
    expect(await agentApi(token, "DELETE", "/webhook")).toEqual({ status: 204, body: null });
    await r.close();
  });
});

describe("message.created deliveries (B-163 B-164 B-165 B-166 B-167 B-179, OQ-B-21)", () => {
  it("B-163 B-164 B-167 a human's DM is POSTed signed, with the envelope, you.shouldRespond true and the earlier turns", async () => {
    const r = await receiver();
    await setHook(tokens["agt-a"] as string, r.url, SECRET_A);
    const room = await roomOf(tokens["agt-a"] as string, "agt-a");
    const earlier = (
      await rest("GET", `${PROJECT}/agt-a/messages?before=1000&limit=50`, { token: tokens["hum-maintainer"] })
    ).body.items as { id: string; from: string; sent_at: string }[];
    expect(earlier.map((m) => m.from)).toEqual(["hum-maintainer", "agt-a", "hum-maintainer"]);
    const content = "Ship 0.2 today? § é — 😀";
    const sent = await say("agt-a", content);
    await until(() => r.got.length === 1);
    const [got] = r.got as [Received];
    const [row] = await settled("agt-a");

    // The request: POST, JSON, signed with HMAC-SHA256 of the exact bytes (OQ-B-21).
    expect(got.method).toBe("POST");
    expect(got.path).toBe("/hook");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["x-maity-event"]).toBe("message.created");
    expect(got.headers["x-maity-delivery"]).toBe(row?.id);
    expect(got.headers["x-maity-signature"]).toBe(sign(SECRET_A, got.raw));
    expect(got.headers["x-maity-signature"]).not.toBe(sign("another-secret-0123456789", got.raw));
    expect(row).toMatchObject({
      agentId: "agt-a",
      eventSeq: sent.seq,
      status: "delivered",
      attempts: 1,
      lastStatus: 200,
      lastError: null,
    });

    // The body: exactly these keys, these values.
    const body = got.body;
    expect(Object.keys(body)).toEqual(BODY_KEYS);
    // The body is the shape its zod schema says (the one the hub's renderer is typed by).
    expect(webhookDeliverySchema.safeParse(body).success).toBe(true);
    const context = await agentApi(tokens["agt-a"] as string, "GET", `/conversations/${room}/context`);
    expect(context.status).toBe(200);
    const polled = (await agentApi(tokens["agt-a"] as string, "GET", `/conversations/${room}/messages?limit=1`)).body
      .messages[0];
    const { conversationId: _c, cardPayload: _p, reactions: _r, deletedAt: _d, ...eventFields } = polled;
    const message = {
      id: sent.id,
      senderId: "hum-maintainer",
      senderType: "USER",
      content,
      createdAt: sent.sent_at,
      metadata: null,
      sender: { ...maintainer, role: "member" },
      mentions: [],
      shouldRespond: true,
      replyTo: null,
    };
    expect(eventFields).toEqual(message);
    const turn = (m: { id: string; from: string; sent_at: string }, text: string) => ({
      id: m.id,
      senderId: m.from,
      senderName: m.from === "agt-a" ? "maintainer/agent-a" : "Maintainer",
      senderType: m.from === "agt-a" ? "AGENT" : "USER",
      content: text,
      createdAt: m.sent_at,
      replyTo: null,
    });
    const seeded = [
      "Morning! Can you look over the conversations API?",
      "On it. The list shape matches §9.3; I will check the bands next.",
      "How far is the API contract?",
    ];
    expect(body).toEqual({
      event: "message.created",
      deliveryId: row?.id,
      conversationId: room,
      conversation: { id: room, type: "DM", title: null },
      project: { id: "prj-maintainer-maity", name: "Maity", version: 0, notes },
      message,
      sender: message.sender,
      replyTo: null,
      participants: context.body.participants,
      instructions: context.body.instructions,
      instructionsSha256: context.body.instructionsSha256,
      context: context.body,
      you: { id: "agt-a", name: "maintainer/agent-a", isOrchestrator: false, shouldRespond: true },
      history: earlier.map((m, i) => turn(m, seeded[i] as string)),
    });
    expect(context.body.conversation).toEqual({ id: room, type: "DM", title: null });

    // The next message: its history ends with this one; instructions are byte-identical (B-169).
    const next = await say("agt-a", "And the changelog?");
    await until(() => r.got.length === 2);
    const second = (r.got[1] as Received).body;
    expect(second.message).toMatchObject({ id: next.id, content: "And the changelog?", shouldRespond: true });
    expect(second.deliveryId).not.toBe(body.deliveryId);
    expect(second.instructions).toBe(body.instructions);
    expect(second.history).toEqual([
      ...body.history,
      {
        id: sent.id,
        senderId: "hum-maintainer",
        senderName: "Maintainer",
        senderType: "USER",
        content,
        createdAt: sent.sent_at,
        replyTo: null,
      },
    ]);
    expect((r.got[1] as Received).headers["x-maity-signature"]).toBe(sign(SECRET_A, (r.got[1] as Received).raw));
    expect((await agentApi(tokens["agt-a"] as string, "DELETE", "/webhook")).status).toBe(204);
    await r.close();
  });

  it("B-164 B-179 OQ-B-21 a group message goes to every agent in it: shouldRespond true when mentioned, false otherwise; an agent's own message never to itself", async () => {
    const b = await newAgent("agent-b");
    const ra = await receiver();
    const rb = await receiver();
    const secretB = "secret-of-agent-b-9876543210";
    await setHook(tokens["agt-a"] as string, ra.url, SECRET_A);
    await setHook(b.token, rb.url, secretB);
    const created = await rest("POST", PROJECT, {
      token: tokens["hum-maintainer"],
      body: { title: "Webhook room", participants: ["agt-a", b.id] },
    });
    expect(created.status).toBe(201);
    const maityId = created.body.id as string;
    const room = await roomOf(b.token, maityId);
    expect(await roomOf(tokens["agt-a"] as string, maityId)).toBe(room);

    // 1. A human mentions agent-a: both are delivered, only agent-a should respond.
    const ask = await say(maityId, "@agent-a can you check the tag?");
    await until(() => ra.got.length === 1 && rb.got.length === 1);
    const [toA, toB] = [(ra.got[0] as Received).body, (rb.got[0] as Received).body];
    expect((ra.got[0] as Received).headers["x-maity-signature"]).toBe(sign(SECRET_A, (ra.got[0] as Received).raw));
    expect((rb.got[0] as Received).headers["x-maity-signature"]).toBe(sign(secretB, (rb.got[0] as Received).raw));
    expect((rb.got[0] as Received).headers["x-maity-signature"]).not.toBe(sign(SECRET_A, (rb.got[0] as Received).raw));
    for (const body of [toA, toB]) {
      expect(Object.keys(body)).toEqual(BODY_KEYS);
      expect(body.conversationId).toBe(room);
      expect(body.conversation).toEqual({ id: room, type: "GROUP", title: "Webhook room" });
      expect(body.project).toEqual({ id: "prj-maintainer-maity", name: "Maity", version: 0, notes });
      expect(body.message).toMatchObject({
        id: ask.id,
        senderId: "hum-maintainer",
        content: "@agent-a can you check the tag?",
        mentions: ["agt-a"],
        replyTo: null,
      });
      expect(body.sender).toEqual({ ...maintainer, role: "creator" });
      expect(body.participants).toEqual([
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
          id: b.id,
          name: "maintainer/agent-b",
          kind: "agent",
          role: "member",
          description: "Test agent agent-b.",
          visiting: null,
        },
      ]);
      expect(body.history).toEqual([]);
      expect(body.context.participants).toEqual(body.participants);
      expect(body.context.instructions).toBe(body.instructions);
    }
    expect(toA.message.shouldRespond).toBe(true);
    expect(toA.you).toEqual({ id: "agt-a", name: "maintainer/agent-a", isOrchestrator: false, shouldRespond: true });
    expect(toB.message.shouldRespond).toBe(false);
    expect(toB.you).toEqual({ id: b.id, name: "maintainer/agent-b", isOrchestrator: false, shouldRespond: false });
    expect(toA.context).toEqual(
      (await agentApi(tokens["agt-a"] as string, "GET", `/conversations/${room}/context`)).body,
    );
    expect(toB.context).toEqual((await agentApi(b.token, "GET", `/conversations/${room}/context`)).body);

    // 2. A human message addressing nobody: delivered to both, neither should respond.
    const plain = await say(maityId, "Lunch at noon?");
    await until(() => ra.got.length === 2 && rb.got.length === 2);
    expect([(ra.got[1] as Received).body.you.shouldRespond, (rb.got[1] as Received).body.you.shouldRespond]).toEqual([
      false,
      false,
    ]);
    expect((ra.got[1] as Received).body.message).toMatchObject({ id: plain.id, shouldRespond: false, mentions: [] });

    // 3. B-179 agent-a answers through POST /conversations/:id/messages, replying to the question:
    //    agent-b gets it with replyTo (B-166); agent-a gets nothing of its own.
    const answer = await agentApi(tokens["agt-a"] as string, "POST", `/conversations/${room}/messages`, {
      content: "The tag is green.",
      replyToMessageId: ask.id,
    });
    expect(answer.status).toBe(201);
    await until(() => rb.got.length === 3);
    const toB3 = (rb.got[2] as Received).body;
    const replyTo = {
      id: ask.id,
      senderId: "hum-maintainer",
      senderType: "USER",
      preview: "@agent-a can you check the tag?",
    };
    const { conversationId: _c, cardPayload: _p, reactions: _r, deletedAt: _d, ...answerFields } = answer.body;
    expect(toB3.message).toEqual({ ...answerFields, shouldRespond: false });
    expect(toB3.message).toMatchObject({
      id: answer.body.id,
      senderId: "agt-a",
      senderType: "AGENT",
      content: "The tag is green.",
      replyTo,
    });
    expect(toB3.replyTo).toEqual(replyTo);
    expect(toB3.sender).toEqual({
      id: "agt-a",
      name: "maintainer/agent-a",
      kind: "agent",
      role: "member",
      visiting: null,
    });
    expect(toB3.you.shouldRespond).toBe(false);
    expect(toB3.history.map((t) => [t.id, t.senderId, t.content])).toEqual([
      [ask.id, "hum-maintainer", "@agent-a can you check the tag?"],
      [plain.id, "hum-maintainer", "Lunch at noon?"],
    ]);
    const aRows = (await settled("agt-a")).filter((d) => d.eventSeq >= ask.seq);
    expect(aRows.map((d) => [d.eventSeq, d.status])).toEqual([
      [ask.seq, "delivered"],
      [plain.seq, "delivered"],
    ]);
    expect(aRows.some((d) => `evt-${d.eventSeq}` === answer.body.id)).toBe(false);
    await sleep(100);
    expect(ra.got.map((g) => g.body.message.id)).toEqual([ask.id, plain.id]);
    expect((await settled(b.id)).map((d) => [d.status, d.attempts])).toEqual([
      ["delivered", 1],
      ["delivered", 1],
      ["delivered", 1],
    ]);
    for (const token of [tokens["agt-a"] as string, b.token])
      expect((await agentApi(token, "DELETE", "/webhook")).status).toBe(204);
    await ra.close();
    await rb.close();
  });

  it("B-165 v1.14 a visiting agent's message: its sender block and roster entry carry visiting, the others null", async () => {
    const r = await receiver();
    await setHook(tokens["agt-a"] as string, r.url, SECRET_A);
    const release = (await rest("GET", PROJECT, { token: tokens["hum-maintainer"] })).body.items.find(
      (c: { title: string | null }) => c.title === "Release 0.2 go/no-go",
    );
    const room = await roomOf(tokens["agt-x"] as string, release.id);
    const said = await agentApi(tokens["agt-x"] as string, "POST", `/conversations/${room}/messages`, {
      content: "Changelog drafted.",
    });
    expect(said.status).toBe(201);
    await until(() => r.got.length === 1);
    const body = (r.got[0] as Received).body;
    const visiting = { homeBay: "guest", sponsor: { id: "hum-guest", name: "Guest" } };
    expect(body.sender).toEqual({ id: "agt-x", name: "guest/agent-x", kind: "agent", role: "member", visiting });
    expect(body.message.sender).toEqual(body.sender);
    expect(body.participants.map((p) => [p.id, p.visiting])).toEqual([
      ["hum-maintainer", null],
      ["agt-a", null],
      ["agt-x", visiting],
    ]);
    // An agent's unaddressed message routes to nobody (§4), and is delivered all the same (OQ-B-21).
    expect(body.you).toEqual({ id: "agt-a", name: "maintainer/agent-a", isOrchestrator: false, shouldRespond: false });
    expect(body.history.map((t) => [t.senderId, t.content])).toEqual([
      ["hum-maintainer", "@agent-a can we tag today?"],
    ]);
    // agent-x has no webhook: nothing is queued for it.
    expect(await hub.db.webhookDelivery.count({ where: { agentId: "agt-x" } })).toBe(0);
    expect((await agentApi(tokens["agt-a"] as string, "DELETE", "/webhook")).status).toBe(204);
    await r.close();
  });

  it("B-163 the sender's POST answers 201 while the receiver still holds the delivery: the writer never waits", async () => {
    const { id, token } = await newAgent("slow-hook");
    let holding = true;
    const r = await receiver(() => (holding ? "hold" : 200));
    await setHook(token, r.url, "0123456789abcdef");
    await say(id, "one");
    // The delivery is in flight and the receiver does not answer …
    for (let i = 0; i < 200 && r.held.length === 0; i++) await sleep(10);
    expect(r.held.length).toBe(1);
    // … and the next message is written all the same.
    const started = Date.now();
    const second = await rest("POST", `${PROJECT}/${id}/messages`, {
      token: tokens["hum-maintainer"],
      body: { body: "two" },
    });
    expect(second.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(TIMEOUT);
    expect(r.held.length).toBe(1);
    expect(r.held[0]?.writableEnded).toBe(false);
    expect(
      (await hub.db.webhookDelivery.findMany({ where: { agentId: id }, orderBy: { eventSeq: "asc" } })).map(
        (d) => d.status,
      ),
    ).toEqual(["pending", "pending"]);
    holding = false;
    r.release(200);
    const rows = await settled(id);
    expect(rows.map((d) => [d.status, d.attempts, d.lastStatus])).toEqual([
      ["delivered", 1, 200],
      ["delivered", 1, 200],
    ]);
    expect(r.got.map((g) => g.body.message.content)).toEqual(["one", "two"]);
    await r.close();
  });

  it("OQ-B-21 a receiver that never answers times out: retried, then failed, the writer unaffected", async () => {
    const { id, token } = await newAgent("mute-hook");
    const r = await receiver(() => "hold");
    await setHook(token, r.url, "0123456789abcdef");
    const started = Date.now();
    await say(id, "anyone?");
    expect(Date.now() - started).toBeLessThan(TIMEOUT);
    const [row] = await settled(id, 400);
    expect(row).toMatchObject({ status: "failed", attempts: BACKOFF.length + 1, lastStatus: null, deliveredAt: null });
    expect(row?.lastError).toMatch(/time|abort/i);
    expect(r.got.length).toBe(BACKOFF.length + 1);
    await r.close();
  });

  it("OQ-B-21 a receiver answering 500 then 200 gets the same delivery again after the backoff; the row ends delivered", async () => {
    const { id, token } = await newAgent("flaky-hook");
    const secret = "flaky-secret-0123456789";
    const r = await receiver((n) => (n === 0 ? 500 : 200));
    await setHook(token, r.url, secret);
    const sent = await say(id, "retry me");
    const rows = await settled(id);
    expect(rows).toEqual([
      expect.objectContaining({
        agentId: id,
        eventSeq: sent.seq,
        status: "delivered",
        attempts: 2,
        lastStatus: 200,
        lastError: null,
        lockedUntil: null,
        deliveredAt: expect.any(Date),
      }),
    ]);
    expect(r.got.length).toBe(2);
    const [first, second] = r.got as [Received, Received];
    expect(second.headers["x-maity-delivery"]).toBe(first.headers["x-maity-delivery"]);
    expect(second.body.deliveryId).toBe(rows[0]?.id);
    expect(second.body).toEqual(first.body);
    for (const g of r.got) expect(g.headers["x-maity-signature"]).toBe(sign(secret, g.raw));
    expect(second.at - first.at).toBeGreaterThanOrEqual((BACKOFF[0] as number) - 5);
    expect((await agentApi(token, "GET", "/webhook")).body.deliveries).toEqual({ pending: 0, failed: 0 });
    await r.close();
  });

  it("OQ-B-21 a receiver that always fails is tried once and retried after each backoff, then the delivery is failed", async () => {
    const { id, token } = await newAgent("broken-hook");
    const r = await receiver(() => 503);
    await setHook(token, r.url, "0123456789abcdef");
    const sent = await say(id, "you there?");
    const rows = await settled(id);
    expect(rows).toEqual([
      expect.objectContaining({
        agentId: id,
        eventSeq: sent.seq,
        status: "failed",
        attempts: BACKOFF.length + 1,
        lastStatus: 503,
        lastError: "answered 503",
        lockedUntil: null,
        deliveredAt: null,
      }),
    ]);
    expect(r.got.length).toBe(BACKOFF.length + 1);
    for (let i = 1; i < r.got.length; i++)
      expect((r.got[i] as Received).at - (r.got[i - 1] as Received).at).toBeGreaterThanOrEqual(
        (BACKOFF[i - 1] as number) - 5,
      );
    expect(new Set(r.got.map((g) => g.headers["x-maity-delivery"])).size).toBe(1);
    // Failed is final: no further attempt.
    await sleep(200);
    await hub.webhooks.idle();
    expect(r.got.length).toBe(BACKOFF.length + 1);
    expect((await agentApi(token, "GET", "/webhook")).body.deliveries).toEqual({ pending: 0, failed: 1 });
    await r.close();
  });

  it("OQ-B-21 by default a failing delivery is retried 3 times (4 attempts), then failed", async () => {
    const other = await testHub({ webhooks: LOCAL_RECEIVERS });
    const r = await receiver(() => 500);
    try {
      const otherRest = restClient(other);
      expect(
        (
          await otherRest("POST", "/api/admin/humans", {
            token: ADMIN,
            body: { handle: "ann", name: "Ann", password: "a-long-password" },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await otherRest("POST", "/api/admin/projects", {
            token: ADMIN,
            body: { owner: "ann", slug: "lab", name: "Lab" },
          })
        ).status,
      ).toBe(201);
      const agent = (
        await otherRest("POST", "/api/admin/agents", { token: ADMIN, body: { owner: "ann", handle: "agent-q" } })
      ).body;
      expect(
        (
          await otherRest("POST", "/api/admin/projects/ann/lab/members", {
            token: ADMIN,
            body: { member_id: agent.id },
          })
        ).status,
      ).toBe(201);
      const agentToken = (await otherRest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: agent.id } }))
        .body.token;
      const annToken = (await otherRest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-ann" } }))
        .body.token;
      const set = await handleRest(
        other,
        new Request(`${BASE}/api/agent-api/webhook`, {
          method: "POST",
          headers: { authorization: `Bearer ${agentToken}`, "content-type": "application/json" },
          body: JSON.stringify({ url: r.url }),
        }),
      );
      expect(set.status).toBe(200);
      expect(
        (
          await otherRest("POST", `/api/projects/ann/lab/conversations/${agent.id}/messages`, {
            token: annToken,
            body: { body: "hello" },
          })
        ).status,
      ).toBe(201);
      // The default pauses are long: each time the delivery waits, move its next attempt to now.
      let row = await other.db.webhookDelivery.findFirstOrThrow({ where: { agentId: agent.id } });
      for (let i = 0; i < 20 && row.status === "pending"; i++) {
        await other.webhooks.idle();
        row = await other.db.webhookDelivery.findFirstOrThrow({ where: { agentId: agent.id } });
        if (row.status !== "pending") break;
        if (row.attempts > 0)
          await other.db.webhookDelivery.update({ where: { id: row.id }, data: { nextAttemptAt: new Date(0) } });
        other.webhooks.kick();
        await sleep(10);
      }
      expect({ status: row.status, attempts: row.attempts, received: r.got.length }).toEqual({
        status: "failed",
        attempts: 4,
        received: 4,
      });
    } finally {
      await r.close();
      await other.close();
    }
  });
});

describe("the history block (B-175 B-176 B-177)", () => {
  it("B-175 B-176 B-177 over 20 earlier messages: the newest 20, a long one cut, and the omitted entry first", async () => {
    const { id, token } = await newAgent("history-hook");
    const long = Array.from({ length: 7000 }, (_, i) => String.fromCharCode(65 + (i % 26))).join("");
    const sent: { id: string; sent_at: string; body: string }[] = [];
    for (let i = 1; i <= 24; i++) sent.push(await say(id, i === 22 ? long : `Note ${i}`));
    const r = await receiver();
    await setHook(token, r.url, "0123456789abcdef");
    const now = await say(id, "Where are we?");
    await until(() => r.got.length === 1);
    const { history, message } = (r.got[0] as Received).body;
    expect(message.id).toBe(now.id);
    expect(history.length).toBe(21);
    expect(history[0]).toEqual({
      id: "history-omitted",
      senderId: "system",
      senderName: "BayChat",
      senderType: "SYSTEM",
      content: "[4 earlier messages omitted]",
      createdAt: expect.stringMatching(ISO),
    });
    expect(history.slice(1)).toEqual(
      sent.slice(4).map((m, i) => ({
        id: m.id,
        senderId: "hum-maintainer",
        senderName: "Maintainer",
        senderType: "USER",
        content: i + 5 === 22 ? `${long.slice(0, 5971)}…[truncated, 1029 characters]` : `Note ${i + 5}`,
        createdAt: m.sent_at,
        replyTo: null,
      })),
    );
    const tokens = history.reduce((sum, t) => sum + Math.ceil(Array.from(t.content).length / 4), 0);
    expect(tokens).toBeLessThanOrEqual(3000);
    await r.close();
  });

  it("B-175 B-177 the token budget: the newest 3 are kept, the notice is paid for inside ~3,000 tokens", async () => {
    const { id, token } = await newAgent("budget-hook");
    // Six turns of 750 tokens: four would fill 3,000 exactly, the notice then pushes out the fourth.
    const sent: { id: string }[] = [];
    for (let i = 1; i <= 6; i++) sent.push(await say(id, `${i}`.repeat(3000)));
    const r = await receiver();
    await setHook(token, r.url, "0123456789abcdef");
    await say(id, "Summary please.");
    await until(() => r.got.length === 1);
    const { history } = (r.got[0] as Received).body;
    expect(history.map((t) => t.id)).toEqual(["history-omitted", ...sent.slice(3).map((m) => m.id)]);
    expect(history[0]).toMatchObject({
      id: "history-omitted",
      senderId: "system",
      senderName: "BayChat",
      senderType: "SYSTEM",
      content: "[3 earlier messages omitted]",
    });
    expect(history.slice(1).map((t) => t.content)).toEqual(["4".repeat(3000), "5".repeat(3000), "6".repeat(3000)]);
    await r.close();
  });

  it('B-302 B-303 a visitor placed with wake "sponsor" is sent only its sponsor\'s messages', async () => {
    const r = await receiver();
    await setHook(tokens["agt-x"] as string, r.url, "0123456789abcdef");
    // Its sponsor places it with wake "sponsor": the maintainer's mention sends nothing.
    const other = await rest("POST", PROJECT, {
      token: tokens["hum-guest"],
      body: { title: "Sponsor only", participants: ["hum-maintainer"] },
    });
    const placed = await rest("POST", `${PROJECT}/${other.body.id}/participants`, {
      token: tokens["hum-guest"],
      body: { member_id: "agt-x", wake: "sponsor" },
    });
    expect(placed.status).toBe(200);
    await say(other.body.id, "@agent-x from the maintainer");
    const fromGuest = await say(other.body.id, "@agent-x from its sponsor", {}, "hum-guest");
    await until(() => r.got.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.got.map((g) => (g as Received).body.message.id)).toEqual([fromGuest.id]);
    expect((await agentApi(tokens["agt-x"] as string, "DELETE", "/webhook")).status).toBe(204);
    await r.close();
  });

  it("B-175 v1.14 (B-301) a visitor placed in a chat reads its history only from the placement", async () => {
    const created = await rest("POST", PROJECT, {
      token: tokens["hum-maintainer"],
      body: { title: "Before the visit", participants: ["agt-a", "hum-guest"] },
    });
    expect(created.status).toBe(201);
    await say(created.body.id, "Plans we keep among ourselves.");
    // guest, in the chat, brings its own agent (its sponsor, B-300).
    const added = await rest("POST", `${PROJECT}/${created.body.id}/participants`, {
      token: tokens["hum-guest"],
      body: { member_id: "agt-x" },
    });
    expect(added.status).toBe(200);
    const r = await receiver();
    await setHook(tokens["agt-x"] as string, r.url, "0123456789abcdef");
    const welcome = await say(created.body.id, "Welcome aboard.");
    await until(() => r.got.length === 1);
    const body = (r.got[0] as Received).body;
    expect(body.message.id).toBe(welcome.id);
    expect(body.participants.find((p) => p.id === "agt-x")?.visiting).toEqual({
      homeBay: "guest",
      sponsor: { id: "hum-guest", name: "Guest" },
    });
    expect(body.history).toEqual([]);
    expect((await agentApi(tokens["agt-x"] as string, "DELETE", "/webhook")).status).toBe(204);
    await r.close();
  });
});
