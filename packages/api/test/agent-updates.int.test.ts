import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { encodeUpdatesCursor, type UpdatesAnswer, updatesAnswerSchema } from "@maity/domain";
import { createHub, type Hub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { startApiServer } from "../src/node.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// 004 §11 GET /updates (B-127…B-145), and the delivery rule of §9.1 (delivered_at once).

const hub = await testHub({ limits: { agent: 10_000, updates: 10_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const T: Record<string, string> = {};
const M = "/api/projects/maintainer/maity";

const call = async (
  h: Hub,
  path: string,
  token: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
) => {
  const res = await handleRest(
    h,
    new Request(`${BASE}/api/agent-api${path}`, {
      method: init.method ?? "GET",
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
};
const updates = (query: string, token = T["agt-a"] as string, h: Hub = hub) => call(h, `/updates?${query}`, token);
const say = async (who: string, conversation: string, body: string) => {
  const res = await rest("POST", `${M}/conversations/${conversation}/messages`, { token: T[who], body: { body } });
  expect(res.status).toBe(201);
  return res.body as { seq: number; id: string };
};
/** The current position of agt-a: a fresh call without a cursor (B-139). */
const now = async (token = T["agt-a"] as string) => (await updates("wait=0", token)).body.cursor as string;
let group: string; // cnv-… (Maity id of the seeded group chat)
let dmKey: string; // agt-a's DM, by its agent-API id

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "agt-x", "hum-maintainer", "hum-guest"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  const rooms = (await call(hub, "/conversations", T["agt-a"] as string)).body.conversations as {
    id: string;
    type: string;
    maity: { id: string };
  }[];
  group = rooms.find((r) => r.type === "GROUP")?.maity.id as string;
  dmKey = rooms.find((r) => r.type === "DM")?.id as string;
});

describe("GET /updates: shape and position", () => {
  it("B-129 B-130 B-139 without a cursor it starts at now (no back-dump); on timeout the same cursor and no events", async () => {
    const first = await updates("wait=0");
    expect(first).toMatchObject({ status: 200, body: { cursor: expect.stringMatching(/^u[0-9a-z]+$/), events: [] } });
    expect(Object.keys(first.body).sort()).toEqual(["cursor", "events"]);
    const again = await updates(`wait=0&cursor=${first.body.cursor}`);
    expect(again).toMatchObject({ status: 200, body: { cursor: first.body.cursor, events: [] } });
  });

  it("B-127 B-131 B-132 B-134 one held call returns the moment a message arrives, with exactly the spec's fields", async () => {
    const cursor = await now();
    const held = updates(`wait=10&cursor=${cursor}`);
    await new Promise((r) => setTimeout(r, 100));
    const posted = await say("hum-maintainer", "agt-a", "Is the build green?");
    const res = await held;
    expect(res.status).toBe(200);
    const body = updatesAnswerSchema.parse(res.body) as UpdatesAnswer;
    expect(body.cursor).toBe(encodeUpdatesCursor(posted.seq));
    expect(body.events).toHaveLength(1);
    const event = body.events[0] as UpdatesAnswer["events"][number];
    expect(Object.keys(event).sort()).toEqual(["conversation", "conversationId", "message", "project", "type"]);
    expect(Object.keys(event.message).sort()).toEqual([
      "content",
      "createdAt",
      "id",
      "mentions",
      "metadata",
      "replyTo",
      "sender",
      "senderId",
      "senderType",
      "shouldRespond",
    ]);
    expect(event).toEqual({
      type: "message",
      conversationId: dmKey,
      message: {
        id: `evt-${posted.seq}`,
        senderId: "hum-maintainer",
        senderType: "USER",
        content: "Is the build green?",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        metadata: null,
        sender: { id: "hum-maintainer", name: "Maintainer", kind: "user", role: "member", visiting: null },
        mentions: [],
        shouldRespond: true,
        replyTo: null,
      },
      conversation: { id: dmKey, type: "DM", title: null },
      project: { id: "prj-maintainer-maity", name: "Maity", version: 0 },
    });
  });

  it("OQ-B-36 the agent's own messages come back too, with shouldRespond false; group messages not for it carry false", async () => {
    const cursor = await now();
    const own = await call(hub, `/conversations/${dmKey}/messages`, T["agt-a"] as string, {
      method: "POST",
      body: { content: "Green." },
    });
    expect(own.status).toBe(201);
    await say("hum-maintainer", group, "a note for the humans");
    const res = await updates(`wait=0&cursor=${cursor}`);
    expect(
      res.body.events.map((e: UpdatesAnswer["events"][number]) => [
        e.message.senderId,
        e.conversation.type,
        e.message.shouldRespond,
      ]),
    ).toEqual([
      ["agt-a", "DM", false],
      ["hum-maintainer", "GROUP", false],
    ]);
  });

  it("B-136 only new messages are events: a redaction, a rename and a new chat add none", async () => {
    const before = await say("hum-maintainer", group, "to be removed");
    const cursor = await now();
    expect(
      (
        await rest("POST", `${M}/conversations/${group}/messages/${before.seq}/redact`, {
          token: T["hum-maintainer"],
          body: {},
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await rest("PATCH", `${M}/conversations/${group}`, {
          token: T["hum-maintainer"],
          body: { title: "Release 0.2 go/no-go!" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await rest("POST", `${M}/conversations`, {
          token: T["hum-maintainer"],
          body: { participants: ["hum-guest", "agt-a"] },
        })
      ).status,
    ).toBe(201);
    expect(await updates(`wait=0&cursor=${cursor}`)).toMatchObject({ status: 200, body: { cursor, events: [] } });
  });

  it("a batch holds at most 100 events; the rest follow at once with the next cursor, in seq order without gaps", async () => {
    const cursor = await now();
    const seqs: number[] = [];
    for (let i = 0; i < 105; i++) seqs.push((await say("hum-maintainer", "agt-a", `m${i}`)).seq);
    const first = await updates(`wait=0&cursor=${cursor}`);
    expect(first.body.events).toHaveLength(100);
    const second = await updates(`wait=0&cursor=${first.body.cursor}`);
    const got = [...first.body.events, ...second.body.events].map((e: UpdatesAnswer["events"][number]) =>
      Number(e.message.id.slice(4)),
    );
    expect(got).toEqual(seqs);
    expect(second.body.cursor).toBe(encodeUpdatesCursor(seqs.at(-1) as number));
  });
});

describe("GET /updates: delivery (§9.1 delivered_at, v1.23)", () => {
  it("returning a direct message to the agent's token sets delivered_at once; a re-served batch keeps the first time", async () => {
    const cursor = await now();
    const posted = await say("hum-maintainer", "agt-a", "ping");
    const read = async () =>
      (
        (
          await rest("GET", `${M}/conversations/agt-a/messages?before=${posted.seq + 1}&limit=1`, {
            token: T["hum-maintainer"],
          })
        ).body.items[0] as { delivered_at: string | null }
      ).delivered_at;
    expect(await read()).toBeNull();
    expect((await updates(`wait=0&cursor=${cursor}`)).body.events).toHaveLength(1);
    const first = await read();
    expect(first).toEqual(expect.stringMatching(/^\d{4}-/));
    await new Promise((r) => setTimeout(r, 5));
    expect((await updates(`wait=0&cursor=${cursor}`)).body.events).toHaveLength(1);
    expect(await read()).toBe(first);
  });
});

describe("GET /updates: displacement and recovery", () => {
  it("B-140 OQ-B-17 a second concurrent call displaces the first, which answers at once with its own cursor and no events", async () => {
    const cursor = await now();
    const first = updates(`wait=20&cursor=${cursor}`);
    await new Promise((r) => setTimeout(r, 100));
    const second = updates(`wait=20&cursor=${cursor}`);
    expect(await first).toMatchObject({ status: 200, body: { cursor, events: [] } });
    const posted = await say("hum-maintainer", "agt-a", "for the second");
    expect((await second).body.events.map((e: UpdatesAnswer["events"][number]) => e.message.id)).toEqual([
      `evt-${posted.seq}`,
    ]);
  });

  it("B-140 another agent's call displaces nothing", async () => {
    const a = await now();
    const x = await now(T["agt-x"]);
    const heldA = updates(`wait=20&cursor=${a}`);
    await new Promise((r) => setTimeout(r, 50));
    expect(await updates(`wait=0&cursor=${x}`, T["agt-x"])).toMatchObject({ status: 200, body: { events: [] } });
    const posted = await say("hum-maintainer", "agt-a", "still held");
    expect((await heldA).body.events.map((e: UpdatesAnswer["events"][number]) => e.message.id)).toEqual([
      `evt-${posted.seq}`,
    ]);
  });

  it("B-138 B-381 a cursor ahead of this hub's log, and a malformed one, are refused: 409 CURSOR_EXPIRED exactly as the spec writes it, 400 with the field", async () => {
    expect(await updates(`wait=0&cursor=${encodeUpdatesCursor(10_000_000)}`)).toMatchObject({
      status: 409,
      body: { error: "cursor_expired", code: "CURSOR_EXPIRED" },
    });
    expect((await updates(`wait=0&cursor=${encodeUpdatesCursor(10_000_000)}`)).body).toEqual({
      error: "cursor_expired",
      code: "CURSOR_EXPIRED",
    });
    expect(await updates("wait=0&cursor=not-a-cursor")).toMatchObject({
      status: 400,
      body: { code: "INVALID_REQUEST", fields: { cursor: "bad_cursor" } },
    });
    expect(await updates("wait=soon")).toMatchObject({
      status: 400,
      body: { code: "INVALID_REQUEST", fields: { wait: "seconds, 0–25" } },
    });
    expect(await updates("wait=0&since=yesterday")).toMatchObject({
      status: 400,
      body: { code: "INVALID_REQUEST", fields: { since: "unknown_field" } },
    });
  });

  it("B-138 B-145 a cursor whose first missed event is older than the replay window expires; no cursor starts again; cursors survive a restart", async () => {
    const short = createHub(hub.database, { replayWindowMs: 2000, limits: { agent: 10_000, updates: 10_000 } });
    const cursor = await now();
    const before = new Date(Date.now() - 1);
    const posted = await say("hum-maintainer", "agt-a", "while you were away");
    // Within the window: served.
    expect(
      (await updates(`wait=0&cursor=${cursor}`, T["agt-a"], short)).body.events.map(
        (e: UpdatesAnswer["events"][number]) => e.message.id,
      ),
    ).toEqual([`evt-${posted.seq}`]);
    await new Promise((r) => setTimeout(r, 2200));
    expect(await updates(`wait=0&cursor=${cursor}`, T["agt-a"], short)).toMatchObject({
      status: 409,
      body: { error: "cursor_expired", code: "CURSOR_EXPIRED" },
    });
    // Catch up over REST from the per-conversation watermark, then /updates without a cursor.
    const caughtUp = await call(
      short,
      `/conversations/${dmKey}/messages?since=${before.toISOString()}`,
      T["agt-a"] as string,
    );
    expect(caughtUp.body.messages.map((m: { id: string }) => m.id)).toContain(`evt-${posted.seq}`);
    const fresh = await updates("wait=0", T["agt-a"], short);
    expect(fresh).toMatchObject({ status: 200, body: { events: [] } });
    // A cursor that missed nothing stays good however old it is, and a new process (no memory) takes it.
    const later = createHub(hub.database);
    expect(await updates(`wait=0&cursor=${fresh.body.cursor}`, T["agt-a"], later)).toMatchObject({
      status: 200,
      body: { cursor: fresh.body.cursor, events: [] },
    });
  });
});

describe("GET /updates: limits", () => {
  it("B-141 B-361 B-382 its own bucket of 20 a minute: the 21st answers 429 UPDATES_RATE_LIMITED with retry-after, and the agent's 60/min budget is untouched", async () => {
    const limited = createHub(hub.database);
    const cursor = await now();
    for (let i = 0; i < 20; i++)
      expect((await updates(`wait=0&cursor=${cursor}`, T["agt-x"], limited)).status).toBe(200);
    const refused = await updates(`wait=0&cursor=${cursor}`, T["agt-x"], limited);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: "over 20 /updates calls a minute; back off the poll loop",
      code: "UPDATES_RATE_LIMITED",
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await call(limited, "/me", T["agt-x"] as string)).status).toBe(200);
  });

  it("B-010 B-011 a human's token, a missing and a made-up token answer 401", async () => {
    for (const token of [T["hum-maintainer"], "bay_made-up", ""])
      expect(await updates("wait=0", token)).toMatchObject({
        status: 401,
        body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" },
      });
  });
});

describe("a real client: curl drives a long-poll round", () => {
  it("B-127 curl holds GET /updates over HTTP and gets the message a human posts meanwhile; the next call with its cursor times out empty", async () => {
    const api = await startApiServer(hub);
    try {
      const cursor = await now();
      const run = promisify(execFile);
      const curl = (c: string) =>
        run("curl", [
          "-sS",
          "--max-time",
          "20",
          "-H",
          `Authorization: Bearer ${T["agt-a"]}`,
          `${api.url}/api/agent-api/updates?wait=10&cursor=${c}`,
        ]);
      const held = curl(cursor);
      await new Promise((r) => setTimeout(r, 300));
      const posted = await say("hum-maintainer", "agt-a", "hello from REST");
      const answer = JSON.parse((await held).stdout) as UpdatesAnswer;
      expect(answer.events.map((e) => [e.message.id, e.message.content, e.message.shouldRespond])).toEqual([
        [`evt-${posted.seq}`, "hello from REST", true],
      ]);
      const quiet = await run("curl", [
        "-sS",
        "-H",
        `Authorization: Bearer ${T["agt-a"]}`,
        `${api.url}/api/agent-api/updates?wait=0&cursor=${answer.cursor}`,
      ]);
      expect(JSON.parse(quiet.stdout)).toEqual({ cursor: answer.cursor, events: [] });
    } finally {
      await api.close();
    }
  });
});
