import { encodeHistoryCursor, RESERVED_MESSAGE_TYPES } from "@maity/domain";
import { type BusMessage, type Hub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, createWithVisitors, restClient, testHub } from "./helpers.ts";

// Agent protocol (004) reading and speaking over /api/agent-api: the poll of §5 (since, history,
// message enrichment, B-095…B-100), the envelope in every poll (§3, B-037, B-038), sending and
// typing (§7, B-114…B-121), replyTo (§11, B-122…B-126), reserved metadata types (v1.17, OQ-B-13,
// OQ-B-14), visiting senders (v1.14), delivered_at of direct messages (§9.1 M-055/M-056) and the
// agent budget (B-360, B-141). Every room is made for its test; the demo seed only gives people.

// The agent budget is the rate-limit test's subject, on a hub of its own with the defaults; here it
// is out of the way so the other tests can call as often as they need.
const hub = await testHub({ limits: { agent: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const published: BusMessage[] = [];
const unsubscribe = hub.bus.subscribe((message) => published.push(message));
afterAll(() => unsubscribe());

const P = "/api/projects/maintainer/maity";
const EPOCH = new Date(0).toISOString();
const tokens: Record<string, string> = {};
/** A second agent of maintainer's, made in beforeAll: not a visitor in maintainer/maity. */
let agentB = "";
function tok(id: string): string {
  const token = tokens[id];
  if (!token) throw new Error(`no token for ${id}`);
  return token;
}

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "agt-x", "hum-maintainer", "hum-guest"]) {
    const res = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } });
    expect(res.status).toBe(201);
    tokens[id] = res.body.token;
  }
  const made = await rest("POST", "/api/admin/agents", {
    token: ADMIN,
    body: { owner: "maintainer", handle: "agent-b", description: "Joins late." },
  });
  expect(made.status).toBe(201);
  agentB = made.body.id;
  expect(
    (
      await rest("POST", `${P.replace("/api/projects", "/api/admin/projects")}/members`, {
        token: ADMIN,
        body: { member_id: agentB },
      })
    ).status,
  ).toBe(201);
  tokens[agentB] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: agentB } })).body.token;
});

// ---- calling ------------------------------------------------------------------------------------

type CallOptions = { body?: unknown; raw?: string; target?: Hub };
async function callRaw(token: string | null, method: string, path: string, options: CallOptions = {}) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers["content-type"] = "application/json";
  const res = await handleRest(
    options.target ?? hub,
    new Request(`${BASE}/api/agent-api${path}`, { method, headers, body: payload }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}
async function call(token: string | null, method: string, path: string, options: CallOptions = {}) {
  const { status, body } = await callRaw(token, method, path, options);
  return { status, body };
}
const poll = (who: string, key: string, query = "") => call(tok(who), "GET", `/conversations/${key}/messages${query}`);
const since = (iso: string, extra = "") => `?since=${encodeURIComponent(iso)}${extra}`;
const contextOf = (who: string, key: string) => call(tok(who), "GET", `/conversations/${key}/context`);
const send = (who: string, key: string, body: unknown) =>
  call(tok(who), "POST", `/conversations/${key}/messages`, { body });
const typing = (who: string, key: string) => call(tok(who), "POST", `/conversations/${key}/typing`);

/** A small gap between writes, so each message has its own millisecond and `since` is unambiguous. */
const gap = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A human writes over Maity REST; answers the Maity message (seq, sent_at, …). */
async function say(who: string, chat: string, body: string, extra: Record<string, unknown> = {}) {
  const res = await rest("POST", `${P}/conversations/${chat}/messages`, { token: tok(who), body: { body, ...extra } });
  expect(res.status).toBe(201);
  await gap();
  return res.body as { id: string; seq: number; sent_at: string; body: string };
}
/** An agent writes over the agent API; answers the agent-shaped message. */
async function speak(who: string, key: string, body: Record<string, unknown>) {
  const res = await send(who, key, body);
  expect(res.status).toBe(201);
  await gap();
  return res.body as { id: string; createdAt: string; content: string };
}
/** A group chat made by `creator` over Maity REST: its Maity id and its global id (the agent API's). */
async function createChat(creator: string, title: string, participants: string[]) {
  // guest's agent-x is a visitor here: guest places it (B-300).
  const res = await createWithVisitors(rest, P, tok, creator, { title, participants });
  expect(res.status).toBe(201);
  const cnv = res.body.id as string;
  const row = await hub.db.conversation.findFirstOrThrow({ where: { publicId: cnv }, select: { id: true } });
  return { cnv, key: row.id };
}
const addTo = async (who: string, cnv: string, memberId: string) =>
  expect(
    (await rest("POST", `${P}/conversations/${cnv}/participants`, { token: tok(who), body: { member_id: memberId } }))
      .status,
  ).toBe(200);
const removeFrom = async (who: string, cnv: string, memberId: string) =>
  expect((await rest("DELETE", `${P}/conversations/${cnv}/participants/${memberId}`, { token: tok(who) })).status).toBe(
    200,
  );
/** The direct conversation of an agent in maintainer/maity, by its global id. */
async function dmKey(agentId: string): Promise<string> {
  return (
    await hub.db.conversation.findFirstOrThrow({ where: { publicId: agentId, kind: "direct" }, select: { id: true } })
  ).id;
}
/** Everything the log holds for a conversation (messages and conversation events). */
const logSize = (key: string) => hub.db.event.count({ where: { conversationId: key } });
const seqOf = (id: string) => Number(id.slice("evt-".length));

// ---- the expected shapes -----------------------------------------------------------------------

type Sender = {
  id: string;
  name: string;
  kind: "user" | "agent";
  role: string | null;
  visiting: { homeBay: string; sponsor: { id: string; name: string } } | null;
};
const MAINTAINER = (role: string | null): Sender => ({
  id: "hum-maintainer",
  name: "Maintainer",
  kind: "user",
  role,
  visiting: null,
});
const GUEST = (role: string | null): Sender => ({ id: "hum-guest", name: "Guest", kind: "user", role, visiting: null });
const AGENT_A = (role: string | null): Sender => ({
  id: "agt-a",
  name: "maintainer/agent-a",
  kind: "agent",
  role,
  visiting: null,
});
// v1.14: agent-x belongs to the guest's Bay, so in maintainer's project it is a visitor.
const AGENT_X = (role: string | null): Sender => ({
  id: "agt-x",
  name: "guest/agent-x",
  kind: "agent",
  role,
  visiting: { homeBay: "guest", sponsor: { id: "hum-guest", name: "Guest" } },
});
type ReplyTo = { id: string; senderId: string; senderType: "USER" | "AGENT"; preview: string };

/** The full REST message (B-097, B-098, B-099): every key, with its value. */
function message(p: {
  id: string;
  createdAt: string;
  sender: Sender;
  key: string;
  content: string;
  metadata?: Record<string, unknown> | null;
  mentions?: string[];
  shouldRespond?: boolean;
  replyTo?: ReplyTo | null;
  deletedAt?: string | null;
}) {
  return {
    id: p.id,
    senderId: p.sender.id,
    senderType: p.sender.kind === "agent" ? "AGENT" : "USER",
    content: p.content,
    createdAt: p.createdAt,
    metadata: p.metadata ?? null,
    sender: p.sender,
    mentions: p.mentions ?? [],
    shouldRespond: p.shouldRespond ?? false,
    replyTo: p.replyTo ?? null,
    conversationId: p.key,
    cardPayload: null,
    reactions: [],
    deletedAt: p.deletedAt ?? null,
  };
}

const NOT_PARTICIPANT = {
  status: 403,
  body: { error: "you are not a participant of this conversation", code: "NOT_PARTICIPANT" },
};
const NOT_FOUND = { status: 404, body: { error: "conversation not found", code: "NOT_FOUND" } };
const UNAUTHORIZED = { status: 401, body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" } };
const INVALID_REPLY_TARGET = {
  status: 400,
  body: {
    error: "replyToMessageId names no message of this conversation",
    code: "INVALID_REPLY_TARGET",
    fields: { replyToMessageId: "not_in_conversation" },
  },
};
const invalid = (fields: Record<string, string>, error = `invalid input: ${Object.keys(fields).join(", ")}`) => ({
  status: 400,
  body: { error, code: "INVALID_REQUEST", fields },
});
/** A key of the global id's form that names no conversation. */
const UNKNOWN_KEY = "cm00000000000000000000000";

// ---- §5 reading the room --------------------------------------------------------------------------

describe("GET /api/agent-api/conversations/:id/messages?since= — the forward poll (§5)", () => {
  it("B-095 B-097 B-098 B-099 B-086 B-087 B-063 B-037 v1.14: newer than since, ascending, each message in the full shape with this reader's verdict, the envelope as context", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Since", ["hum-guest", "agt-a", "agt-x"]);
    const m1 = await say("hum-maintainer", cnv, "@agent-a list the blockers, please");
    // @Maintainer is a person: Maity resolves it, the agent-facing mentions hold agents only (B-086).
    const m2 = await say("hum-guest", cnv, "@Maintainer please ask @agent-x for the changelog");
    const m3 = await speak("agt-a", key, {
      content: "No blockers. @agent-x over to you",
      metadata: { source: "ci", checks: 3 },
      replyToMessageId: m1.id,
    });
    const m4 = await speak("agt-x", key, { content: "Changelog drafted." });
    // A human naming an agent without @ addresses it: metadata.addressedAgents (B-061, B-063).
    const m5 = await say("hum-maintainer", cnv, "agent-x, thanks. Ship it");

    const replyToM1: ReplyTo = { id: m1.id, senderId: "hum-maintainer", senderType: "USER", preview: m1.body };
    const forA = [
      message({
        id: m1.id,
        createdAt: m1.sent_at,
        sender: MAINTAINER("creator"),
        key,
        content: m1.body,
        mentions: ["agt-a"],
        shouldRespond: true,
      }),
      message({
        id: m2.id,
        createdAt: m2.sent_at,
        sender: GUEST("member"),
        key,
        content: m2.body,
        mentions: ["agt-x"],
      }),
      message({
        id: m3.id,
        createdAt: m3.createdAt,
        sender: AGENT_A("member"),
        key,
        content: "No blockers. @agent-x over to you",
        metadata: { source: "ci", checks: 3 },
        mentions: ["agt-x"],
        replyTo: replyToM1,
      }),
      message({ id: m4.id, createdAt: m4.createdAt, sender: AGENT_X("member"), key, content: "Changelog drafted." }),
      message({
        id: m5.id,
        createdAt: m5.sent_at,
        sender: MAINTAINER("creator"),
        key,
        content: m5.body,
        metadata: { addressedAgents: ["agt-x"] },
      }),
    ];
    const contextA = await contextOf("agt-a", key);
    expect(contextA.status).toBe(200);
    expect(await poll("agt-a", key, since(EPOCH))).toEqual({
      status: 200,
      body: { messages: forA, nextCursor: null, context: contextA.body },
    });
    // Only newer than since: the message at since itself is not repeated.
    expect(await poll("agt-a", key, since(m2.sent_at))).toEqual({
      status: 200,
      body: { messages: forA.slice(2), nextCursor: null, context: contextA.body },
    });
    expect(await poll("agt-a", key, since(m5.sent_at))).toEqual({
      status: 200,
      body: { messages: [], nextCursor: null, context: contextA.body },
    });
    // A client pages forward by limit, taking the last createdAt as its next since.
    expect((await poll("agt-a", key, since(EPOCH, "&limit=2"))).body.messages).toEqual(forA.slice(0, 2));
    expect((await poll("agt-a", key, since(m2.sent_at, "&limit=2"))).body.messages).toEqual(forA.slice(2, 4));
    // The same instant written with an offset is the same since.
    const plusTwo = new Date(Date.parse(m2.sent_at) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    expect((await poll("agt-a", key, since(plusTwo))).body.messages).toEqual(forA.slice(2));

    // Another reader gets its own verdicts: mentioned by a human and by an agent (B-088), named (B-061); never its own (B-071).
    const contextX = await contextOf("agt-x", key);
    expect(await poll("agt-x", key, since(m1.sent_at))).toEqual({
      status: 200,
      body: {
        messages: [
          { ...(forA[1] as object), shouldRespond: true },
          { ...(forA[2] as object), shouldRespond: true },
          forA[3],
          { ...(forA[4] as object), shouldRespond: true },
        ],
        nextCursor: null,
        context: contextX.body,
      },
    });
  });

  it("B-095 B-041 an agent added later gets nothing from before its join with since — and all of it in history mode (§9.2 history)", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Window", ["hum-guest", "agt-a"]);
    const w1 = await say("hum-maintainer", cnv, "before the newcomer, one");
    const w2 = await say("hum-maintainer", cnv, "before the newcomer, two");
    // agent-b is maintainer's own agent: a member of the room's Bay, not a visitor.
    await addTo("hum-maintainer", cnv, agentB);
    await gap();
    const w3 = await say("hum-maintainer", cnv, "after the newcomer came");
    const as = (m: typeof w1) =>
      message({ id: m.id, createdAt: m.sent_at, sender: MAINTAINER("creator"), key, content: m.body });
    // B-041: the envelope is built fresh — the newcomer is on the roster now.
    const context = await contextOf(agentB, key);
    expect(context.body.participants.map((p: { id: string; visiting: unknown }) => [p.id, p.visiting])).toEqual([
      ["hum-maintainer", null],
      ["hum-guest", null],
      ["agt-a", null],
      [agentB, null],
    ]);
    expect(await poll(agentB, key, since(EPOCH))).toEqual({
      status: 200,
      body: { messages: [as(w3)], nextCursor: null, context: context.body },
    });
    expect(await poll(agentB, key)).toEqual({
      status: 200,
      body: { messages: [as(w3), as(w2), as(w1)], nextCursor: null, context: context.body },
    });
    // The agent that was there from the start reads all three with since.
    expect((await poll("agt-a", key, since(EPOCH))).body.messages.map((m: { id: string }) => m.id)).toEqual([
      w1.id,
      w2.id,
      w3.id,
    ]);
  });

  it("v1.14 B-301 a visitor placed later sees the room from its placement only — with since and in history mode (no history was shared)", async () => {
    // agent-x belongs to the guest's Bay: in maintainer/maity it is a visitor, and the guest, who
    // brought it, places it here.
    const { cnv, key } = await createChat("hum-guest", "Visitor window", ["hum-maintainer", "agt-a"]);
    await say("hum-guest", cnv, "before the visitor, one");
    await say("hum-maintainer", cnv, "before the visitor, two");
    await addTo("hum-guest", cnv, "agt-x");
    await gap();
    const v3 = await say("hum-guest", cnv, "after the visitor came");
    const context = await contextOf("agt-x", key);
    expect(context.body.participants.find((p: { id: string }) => p.id === "agt-x")?.visiting).toEqual({
      homeBay: "guest",
      sponsor: { id: "hum-guest", name: "Guest" },
    });
    const expected = [message({ id: v3.id, createdAt: v3.sent_at, sender: GUEST("creator"), key, content: v3.body })];
    expect(await poll("agt-x", key, since(EPOCH))).toEqual({
      status: 200,
      body: { messages: expected, nextCursor: null, context: context.body },
    });
    expect(await poll("agt-x", key)).toEqual({
      status: 200,
      body: { messages: expected, nextCursor: null, context: context.body },
    });
  });

  it("§9.2 Read and unread: the forward poll moves the agent's read marker; history reads mark nothing", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Marker", ["hum-guest", "agt-a"]);
    const first = await say("hum-maintainer", cnv, "first for the marker");
    const second = await say("hum-maintainer", cnv, "second for the marker");
    const unread = async () =>
      (await rest("GET", `${P}/conversations?limit=200`, { token: tok("agt-a") })).body.items.find(
        (i: { id: string }) => i.id === cnv,
      )?.unread;
    expect(await unread()).toBe(2);
    expect((await poll("agt-a", key)).body.messages.length).toBe(2);
    expect(await unread()).toBe(2);
    expect((await poll("agt-a", key, since(EPOCH))).body.messages.map((m: { id: string }) => m.id)).toEqual([
      first.id,
      second.id,
    ]);
    expect(await unread()).toBe(0);
  });

  it("refuses a since that is not an ISO 8601 timestamp, a bad limit and unknown query fields, naming each", async () => {
    const { key } = await createChat("hum-maintainer", "Bad queries", ["hum-guest", "agt-a"]);
    expect(await poll("agt-a", key, "?since=yesterday")).toEqual(invalid({ since: "an ISO 8601 timestamp" }));
    expect(await poll("agt-a", key, "?limit=0")).toEqual(invalid({ limit: "an integer 1–200" }));
    expect(await poll("agt-a", key, "?limit=201")).toEqual(invalid({ limit: "an integer 1–200" }));
    expect(await poll("agt-a", key, "?after=3")).toEqual(invalid({ after: "unknown_field" }));
  });
});

describe("GET /api/agent-api/conversations/:id/messages without since — older history (§5, B-096)", () => {
  it("B-096 pages newest first with nextCursor, back to the chat's first message, then null; the envelope rides along (B-037)", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "History", ["hum-guest", "agt-a"]);
    const h1 = await say("hum-maintainer", cnv, "h1");
    const h2 = await say("hum-maintainer", cnv, "h2");
    const h3 = await speak("agt-a", key, { content: "h3 from the agent" });
    const h4 = await say("hum-maintainer", cnv, "h4");
    const h5 = await say("hum-maintainer", cnv, "h5");
    const human = (m: typeof h1) =>
      message({ id: m.id, createdAt: m.sent_at, sender: MAINTAINER("creator"), key, content: m.body });
    const agent = message({
      id: h3.id,
      createdAt: h3.createdAt,
      sender: AGENT_A("member"),
      key,
      content: "h3 from the agent",
    });
    const context = (await contextOf("agt-a", key)).body;

    const page1 = await poll("agt-a", key, "?limit=2");
    expect(page1).toEqual({
      status: 200,
      body: { messages: [human(h5), human(h4)], nextCursor: encodeHistoryCursor(seqOf(h4.id)), context },
    });
    const page2 = await poll("agt-a", key, `?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2).toEqual({
      status: 200,
      body: { messages: [agent, human(h2)], nextCursor: encodeHistoryCursor(seqOf(h2.id)), context },
    });
    const page3 = await poll("agt-a", key, `?limit=2&cursor=${page2.body.nextCursor}`);
    expect(page3).toEqual({ status: 200, body: { messages: [human(h1)], nextCursor: null, context } });
    // A page that ends exactly at the first message says so too.
    expect((await poll("agt-a", key, "?limit=5")).body).toEqual({
      messages: [human(h5), human(h4), agent, human(h2), human(h1)],
      nextCursor: null,
      context,
    });
  });

  it("B-096 a cursor it never gave out, and since with cursor together, are refused with the field named", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Cursors", ["hum-guest", "agt-a"]);
    await say("hum-maintainer", cnv, "one");
    await say("hum-maintainer", cnv, "two");
    const cursor = (await poll("agt-a", key, "?limit=1")).body.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const bad = invalid({ cursor: "bad_cursor" }, "the cursor is not one this route gave out");
    for (const c of ["zzz", "m0", "u1f", "m", "M1"]) expect(await poll("agt-a", key, `?cursor=${c}`)).toEqual(bad);
    expect(await poll("agt-a", key, `?cursor=${"m".repeat(41)}`)).toEqual(
      invalid({ cursor: "a cursor this route gave out" }),
    );
    expect(await poll("agt-a", key, since(EPOCH, `&cursor=${cursor}`))).toEqual(
      invalid({ cursor: "not_with_since" }, "since and cursor together are invalid"),
    );
  });
});

describe("the message an agent reads (§5 enrichment, §11 replyTo)", () => {
  it("B-098 a sender who left keeps its name with role null; v1.14 a visitor stays marked", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Leavers", ["hum-guest", "agt-a", "agt-x"]);
    const g = await say("hum-guest", cnv, "I am off for the day");
    const x = await speak("agt-x", key, { content: "Leaving too." });
    await removeFrom("hum-guest", cnv, "hum-guest");
    await removeFrom("hum-maintainer", cnv, "agt-x");
    const m = await say("hum-maintainer", cnv, "Just us now");
    const expected = [
      message({ id: m.id, createdAt: m.sent_at, sender: MAINTAINER("creator"), key, content: "Just us now" }),
      message({ id: x.id, createdAt: x.createdAt, sender: AGENT_X(null), key, content: "Leaving too." }),
      message({ id: g.id, createdAt: g.sent_at, sender: GUEST(null), key, content: "I am off for the day" }),
    ];
    expect((await poll("agt-a", key)).body.messages).toEqual(expected);
    expect((await poll("agt-a", key, since(EPOCH))).body.messages).toEqual([...expected].reverse());
  });

  it('B-124 a redacted message reads content "" with deletedAt; a reply to it keeps id and sender with preview ""', async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Redaction", ["agt-a", "agt-x"]);
    const secret = await say("hum-maintainer", cnv, "@agent-x the staging password is hunter2");
    const reply = await speak("agt-a", key, { content: "Please redact that.", replyToMessageId: secret.id });
    expect((reply as unknown as { replyTo: ReplyTo }).replyTo).toEqual({
      id: secret.id,
      senderId: "hum-maintainer",
      senderType: "USER",
      preview: secret.body,
    });
    const original = message({
      id: secret.id,
      createdAt: secret.sent_at,
      sender: MAINTAINER("creator"),
      key,
      content: secret.body,
      mentions: ["agt-x"],
    });
    expect((await poll("agt-a", key)).body.messages[1]).toEqual(original);
    const redacted = await rest("POST", `${P}/conversations/${cnv}/messages/${secret.seq}/redact`, {
      token: tok("hum-maintainer"),
      body: { reason: "a secret" },
    });
    expect(redacted.status).toBe(200);
    const deletedAt = redacted.body.redaction.at as string;
    const expected = [
      message({
        id: reply.id,
        createdAt: reply.createdAt,
        sender: AGENT_A("member"),
        key,
        content: "Please redact that.",
        replyTo: { id: secret.id, senderId: "hum-maintainer", senderType: "USER", preview: "" },
      }),
      message({
        id: secret.id,
        createdAt: secret.sent_at,
        sender: MAINTAINER("creator"),
        key,
        content: "",
        mentions: [],
        deletedAt,
      }),
    ];
    expect((await poll("agt-a", key)).body.messages).toEqual(expected);
    expect((await poll("agt-a", key, since(EPOCH))).body.messages).toEqual([...expected].reverse());
  });

  it("B-122 B-123 OQ-B-35 replyTo: the first 80 code points of the quoted message, the same wherever an agent reads it; null when not a reply", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Preview", ["agt-a", "agt-x"]);
    // 121 code points, 163 UTF-16 code units: the preview counts code points (OQ-B-35).
    const long = `🚀${"ab😀".repeat(40)}`;
    const first80 = `🚀${"ab😀".repeat(26)}a`;
    expect(Array.from(first80).length).toBe(80);
    const quoted = await say("hum-maintainer", cnv, long);
    const short = await say("hum-maintainer", cnv, "Is the tag signed?");
    const r1 = await send("agt-a", key, { content: "Answering the long one", replyToMessageId: quoted.id });
    expect(r1.status).toBe(201);
    const toLong: ReplyTo = { id: quoted.id, senderId: "hum-maintainer", senderType: "USER", preview: first80 };
    expect(r1.body).toEqual(
      message({
        id: r1.body.id,
        createdAt: r1.body.createdAt,
        sender: AGENT_A("member"),
        key,
        content: "Answering the long one",
        replyTo: toLong,
      }),
    );
    await gap();
    const r2 = await speak("agt-x", key, { content: "Yes, it is.", replyToMessageId: short.id });
    // An agent quoting an agent (B-073: conversation, not delegation) — senderType AGENT.
    const r3 = await speak("agt-a", key, { content: "Thanks", replyToMessageId: r2.id });
    // A human's reply action over Maity (reply_to) reaches the agent as replyTo, and addresses it (B-072).
    const r4 = await say("hum-maintainer", cnv, "Good answer", { reply_to: seqOf(r1.body.id) });

    const expected = [
      message({ id: quoted.id, createdAt: quoted.sent_at, sender: MAINTAINER("creator"), key, content: long }),
      message({
        id: short.id,
        createdAt: short.sent_at,
        sender: MAINTAINER("creator"),
        key,
        content: "Is the tag signed?",
      }),
      message({
        id: r1.body.id,
        createdAt: r1.body.createdAt,
        sender: AGENT_A("member"),
        key,
        content: "Answering the long one",
        replyTo: toLong,
      }),
      message({
        id: r2.id,
        createdAt: r2.createdAt,
        sender: AGENT_X("member"),
        key,
        content: "Yes, it is.",
        replyTo: { id: short.id, senderId: "hum-maintainer", senderType: "USER", preview: "Is the tag signed?" },
      }),
      message({
        id: r3.id,
        createdAt: r3.createdAt,
        sender: AGENT_A("member"),
        key,
        content: "Thanks",
        replyTo: { id: r2.id, senderId: "agt-x", senderType: "AGENT", preview: "Yes, it is." },
      }),
      message({
        id: r4.id,
        createdAt: r4.sent_at,
        sender: MAINTAINER("creator"),
        key,
        content: "Good answer",
        shouldRespond: true,
        replyTo: { id: r1.body.id, senderId: "agt-a", senderType: "AGENT", preview: "Answering the long one" },
      }),
    ];
    expect((await poll("agt-a", key, since(EPOCH))).body.messages).toEqual(expected);
    // agent-x reads the same replyTo; it is not addressed by a human replying to agent-a, nor by agent-a quoting it (B-073).
    expect((await poll("agt-x", key, since(EPOCH))).body.messages).toEqual(
      expected.map((m) => ({ ...m, shouldRespond: false })),
    );
  });

  it("B-080 B-081 B-082 B-085 B-086 B-087 B-088 B-089 an agent's message is parsed like a human's: agents only, case-insensitive, word-boundary-safe", async () => {
    const { key } = await createChat("hum-maintainer", "Mentions", ["agt-a", "agt-x"]);
    const handOver = await speak("agt-a", key, {
      content: "@GUEST/AGENT-X please check; cc @Maintainer; not adam@agent-a",
    });
    const plain = await speak("agt-a", key, { content: "agent-x, no mention here" });
    const toHuman = await speak("agt-a", key, { content: "@Maintainer done" });
    const expected = [
      message({
        id: handOver.id,
        createdAt: handOver.createdAt,
        sender: AGENT_A("member"),
        key,
        content: handOver.content,
        mentions: ["agt-x"],
      }),
      message({ id: plain.id, createdAt: plain.createdAt, sender: AGENT_A("member"), key, content: plain.content }),
      message({
        id: toHuman.id,
        createdAt: toHuman.createdAt,
        sender: AGENT_A("member"),
        key,
        content: toHuman.content,
      }),
    ];
    expect((await poll("agt-a", key, since(EPOCH))).body.messages).toEqual(expected);
    expect((await poll("agt-x", key, since(EPOCH))).body.messages).toEqual([
      { ...expected[0], shouldRespond: true },
      expected[1],
      expected[2],
    ]);
  });

  it("B-063 B-085 a human's @mention by the exact roster name is a mention, not a name: no metadata.addressedAgents", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Roster names", ["agt-a", "agt-x"]);
    const m = await say("hum-maintainer", cnv, "@guest/agent-x can you check the changelog?");
    expect((await poll("agt-x", key, since(EPOCH))).body.messages).toEqual([
      message({
        id: m.id,
        createdAt: m.sent_at,
        sender: MAINTAINER("creator"),
        key,
        content: m.body,
        mentions: ["agt-x"],
        shouldRespond: true,
      }),
    ]);
  });
});

describe("who may read: 403 NOT_PARTICIPANT (B-038, B-100, OQ-B-06)", () => {
  it("B-038 B-100 B-368 a room the agent left, one it never was in and unknown ids answer the same 403, in both modes; the context route too", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Left", ["agt-a", "agt-x"]);
    await say("hum-maintainer", cnv, "@agent-x you are about to leave");
    expect((await poll("agt-x", key)).status).toBe(200);
    await removeFrom("hum-maintainer", cnv, "agt-x");
    const dmOfA = await dmKey("agt-a");
    for (const room of [key, dmOfA, "nope", UNKNOWN_KEY, cnv, "agt-a"]) {
      expect(await poll("agt-x", room)).toEqual(NOT_PARTICIPANT);
      expect(await poll("agt-x", room, since(EPOCH))).toEqual(NOT_PARTICIPANT);
      expect(await contextOf("agt-x", room)).toEqual(NOT_PARTICIPANT);
    }
  });
});

// ---- §7 speaking ----------------------------------------------------------------------------------

describe("POST /api/agent-api/conversations/:id/messages (§7)", () => {
  it("B-114 B-099 B-125 201 with the full shape; the human reads it over Maity REST; usage is taken (OQ-B-27)", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Speaking", ["agt-a", "agt-x"]);
    const ask = await say("hum-maintainer", cnv, "@agent-a status?");
    const res = await send("agt-a", key, {
      content: "All green. @guest/agent-x can you confirm?",
      metadata: { kind: "status", nested: { ok: true } },
      replyToMessageId: ask.id,
      usage: { inputTokens: 1200, outputTokens: 80 },
    });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    expect(id).toMatch(/^evt-\d+$/);
    expect(res.body).toEqual(
      message({
        id,
        createdAt: res.body.createdAt,
        sender: AGENT_A("member"),
        key,
        content: "All green. @guest/agent-x can you confirm?",
        metadata: { kind: "status", nested: { ok: true } },
        mentions: ["agt-x"],
        replyTo: { id: ask.id, senderId: "hum-maintainer", senderType: "USER", preview: "@agent-a status?" },
      }),
    );
    expect(Date.parse(res.body.createdAt)).toBeGreaterThanOrEqual(Date.parse(ask.sent_at));
    const seq = seqOf(id);
    // The human reads it over Maity REST: a group message (no delivered_at), agent-x resolved in mentions.
    const maity = await rest("GET", `${P}/conversations/${cnv}/messages?before=${seq + 1}&limit=1`, {
      token: tok("hum-maintainer"),
    });
    expect(maity).toEqual({
      status: 200,
      body: {
        items: [
          {
            id,
            seq,
            conversation_id: cnv,
            from: "agt-a",
            to: cnv,
            body: "All green. @guest/agent-x can you confirm?",
            sent_at: res.body.createdAt,
            mentions: [{ member_id: "agt-x", handle: "agent-x", field: "body", offset: 11, length: 14 }],
            attachments: [],
            from_instance: "agt-a-default",
            to_instance: null,
            redacted: false,
            redaction: null,
            // A reply names the seq it answers (the dashboard quotes it).
            reply_to: seqOf(ask.id),
          },
        ],
        earlier: seq,
      },
    });
    // agent-x, mentioned by an agent, should respond (B-088); the reply is in its poll as sent.
    expect((await poll("agt-x", key, since(ask.sent_at))).body.messages).toEqual([
      { ...res.body, shouldRespond: true },
    ]);
  });

  it("B-114 a direct conversation: the agent speaks to its human", async () => {
    const key = await dmKey("agt-a");
    const res = await send("agt-a", key, { content: "The API contract is done." });
    expect(res).toEqual({
      status: 201,
      body: message({
        id: res.body.id,
        createdAt: res.body.createdAt,
        sender: AGENT_A("member"),
        key,
        content: "The API contract is done.",
      }),
    });
    const seq = seqOf(res.body.id);
    const maity = await rest("GET", `${P}/conversations/agt-a/messages?before=${seq + 1}&limit=1`, {
      token: tok("hum-maintainer"),
    });
    expect(maity.status).toBe(200);
    expect(maity.body.items[0]).toEqual({
      id: res.body.id,
      seq,
      conversation_id: "agt-a",
      from: "agt-a",
      to: "hum-maintainer",
      body: "The API contract is done.",
      sent_at: res.body.createdAt,
      delivered_at: expect.any(String),
      mentions: [],
      attachments: [],
      from_instance: "agt-a-default",
      to_instance: null,
      redacted: false,
      redaction: null,
    });
  });

  it("B-116 B-369 a room the agent is not in and unknown ids answer the same 404; nothing is written", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Not yours", ["agt-a", "agt-x"]);
    await removeFrom("hum-maintainer", cnv, "agt-x");
    const dmOfA = await dmKey("agt-a");
    const before = [await logSize(key), await logSize(dmOfA)];
    for (const room of [key, dmOfA, "nope", UNKNOWN_KEY, cnv, "agt-x"]) {
      expect(await send("agt-x", room, { content: "let me in" })).toEqual(NOT_FOUND);
      // Refusals of the body do not tell a stranger anything more either (the reply target is looked up in the room).
      expect(await send("agt-x", room, { content: "let me in", replyToMessageId: "evt-1" })).toEqual(NOT_FOUND);
    }
    expect([await logSize(key), await logSize(dmOfA)]).toEqual(before);
  });

  it("B-126 B-380 a replyToMessageId of another conversation, an unknown id or not a message → 400 INVALID_REPLY_TARGET; nothing is written", async () => {
    const { key } = await createChat("hum-maintainer", "Reply targets", ["hum-guest", "agt-a"]);
    const other = await createChat("hum-maintainer", "Elsewhere", ["hum-guest", "agt-a"]);
    const elsewhere = await say("hum-maintainer", other.cnv, "a message of another chat");
    const created = await hub.db.event.findFirstOrThrow({
      where: { conversationId: key, kind: "conversation_created" },
      select: { seq: true },
    });
    const before = await logSize(key);
    // Past the log's integer column (2^31, 2^63) and what only looks like a number name no message either.
    const past = ["evt-2147483648", "evt-9223372036854775808", " ", "-0", "0x10", "evt-1e3"];
    for (const target of [elsewhere.id, "evt-99999999", "evt-0", "hello", `evt-${created.seq}`, "", ...past]) {
      expect(await send("agt-a", key, { content: "replying", replyToMessageId: target })).toEqual(INVALID_REPLY_TARGET);
    }
    expect(await logSize(key)).toBe(before);
    // null is "not a reply".
    expect((await send("agt-a", key, { content: "not a reply", replyToMessageId: null })).body.replyTo).toBeNull();
  });

  it("B-118 OQ-B-13 OQ-B-14 a BayChat-own metadata.type → 400 RESERVED_MESSAGE_TYPE; a type of one's own is fine", async () => {
    const { key } = await createChat("hum-maintainer", "Reserved", ["hum-guest", "agt-a"]);
    const before = await logSize(key);
    expect(RESERVED_MESSAGE_TYPES).toEqual([
      "session.command",
      "note.edited",
      "note.read",
      "context.handoff",
      "context.compacted",
      "card.continuation",
    ]);
    for (const type of RESERVED_MESSAGE_TYPES)
      expect(await send("agt-a", key, { content: "/clear", metadata: { type } })).toEqual({
        status: 400,
        body: {
          error: `metadata.type ${type} is written by the hub only`,
          code: "RESERVED_MESSAGE_TYPE",
          fields: { "metadata.type": "reserved" },
        },
      });
    expect(await logSize(key)).toBe(before);
    const own = await send("agt-a", key, { content: "a status line", metadata: { type: "status.report" } });
    expect(own.status).toBe(201);
    expect(own.body.metadata).toEqual({ type: "status.report" });
  });

  it("B-063 metadata.addressedAgents is the hub's: forging it → 400 naming the field, nothing written", async () => {
    const { key } = await createChat("hum-maintainer", "Forged", ["agt-a", "agt-x"]);
    const before = await logSize(key);
    expect(await send("agt-a", key, { content: "look here", metadata: { addressedAgents: ["agt-x"] } })).toEqual(
      invalid({ "metadata.addressedAgents": "server_set" }, "metadata.addressedAgents is set by the hub"),
    );
    expect(await send("agt-a", key, { content: "look here", metadata: { addressedAgents: [] } })).toEqual(
      invalid({ "metadata.addressedAgents": "server_set" }, "metadata.addressedAgents is set by the hub"),
    );
    expect(await logSize(key)).toBe(before);
  });

  it("B-114 bad input → 400 naming the field, nothing written: empty or blank content, over 20,000 code points, unknown fields, bad JSON, non-object metadata, bad usage", async () => {
    const { key } = await createChat("hum-maintainer", "Bad bodies", ["hum-guest", "agt-a"]);
    const before = await logSize(key);
    expect(await send("agt-a", key, { content: "" })).toEqual(invalid({ content: "required" }));
    expect(await send("agt-a", key, { content: " \n\t " })).toEqual(invalid({ content: "required" }));
    expect(await send("agt-a", key, {})).toEqual(invalid({ content: "required" }));
    expect(await send("agt-a", key, { content: 42 })).toEqual(invalid({ content: "a string" }));
    // 20,001 code points (40,002 UTF-16 code units).
    expect(await send("agt-a", key, { content: "😀".repeat(20_001) })).toEqual(
      invalid({ content: "at most 20000 characters" }),
    );
    expect(await send("agt-a", key, { content: "hi", attachmentIds: ["x"], priority: 1 })).toEqual(
      invalid({ attachmentIds: "unknown_field", priority: "unknown_field" }),
    );
    expect(await call(tok("agt-a"), "POST", `/conversations/${key}/messages`, { raw: '{"content": "hi"' })).toEqual({
      status: 400,
      body: { error: "the body is not valid JSON", code: "INVALID_JSON", fields: { body: "invalid_json" } },
    });
    for (const metadata of ["a string", 7, true, ["a", "list"]])
      expect(await send("agt-a", key, { content: "hi", metadata })).toEqual(invalid({ metadata: "an object or null" }));
    expect(await send("agt-a", key, { content: "hi", replyToMessageId: 5 })).toEqual(
      invalid({ replyToMessageId: "a message id" }),
    );
    expect(await send("agt-a", key, { content: "hi", usage: { inputTokens: -1 } })).toEqual(
      invalid({ "usage.inputTokens": "inputTokens: at least 0" }),
    );
    expect(await send("agt-a", key, { content: "hi", usage: { inputTokens: 1, costUsd: 2 } })).toEqual(
      invalid({ "usage.costUsd": "unknown_field" }),
    );
    expect(await send("agt-a", key, { content: "hi", usage: "lots" })).toEqual(invalid({ usage: "an object" }));
    expect(await logSize(key)).toBe(before);
    // The limit counts code points: exactly 20,000 astral characters are taken whole; null metadata is none.
    const full = await send("agt-a", key, { content: "😀".repeat(20_000), metadata: null });
    expect(full.status).toBe(201);
    expect([Array.from(full.body.content as string).length, full.body.metadata]).toEqual([20_000, null]);
  });

  it("§9.2 Closing: a closed group chat → 409 CONVERSATION_CLOSED for sending and typing; it can still be read", async () => {
    const { cnv, key } = await createChat("hum-guest", "Closing", ["hum-guest", "agt-a"]);
    const last = await say("hum-guest", cnv, "I am the last human here");
    await removeFrom("hum-guest", cnv, "hum-guest");
    const before = await logSize(key);
    const closed = { status: 409, body: { error: "the group chat is closed", code: "CONVERSATION_CLOSED" } };
    expect(await send("agt-a", key, { content: "anyone?" })).toEqual(closed);
    expect(await typing("agt-a", key)).toEqual(closed);
    expect(await logSize(key)).toBe(before);
    const read = await poll("agt-a", key, since(EPOCH));
    expect(read.status).toBe(200);
    expect(read.body.messages).toEqual([
      message({ id: last.id, createdAt: last.sent_at, sender: GUEST(null), key, content: last.body }),
    ]);
  });
});

describe("POST /api/agent-api/conversations/:id/typing (§7)", () => {
  it("B-116 200 tells the room's others; a room the agent is not in and unknown ids answer the same 404 and tell nobody", async () => {
    const { cnv, key } = await createChat("hum-maintainer", "Typing", ["hum-guest", "agt-a", "agt-x"]);
    published.length = 0;
    expect(await typing("agt-a", key)).toEqual({ status: 200, body: { ok: true } });
    const typed = published.filter((m) => m.type === "typing");
    expect(typed.map((m) => (m.type === "typing" ? { ...m, audience: [...m.audience].sort() } : m))).toEqual([
      {
        type: "typing",
        conversationId: cnv,
        project: { owner: "maintainer", slug: "maity" },
        memberId: "agt-a",
        audience: ["agt-x", "hum-guest", "hum-maintainer"],
      },
    ]);
    await removeFrom("hum-maintainer", cnv, "agt-x");
    published.length = 0;
    for (const room of [key, await dmKey("agt-a"), "nope", UNKNOWN_KEY, cnv])
      expect(await typing("agt-x", room)).toEqual(NOT_FOUND);
    expect(published.filter((m) => m.type === "typing")).toEqual([]);
  });
});

// ---- delivery, authentication, methods --------------------------------------------------------------

describe("delivered_at of a direct message (§9.1 M-055 M-056; v1.23 B-102)", () => {
  const maityRead = async (seq: number) => {
    const res = await rest("GET", `${P}/conversations/agt-a/messages?before=${seq + 1}&limit=1`, {
      token: tok("hum-maintainer"),
    });
    expect(res.status).toBe(200);
    expect(res.body.items[0].seq).toBe(seq);
    return res.body.items[0].delivered_at as string | null;
  };

  it("is set once, when the forward poll first hands the message to the agent; the agent's own message is not delivered by its own read", async () => {
    const key = await dmKey("agt-a");
    const d = await say("hum-maintainer", "agt-a", "Ping for delivery");
    expect(await maityRead(d.seq)).toBeNull();
    const justBefore = new Date(Date.parse(d.sent_at) - 1).toISOString();
    const t0 = Date.now();
    const first = await poll("agt-a", key, since(justBefore));
    const t1 = Date.now();
    // B-046 B-047: in a direct conversation every human message is the agent's to answer.
    expect(first.body.messages).toEqual([
      message({
        id: d.id,
        createdAt: d.sent_at,
        sender: MAINTAINER("member"),
        key,
        content: d.body,
        shouldRespond: true,
      }),
    ]);
    const delivered = await maityRead(d.seq);
    expect(delivered).toEqual(expect.any(String));
    expect(Date.parse(delivered as string)).toBeGreaterThanOrEqual(t0);
    expect(Date.parse(delivered as string)).toBeLessThanOrEqual(t1);
    await gap();
    // Read again (forward and history): unchanged.
    expect((await poll("agt-a", key, since(justBefore))).body.messages.map((m: { id: string }) => m.id)).toEqual([
      d.id,
    ]);
    expect((await poll("agt-a", key, "?limit=1")).body.messages.map((m: { id: string }) => m.id)).toEqual([d.id]);
    expect(await maityRead(d.seq)).toBe(delivered);

    const own = await speak("agt-a", key, { content: "Got it." });
    expect((await poll("agt-a", key, since(d.sent_at))).body.messages.map((m: { id: string }) => m.id)).toEqual([
      own.id,
    ]);
    expect(
      (await hub.db.event.findUniqueOrThrow({ where: { seq: seqOf(own.id) }, select: { deliveredAt: true } }))
        .deliveredAt,
    ).toBeNull();
  });

  it("is set when a history read first returns the message to the agent (M-055: independent of the cursor)", async () => {
    const key = await dmKey("agt-a");
    const d = await say("hum-maintainer", "agt-a", "Read me in history");
    expect(await maityRead(d.seq)).toBeNull();
    const t0 = Date.now();
    expect((await poll("agt-a", key, "?limit=1")).body.messages.map((m: { id: string }) => m.id)).toEqual([d.id]);
    const t1 = Date.now();
    const delivered = await maityRead(d.seq);
    expect(delivered).toEqual(expect.any(String));
    expect(Date.parse(delivered as string)).toBeGreaterThanOrEqual(t0);
    expect(Date.parse(delivered as string)).toBeLessThanOrEqual(t1);
  });
});

describe("authentication and methods on the message routes", () => {
  it("B-010 B-011 a human's token, a missing token or an unknown one → 401 before the body is read; nothing written", async () => {
    const key = await dmKey("agt-a");
    const before = await logSize(key);
    for (const token of [tok("hum-maintainer"), null, "bay_unknown"]) {
      expect(await call(token, "GET", `/conversations/${key}/messages`)).toEqual(UNAUTHORIZED);
      expect(await call(token, "GET", `/conversations/${key}/messages${since(EPOCH)}`)).toEqual(UNAUTHORIZED);
      expect(await call(token, "POST", `/conversations/${key}/messages`, { body: { content: "as a human" } })).toEqual(
        UNAUTHORIZED,
      );
      expect(await call(token, "POST", `/conversations/${key}/messages`, { raw: "{not json" })).toEqual(UNAUTHORIZED);
      expect(await call(token, "POST", `/conversations/${key}/typing`)).toEqual(UNAUTHORIZED);
    }
    expect(await logSize(key)).toBe(before);
  });

  it("405 with Allow for a method a route does not take", async () => {
    const key = await dmKey("agt-a");
    const messages = await callRaw(tok("agt-a"), "PUT", `/conversations/${key}/messages`, { body: { content: "x" } });
    expect([messages.status, messages.body, messages.headers.get("allow")]).toEqual([
      405,
      { error: "PUT is not allowed here", code: "METHOD_NOT_ALLOWED" },
      "GET, POST",
    ]);
    const typed = await callRaw(tok("agt-a"), "GET", `/conversations/${key}/typing`);
    expect([typed.status, typed.body, typed.headers.get("allow")]).toEqual([
      405,
      { error: "GET is not allowed here", code: "METHOD_NOT_ALLOWED" },
      "POST",
    ]);
  });
});

describe("the agent budget with the default limits (B-360, B-141, B-361)", () => {
  // Time stands still for the limiter (Date.now held), so "within a minute" is exact however slow
  // the database is; the tests move it on by hand.
  let limited: Hub;
  const clock = { now: Date.now() };
  const budgetTokens: Record<string, string> = {};
  const as = (id: string) => budgetTokens[id] as string;
  beforeAll(async () => {
    vi.spyOn(Date, "now").mockImplementation(() => clock.now);
    limited = await testHub();
    await seedDemo(limited);
    const admin = restClient(limited);
    for (const id of ["agt-a", "agt-x"])
      budgetTokens[id] = (
        await admin("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })
      ).body.token;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await limited.close();
  });

  it("B-360 B-382 the 61st request within a minute → 429 RATE_LIMITED with retry-after, sends included; /updates keeps its own bucket (B-141); other agents are untouched", async () => {
    expect(limited.limits.settings).toEqual({
      agent: 60,
      updates: 20,
      ws: 20,
      preauth: 10,
      noteCreates: 60,
      noteEdits: 60,
    });
    const rooms = (await callRaw(as("agt-a"), "GET", "/conversations", { target: limited })).body.conversations as {
      id: string;
      type: string;
    }[];
    const dm = rooms.find((r) => r.type === "DM")?.id as string;
    // One spent above; 59 more polls are allowed.
    for (let i = 0; i < 59; i++)
      expect(
        (await callRaw(as("agt-a"), "GET", `/conversations/${dm}/messages?limit=1`, { target: limited })).status,
      ).toBe(200);
    const over = { status: 429, body: { error: "over 60 requests a minute", code: "RATE_LIMITED" }, retryAfter: "1" };
    const refused = async (method: string, path: string, body?: unknown) => {
      const res = await callRaw(as("agt-a"), method, path, {
        target: limited,
        ...(body === undefined ? {} : { body }),
      });
      return { status: res.status, body: res.body, retryAfter: res.headers.get("retry-after") };
    };
    expect(await refused("GET", `/conversations/${dm}/messages?limit=1`)).toEqual(over);
    expect(await refused("GET", "/me")).toEqual(over);
    // Sending is in the same budget: refused, nothing written.
    const before = await limited.db.event.count({ where: { conversationId: dm } });
    expect(await refused("POST", `/conversations/${dm}/messages`, { content: "over budget" })).toEqual(over);
    expect(await refused("POST", `/conversations/${dm}/typing`)).toEqual(over);
    expect(await limited.db.event.count({ where: { conversationId: dm } })).toBe(before);
    // /updates has its own bucket: still open (B-141).
    const updates = await callRaw(as("agt-a"), "GET", "/updates?wait=0", { target: limited });
    expect([updates.status, updates.body.events]).toEqual([200, []]);
    // Another agent's budget is its own.
    expect((await callRaw(as("agt-x"), "GET", "/me", { target: limited })).status).toBe(200);
    // The budget refills at 60 a minute: one request a second.
    clock.now += 1000;
    expect((await callRaw(as("agt-a"), "GET", "/me", { target: limited })).status).toBe(200);
    expect(await refused("GET", "/me")).toEqual(over);
    clock.now += 60_000;
    const sent = await callRaw(as("agt-a"), "POST", `/conversations/${dm}/messages`, {
      body: { content: "back in budget" },
      target: limited,
    });
    expect([sent.status, sent.body.content]).toEqual([201, "back in budget"]);
  });

  it("B-141 B-361 /updates: 20 a minute, then 429 UPDATES_RATE_LIMITED, while the agent budget stays open", async () => {
    for (let i = 0; i < 20; i++)
      expect((await callRaw(as("agt-x"), "GET", "/updates?wait=0", { target: limited })).status).toBe(200);
    const res = await callRaw(as("agt-x"), "GET", "/updates?wait=0", { target: limited });
    expect([res.status, res.body, res.headers.get("retry-after")]).toEqual([
      429,
      { error: "over 20 /updates calls a minute; back off the poll loop", code: "UPDATES_RATE_LIMITED" },
      "3",
    ]);
    expect((await callRaw(as("agt-x"), "GET", "/conversations", { target: limited })).status).toBe(200);
  });
});
