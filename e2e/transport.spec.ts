import { expect, test } from "@playwright/test";
import WebSocket from "ws";
import { pythonSocket } from "./clients";

// One server, one module graph: every transport against the built app started as README
// says (`pnpm start`), after ordinary HTTP traffic has gone through Next's request handler — the
// state in which Next 16 once put its own upgrade listener on the server and ended /ws upgrades.
// Each wait is bounded; nothing asserts how long anything took.

const ADMIN = { authorization: "Bearer e2e-admin-token" };
const DM = "/api/projects/maintainer/maity/conversations/agt-a/messages";

let base = "";
let agentToken = "";
let humanToken = "";

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(40_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
}

async function mint(memberId: string): Promise<string> {
  const minted = await call("POST", "/api/admin/tokens", { headers: ADMIN, body: { member_id: memberId } });
  expect(minted.status, minted.text).toBe(201);
  return minted.json?.token as string;
}

/** A human (the seeded maintainer) writes to agent-a over Maity's REST route; the message's id. */
async function post(body: string): Promise<string> {
  const posted = await call("POST", DM, { token: humanToken, body: { body } });
  expect(posted.status, posted.text).toBe(201);
  return posted.json?.id as string;
}

/** A promise `run` settles, rejected after `ms` saying what was awaited. */
function within<T>(
  ms: number,
  what: string,
  run: (resolve: (value: T) => void, reject: (error: Error) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
    run(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

test.beforeAll(async () => {
  base = String(test.info().project.use.baseURL);
  // Ordinary traffic first: pages and assets through Next, then the API (REST and tRPC).
  for (const path of ["/", "/login"])
    expect((await fetch(`${base}${path}`, { signal: AbortSignal.timeout(40_000) })).status, path).toBe(200);
  expect((await call("GET", "/api/health")).json).toMatchObject({ ok: true });
  agentToken = await mint("agt-a");
  humanToken = await mint("hum-maintainer");
  expect((await call("GET", "/api/projects/maintainer/maity/members", { token: humanToken })).status).toBe(200);
  expect((await call("GET", "/api/trpc/auth.me", { token: humanToken })).json).toMatchObject({
    result: { data: { id: "hum-maintainer" } },
  });
});

test("B-146 B-148 B-150 B-152 /ws opens on the built app after other HTTP traffic (Node's ws): hello, then the event of a message a human posts over REST", async () => {
  const url = `${base.replace(/^http/, "ws")}/api/agent-api/ws`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${agentToken}` } });
  const frames: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data) => {
    frames.push(JSON.parse(String(data)));
    for (const wake of waiters.splice(0)) wake();
  });
  const frame = (what: string, match: (f: Record<string, unknown>) => boolean) =>
    within<Record<string, unknown>>(15_000, what, (resolve, reject) => {
      ws.once("close", (code) => reject(new Error(`socket closed (${code}) before ${what}`)));
      const look = () => {
        const found = frames.find(match);
        if (found) resolve(found);
        else waiters.push(look);
      };
      look();
    });
  try {
    await within<void>(15_000, "upgrade", (resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
      ws.once("error", reject);
    });
    ws.send(JSON.stringify({ t: "hello", resume: null }));
    // The answer to hello: the position the stream runs from.
    expect(await frame("cursor frame after hello", (f) => f.t === "cursor")).toEqual({
      t: "cursor",
      cursor: expect.stringMatching(/^u[0-9a-z]+$/),
    });
    const content = `over Node's ws ${Date.now()}`;
    const id = await post(content);
    const event = await frame("event frame", (f) => f.t === "event");
    expect(event).toMatchObject({ t: "event", type: "message", message: { id, content, senderId: "hum-maintainer" } });
    expect(event).not.toHaveProperty("cursor");
    // B-152: the batch is the client's once its cursor frame follows.
    await frame("cursor frame after the event", (f) => f.t === "cursor" && frames.indexOf(f) > frames.indexOf(event));
  } finally {
    ws.close();
  }
});

test("B-146 B-150 B-152 /ws opens on the built app from Python (Debian's websockets): hello, then the event of a message a human posts over REST", async () => {
  const content = `over Python's websockets ${Date.now()}`;
  const socket = await pythonSocket(base, agentToken, content);
  const id = await post(content);
  const { code, err, frames } = await socket.done();
  expect(code, err).toBe(0);
  const [first, event] = frames;
  expect(first).toEqual({ t: "cursor", cursor: expect.stringMatching(/^u[0-9a-z]+$/) });
  expect(event).toMatchObject({ t: "event", type: "message", message: { id, content, senderId: "hum-maintainer" } });
});

test("B-127 B-129 /updates?wait=10 is held and answers with a message posted meanwhile", async () => {
  const start = await call("GET", "/api/agent-api/updates?wait=0", { token: agentToken });
  expect(start.status, start.text).toBe(200);
  const cursor = start.json?.cursor as string;
  expect(cursor).toMatch(/^u[0-9a-z]+$/);
  const held = call("GET", `/api/agent-api/updates?wait=10&cursor=${cursor}`, { token: agentToken });
  // Give the call time to be parked; if the post lands first it is still the first event after the cursor.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const content = `while /updates is held ${Date.now()}`;
  const id = await post(content);
  const answer = await held;
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json).toMatchObject({
    cursor: expect.stringMatching(/^u[0-9a-z]+$/),
    events: [{ type: "message", message: { id, content } }],
  });
  expect(answer.json?.cursor).not.toBe(cursor);
});

test("B-138 /updates with a cursor ahead of the log answers 409 CURSOR_EXPIRED (one module graph: the hub's own error class)", async () => {
  const ahead = `u${(10 ** 9).toString(36)}`;
  const answer = await call("GET", `/api/agent-api/updates?wait=0&cursor=${ahead}`, { token: agentToken });
  expect(answer.status, answer.text).toBe(409);
  expect(answer.json).toEqual({ error: "cursor_expired", code: "CURSOR_EXPIRED" });
});

test("the dashboard's live feed: tRPC live.feed over SSE with the session cookie streams an item after a post", async () => {
  const login = await call("POST", "/api/trpc/auth.login", {
    body: { handle: "maintainer", password: "maintainer-demo" },
  });
  expect(login.status, login.text).toBe(200);
  const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  expect(cookie).toMatch(/^maity_session=./);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 30_000);
  try {
    const res = await fetch(`${base}/api/trpc/live.feed?input=${encodeURIComponent(JSON.stringify({}))}`, {
      headers: { cookie, accept: "text/event-stream" },
      signal: stop.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const until = async (what: string, done: () => boolean) => {
      while (!done()) {
        const { value, done: ended } = await reader.read();
        if (ended) throw new Error(`the stream ended before ${what}: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    // The head and tRPC's `connected` event arrive before anything happens: the stream is not buffered.
    await until("the connected event", () => text.includes("event: connected"));
    const id = await post(`to the live feed ${Date.now()}`);
    const seq = Number(id.replace(/^evt-/, ""));
    const item = () =>
      text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice(6)) as { seq?: number; kind?: string; conversation_id?: string })
        .find((data) => data.seq === seq);
    await until("the posted message's item", () => item() !== undefined);
    expect(item()).toMatchObject({
      seq,
      kind: "message",
      conversation_id: "agt-a",
      project: { owner: "maintainer", slug: "maity" },
    });
    expect(text).toContain(`id: ${seq}`);
    await reader.cancel();
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
});

test("tRPC and REST answer on the app server as before (batch, errors, cookies, health, 404)", async () => {
  // tRPC: a batched GET as httpBatchLink sends it, and the hub's error on the wire.
  const batch = await call(
    "GET",
    `/api/trpc/auth.me,projects.mine?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`,
    { token: humanToken },
  );
  expect(batch.status, batch.text).toBe(200);
  expect(batch.json).toMatchObject([
    { result: { data: { id: "hum-maintainer", kind: "human" } } },
    { result: { data: expect.arrayContaining([expect.objectContaining({ owner: "maintainer", slug: "maity" })]) } },
  ]);
  const anonymous = await call("GET", "/api/trpc/projects.mine");
  expect(anonymous.status).toBe(401);
  expect(anonymous.json).toMatchObject({ error: { data: { hubError: { code: "unauthenticated" } } } });
  const wrong = await call("POST", "/api/trpc/auth.login", {
    body: { handle: "maintainer", password: "wrong-password" },
  });
  expect(wrong.status).toBe(401);
  expect(wrong.headers.getSetCookie()).toEqual([]);
  // REST: the health route, an authenticated read, a write, the hub's error shape, an unknown path.
  // The built app started as README says keeps files on this machine's disk (no MAITY_S3_BUCKET).
  expect((await call("GET", "/api/health")).json).toMatchObject({
    ok: true,
    database: { engine: expect.any(String) },
    files: { store: "local" },
  });
  const members = await call("GET", "/api/projects/maintainer/maity/members", { token: humanToken });
  expect(members.status).toBe(200);
  // DESIGN §4c: the members as {items}, each with its status and visiting.
  expect(members.json.items).toEqual(
    expect.arrayContaining([expect.objectContaining({ member_id: "agt-a", kind: "agent", visiting: null })]),
  );
  const id = await post(`over REST ${Date.now()}`);
  const seq = Number(id.replace(/^evt-/, ""));
  const read = await call("GET", `${DM}?after=${seq - 1}&limit=5`, { token: humanToken });
  expect(read.status, read.text).toBe(200);
  expect(read.json).toMatchObject({ items: [{ id, seq, conversation_id: "agt-a", from: "hum-maintainer" }] });
  const anonymousRest = await call("GET", "/api/projects/maintainer/maity/members");
  expect(anonymousRest.status).toBe(401);
  expect(anonymousRest.json).toMatchObject({ error: { code: "unauthenticated" } });
  const unknown = await call("GET", "/api/no-such-route", { token: humanToken });
  expect(unknown.status).toBe(404);
  expect(unknown.json).toMatchObject({ error: { code: "not_found" } });
  // The agent API beside them.
  expect((await call("GET", "/api/agent-api/me", { token: agentToken })).json).toMatchObject({ id: "agt-a" });
});

test("a retried send with the same Idempotency-Key writes one message, on the Maity routes and the agent API", async () => {
  const key = `retry-${Date.now()}`;
  const body = { body: `retried ${key}` };
  const first = await call("POST", DM, { token: humanToken, body, headers: { "idempotency-key": key } });
  const again = await call("POST", DM, { token: humanToken, body, headers: { "idempotency-key": key } });
  expect([first.status, again.status], again.text).toEqual([201, 200]);
  expect(again.json).toEqual(first.json);
  const other = await call("POST", DM, {
    token: humanToken,
    body: { body: "something else" },
    headers: { "idempotency-key": key },
  });
  expect(other.status).toBe(409);
  expect(other.json).toMatchObject({
    error: { code: "conflict", details: { fields: { idempotency_key: "reused_with_other_body" } } },
  });
  const rooms = (await call("GET", "/api/agent-api/conversations", { token: agentToken })).json as {
    conversations: { id: string; maity: { id: string } }[];
  };
  const room = rooms.conversations.find((r) => r.maity.id === "agt-a")?.id as string;
  const send = { content: `agent retried ${key}`, clientMessageId: key };
  const a = await call("POST", `/api/agent-api/conversations/${room}/messages`, { token: agentToken, body: send });
  const b = await call("POST", `/api/agent-api/conversations/${room}/messages`, { token: agentToken, body: send });
  expect([a.status, b.status], b.text).toEqual([201, 200]);
  expect((b.json as { id: string }).id).toBe((a.json as { id: string }).id);
  const read = await call("GET", `${DM}?after=${Number((first.json as { seq: number }).seq) - 1}&limit=50`, {
    token: humanToken,
  });
  const bodies = (read.json as { items: { body: string }[] }).items.map((m) => m.body);
  expect(bodies.filter((x) => x === body.body)).toHaveLength(1);
  expect(bodies.filter((x) => x === send.content)).toHaveLength(1);
});
