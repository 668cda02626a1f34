import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, createWithVisitors, BASE, restClient, testHub, trpcBrowser } from "./helpers.ts";

// Idempotent sends on both surfaces, the write's fixed statement count, listeners that
// cost nothing per message, and the recovery answers (409 CURSOR_EXPIRED, a history cursor past
// the log's integer seq).

const hub = await testHub({ limits: { agent: 10_000, updates: 10_000 } });
const rest = restClient(hub);
const P = "/api/projects/maintainer/maity/conversations";
const T: Record<string, string> = {};

async function agentApi(
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The SQL statements `fn` sends (Prisma's query log: BEGIN and COMMIT included). */
async function statementsOf<T>(fn: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const stop = hub.database.observeQueries((s) => sql.push(s));
  try {
    return { result: await fn(), sql };
  } finally {
    stop();
  }
}

let group3: string;
let group12: string;
let roomKey: string;

beforeAll(async () => {
  await seedDemo(hub);
  for (let i = 1; i <= 5; i++) {
    await rest("POST", "/api/admin/humans", {
      token: ADMIN,
      body: { handle: `w${i}`, name: `W${i}`, password: "password-123" },
    });
    await rest("POST", "/api/admin/projects/maintainer/maity/members", {
      token: ADMIN,
      body: { member_id: `hum-w${i}` },
    });
  }
  for (let i = 1; i <= 5; i++) {
    const agent = (
      await rest("POST", "/api/admin/agents", { token: ADMIN, body: { owner: "maintainer", handle: `bot${i}` } })
    ).body;
    await rest("POST", "/api/admin/projects/maintainer/maity/members", { token: ADMIN, body: { member_id: agent.id } });
  }
  for (const id of ["hum-maintainer", "hum-guest", "agt-a", "agt-x"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  const bots = (await hub.db.agent.findMany({ where: { handle: { startsWith: "bot" } }, select: { id: true } })).map(
    (a) => a.id,
  );
  group3 = (
    await rest("POST", P, {
      token: T["hum-maintainer"],
      body: { title: "three", participants: ["hum-guest", "agt-a"] },
    })
  ).body.id;
  group12 = (
    await createWithVisitors(rest, "/api/projects/maintainer/maity", (id) => T[id] as string, "hum-maintainer", {
      title: "twelve",
      participants: ["hum-guest", "agt-a", "agt-x", "hum-w1", "hum-w2", "hum-w3", "hum-w4", ...bots.slice(0, 4)],
    })
  ).body.id;
  roomKey = (await agentApi("GET", "/conversations", T["agt-a"] as string)).body.conversations.find(
    (r: { maity: { id: string } }) => r.maity.id === group3,
  ).id;
});
afterAll(() => hub.close());

describe("idempotent sends: a retry answers the first message", () => {
  it("Maity POST …/messages with an Idempotency-Key: a repeat answers the first message with 200 and writes nothing; another body is 409 naming the key", async () => {
    const count = () => hub.db.event.count({ where: { kind: "message", conversation: { publicId: group3 } } });
    const before = await count();
    const headers = { "idempotency-key": "send-1" };
    const first = await rest("POST", `${P}/${group3}/messages`, {
      token: T["hum-maintainer"],
      body: { body: "once" },
      headers,
    });
    expect(first.status).toBe(201);
    const again = await rest("POST", `${P}/${group3}/messages`, {
      token: T["hum-maintainer"],
      body: { body: "once" },
      headers,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await rest("POST", `${P}/${group3}/messages`, {
      token: T["hum-maintainer"],
      body: { body: "twice?" },
      headers,
    });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({
      code: "conflict",
      details: { fields: { idempotency_key: "reused_with_other_body" } },
    });
    // Keys are the caller's own: another human's same key is another send.
    const guest = await rest("POST", `${P}/${group3}/messages`, {
      token: T["hum-guest"],
      body: { body: "once" },
      headers,
    });
    expect(guest.status).toBe(201);
    expect((await count()) - before).toBe(2);
  });

  it("concurrent repeats of one key write one message: one 201, the rest 200 with the same message", async () => {
    const headers = { "idempotency-key": "race-1" };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        rest("POST", `${P}/${group3}/messages`, { token: T["hum-maintainer"], body: { body: "raced" }, headers }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await hub.db.event.count({ where: { body: "raced" } })).toBe(1);
  });

  it("tRPC messages.post and POST …/events take the key too; a bad key is invalid", async () => {
    const browser = trpcBrowser(hub);
    await browser.mutation("auth.login", { handle: "maintainer", password: "maintainer-demo" });
    const input = {
      owner: "maintainer",
      slug: "maity",
      conversation_id: group3,
      body: "via trpc",
      idempotency_key: "trpc-1",
    };
    const a = (await browser.mutation("messages.post", input)).body.result?.data as {
      replayed: boolean;
      message: { id: string };
    };
    const b = (await browser.mutation("messages.post", input)).body.result?.data as {
      replayed: boolean;
      message: { id: string };
    };
    expect([a.replayed, b.replayed]).toEqual([false, true]);
    expect(b.message.id).toBe(a.message.id);
    const event = { type: "chat", conversation_id: group3, body: "via events" };
    const e1 = await rest("POST", "/api/projects/maintainer/maity/events", {
      token: T["hum-maintainer"],
      body: event,
      headers: { "idempotency-key": "ev-1" },
    });
    const e2 = await rest("POST", "/api/projects/maintainer/maity/events", {
      token: T["hum-maintainer"],
      body: event,
      headers: { "idempotency-key": "ev-1" },
    });
    expect([e1.status, e2.status]).toEqual([201, 200]);
    expect(e2.body.id).toBe(e1.body.id);
    const long = await rest("POST", `${P}/${group3}/messages`, {
      token: T["hum-maintainer"],
      body: { body: "x" },
      headers: { "idempotency-key": "k".repeat(201) },
    });
    expect(long.status).toBe(400);
    expect(long.body.error.details.fields).toEqual({ idempotency_key: "1–200 characters" });
  });

  it("agent API send: the Idempotency-Key header or clientMessageId; a repeat is 200 with the first message; reuse with other content is 409 IDEMPOTENCY_KEY_REUSED", async () => {
    const token = T["agt-a"] as string;
    const path = `/conversations/${roomKey}/messages`;
    const first = await agentApi("POST", path, token, { content: "agent once" }, { "idempotency-key": "a-1" });
    expect(first.status).toBe(201);
    const again = await agentApi("POST", path, token, { content: "agent once" }, { "idempotency-key": "a-1" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const byBody = await agentApi("POST", path, token, { content: "by id", clientMessageId: "c-1" });
    const byBodyAgain = await agentApi("POST", path, token, { content: "by id", clientMessageId: "c-1" });
    expect([byBody.status, byBodyAgain.status]).toEqual([201, 200]);
    expect(byBodyAgain.body.id).toBe(byBody.body.id);
    // The header and the body field name the same send, or the request is refused.
    const both = await agentApi(
      "POST",
      path,
      token,
      { content: "both", clientMessageId: "c-2" },
      { "idempotency-key": "c-3" },
    );
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({
      code: "INVALID_REQUEST",
      fields: { clientMessageId: "differs_from_idempotency_key" },
    });
    const reused = await agentApi("POST", path, token, { content: "something else" }, { "idempotency-key": "a-1" });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({
      code: "IDEMPOTENCY_KEY_REUSED",
      fields: { idempotency_key: "reused_with_other_body" },
    });
    expect(
      await hub.db.event.count({ where: { body: { in: ["agent once", "by id", "both", "something else"] } } }),
    ).toBe(2);
  });
});

describe("the write and the listeners", () => {
  const maintainer = { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" };
  const ref = { owner: "maintainer", slug: "maity" };

  it("a group message costs the same fixed number of statements with 3 participants as with 12 (6 of them agents)", async () => {
    await hub.messages.post(maintainer, ref, group12, { body: "warm up" });
    const small = await statementsOf(() => hub.messages.post(maintainer, ref, group3, { body: "to three" }));
    const large = await statementsOf(() => hub.messages.post(maintainer, ref, group12, { body: "to twelve" }));
    expect(large.sql.length).toBe(small.sql.length);
    // Resolve (project, keys) + BEGIN, lock, facts, write, COMMIT.
    expect(large.sql.length).toBeLessThanOrEqual(7);
    expect(await hub.db.eventAudience.count({ where: { eventSeq: large.result.message.seq } })).toBe(12);
    expect(await hub.db.routingVerdict.count({ where: { eventSeq: large.result.message.seq } })).toBe(6);
  });

  it("an agent authenticates in one statement (its credential not yet kept in memory)", async () => {
    // A kept credential costs none: credential-cache.int.test.ts, on a hub that listens on the bus.
    hub.credentials.clear();
    const { result, sql } = await statementsOf(() => hub.auth.fromToken(T["agt-a"]));
    expect(result).toMatchObject({ kind: "agent", id: "agt-a" });
    expect(sql).toHaveLength(1);
  });

  it("a held /updates of an agent outside the audience costs nothing per message; one inside gets the message without reading the log", async () => {
    const outsider = (await hub.auth.fromToken(T["agt-x"])) as Parameters<typeof hub.feed.updates>[0];
    const insider = (await hub.auth.fromToken(T["agt-a"])) as Parameters<typeof hub.feed.updates>[0];
    const idle = new AbortController();
    const heldOutside = hub.feed.updates(outsider, { wait: 20 }, idle.signal);
    const heldInside = hub.feed.updates(insider, { wait: 20 });
    await new Promise((r) => setTimeout(r, 100));
    const { result: posted, sql } = await statementsOf(async () => {
      const m = await hub.messages.post(maintainer, ref, group3, { body: "for agt-a, not agt-x" });
      const answer = await heldInside;
      return { m, answer };
    });
    expect(posted.answer.events.map((e) => e.message.id)).toEqual([posted.m.message.id]);
    // The write's own statements only: neither listener read anything for it.
    const write = await statementsOf(() => hub.messages.post(maintainer, ref, group3, { body: "control" }));
    expect(sql.length).toBe(write.sql.length);
    idle.abort();
    expect((await heldOutside).events).toEqual([]);
  });

  it("B-138 a cursor ahead of the log answers 409 CURSOR_EXPIRED; a history cursor past the integer seq is 400, not 500", async () => {
    const ahead = await agentApi("GET", `/updates?wait=0&cursor=u${(2 ** 40).toString(36)}`, T["agt-a"] as string);
    expect(ahead).toEqual({ status: 409, body: { error: "cursor_expired", code: "CURSOR_EXPIRED" } });
    const history = await agentApi("GET", `/conversations/${roomKey}/messages?cursor=mzzzzzzz`, T["agt-a"] as string);
    expect(history.status).toBe(400);
    expect(history.body).toMatchObject({ code: "INVALID_REQUEST", fields: { cursor: "bad_cursor" } });
  });
});
