import { createHub, type Hub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { handleTrpc } from "../src/fetch.ts";
import { type ApiServer, startApiServer } from "../src/node.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// DESIGN §5 "idle costs nothing": an authenticated credential is kept in memory, so an idle agent's
// /updates cycle and /ws cost no statement between messages; B-011 / B-156: a revocation or a
// logout drops it at once, and ends what is held open on it. Runs on PGlite and on PostgreSQL.

const REVOKED = { status: 401, body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" } };
const hub = await testHub({ limits: { agent: 10_000, updates: 10_000, ws: 10_000 } });
const rest = restClient(hub);
let api: ApiServer;

beforeAll(async () => {
  await hub.start();
  await seedDemo(hub);
  api = await startApiServer(hub, { sockets: { idleCursorMs: 100 } });
});
afterAll(async () => {
  await api.close();
  await hub.close();
});

async function mint(memberId: string): Promise<string> {
  const res = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: memberId } });
  expect(res.status).toBe(201);
  return res.body.token as string;
}
const revoke = (token: string) => rest("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } });
const updates = (on: Hub, query: string, token: string) =>
  restClient(on)("GET", `/api/agent-api/updates?${query}`, { token });

/** The SQL statements `hub` runs while `fn` does. */
async function statementsDuring(on: Hub, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = on.database.observeQueries((sql) => seen.push(sql));
  try {
    await fn();
  } finally {
    stop();
  }
  return seen;
}

/** tRPC as the dashboard calls it, with a cookie or a bearer. */
const trpc = (path: string, headers: Record<string, string>, init: RequestInit = {}) =>
  handleTrpc(hub, new Request(`${BASE}/api/trpc/${path}`, { ...init, headers: { ...headers, origin: BASE } }));
const me = async (headers: Record<string, string>) =>
  ((await (await trpc("auth.me", headers)).json()) as { result?: { data: { id: string } | null } }).result?.data ??
  null;

/** The dashboard's live feed over SSE; `ended(ms)` says whether the stream ended within that bound. */
async function openFeed(headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await trpc(
    `live.feed?input=${encodeURIComponent("{}")}`,
    { accept: "text/event-stream", ...headers },
    {
      signal: controller.signal,
    },
  );
  expect(res.status).toBe(200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return true;
      text += new TextDecoder().decode(value);
    }
  })();
  return {
    text: () => text,
    ended: (ms: number) => Promise.race([pump, new Promise<boolean>((r) => setTimeout(() => r(false), ms))]),
    close: () => controller.abort(),
  };
}

describe("credentials kept in memory (DESIGN §5: idle costs nothing)", () => {
  it("B-127 an idle agent's /updates cycle runs no SQL statement: its token is not read again", async () => {
    const token = await mint("agt-a");
    const { cursor } = (await updates(hub, "wait=0", token)).body;
    const idle = await statementsDuring(hub, async () => {
      for (let i = 0; i < 3; i++) expect((await updates(hub, `wait=0&cursor=${cursor}`, token)).status).toBe(200);
    });
    expect(idle).toEqual([]);
    // The same calls on a hub that keeps no credential read the token each time: one statement a call.
    // (Another hub over the same database, not started: closing it would close the database.)
    const uncached = createHub(hub.database, { credentialCache: { size: 0 } });
    await uncached.bus.ready();
    const read = await statementsDuring(uncached, () => updates(uncached, `wait=0&cursor=${cursor}`, token));
    expect(read).toHaveLength(1);
  });

  it("B-153 an idle /ws runs no SQL statement between messages (cursor frames every idleCursorMs)", async () => {
    const token = await mint("agt-x");
    const ws = new WebSocket(`${api.url.replace("http", "ws")}/api/agent-api/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    let cursors = 0;
    ws.on("message", (data) => {
      if ((JSON.parse(String(data)) as { t: string }).t === "cursor") cursors += 1;
    });
    await new Promise((resolve) => ws.on("open", resolve));
    ws.send(JSON.stringify({ t: "hello", resume: null }));
    for (let i = 0; i < 100 && cursors === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const idle = await statementsDuring(hub, async () => {
      const from = cursors;
      for (let i = 0; i < 100 && cursors < from + 3; i++) await new Promise((r) => setTimeout(r, 20));
    });
    expect(cursors).toBeGreaterThanOrEqual(4);
    expect(idle).toEqual([]);
    ws.close();
  });

  it("B-011 a cached token is refused at once after its revocation returns", async () => {
    const token = await mint("agt-a");
    const { cursor } = (await updates(hub, "wait=0", token)).body;
    expect((await updates(hub, `wait=0&cursor=${cursor}`, token)).status).toBe(200);
    expect(await statementsDuring(hub, () => updates(hub, `wait=0&cursor=${cursor}`, token))).toEqual([]);
    expect((await revoke(token)).body).toEqual({ revoked: true });
    expect(await updates(hub, `wait=0&cursor=${cursor}`, token)).toEqual(REVOKED);
  });

  it("a cached session is refused at once after its logout; a person's cached token after its revocation", async () => {
    const login = await trpc(
      "auth.login",
      { "content-type": "application/json", "x-maity-remote": "192.0.2.70" },
      { method: "POST", body: JSON.stringify({ handle: "guest", password: "guest-demo" }) },
    );
    const cookie = login.headers.get("set-cookie")?.split(";")[0] ?? "";
    expect(cookie).toMatch(/^maity_session=./);
    expect((await me({ cookie }))?.id).toBe("hum-guest");
    expect(await statementsDuring(hub, () => me({ cookie }))).toEqual([]);
    const out = await trpc(
      "auth.logout",
      { cookie, "content-type": "application/json" },
      { method: "POST", body: "{}" },
    );
    expect(out.status).toBe(200);
    expect(await me({ cookie })).toBeNull();

    const token = await mint("hum-maintainer");
    expect((await me({ authorization: `Bearer ${token}` }))?.id).toBe("hum-maintainer");
    await revoke(token);
    expect(await me({ authorization: `Bearer ${token}` })).toBeNull();
  });

  it("B-011 B-156 a revocation ends a held /updates and an SSE stream of a cached credential", async () => {
    const agentToken = await mint("agt-a");
    const humanToken = await mint("hum-maintainer");
    const { cursor } = (await updates(hub, "wait=0", agentToken)).body;
    expect((await me({ authorization: `Bearer ${humanToken}` }))?.id).toBe("hum-maintainer");
    const held = updates(hub, `wait=30&cursor=${cursor}`, agentToken);
    const feed = await openFeed({ authorization: `Bearer ${humanToken}` });
    expect(await feed.ended(300)).toBe(false);
    await revoke(agentToken);
    await revoke(humanToken);
    // Bounded waits, not timings: the held call answers 401 and the stream ends (UNAUTHORIZED).
    const answer = await Promise.race([held, new Promise((r) => setTimeout(() => r("still held"), 10_000))]);
    expect(answer).toEqual(REVOKED);
    const ended = await feed.ended(10_000);
    feed.close();
    expect(ended).toBe(true);
    expect(feed.text()).toMatch(/UNAUTHORIZED/);
  });
});
