import { openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { createHub, DEFAULT_LOGIN, type Hub, type HubOptions, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { handleTrpc } from "../src/fetch.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// Login is rate limited, and revocation reaches open connections (held /updates, SSE streams).
// Runs on PGlite and on PostgreSQL (TEST_DATABASE_URL); the two-instance part on PostgreSQL only
// (PGlite belongs to one process).

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const M = "/api/projects/maintainer/maity";
const REVOKED = { status: 401, body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" } };
const base = await testHub({ limits: { agent: 10_000, updates: 10_000 } });
const hubs: Hub[] = [];
afterAll(async () => {
  for (const h of hubs) await h.close();
  await base.close();
});
beforeAll(() => seedDemo(base));

/** Another hub (its own options, limits and bus) over the one seeded database: a fresh one costs seconds. */
function variant(options: HubOptions = {}): Hub {
  return createHub(base.database, options);
}

/** tRPC auth.login as the dashboard sends it, from a client address (the Node dispatch's x-maity-remote). */
async function login(hub: Hub, handle: string, password: string, address = "198.51.100.1") {
  const res = await handleTrpc(
    hub,
    new Request(`${BASE}/api/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-maity-remote": address },
      body: JSON.stringify({ handle, password }),
    }),
  );
  const body = (await res.json()) as { error?: { data: { hubError: unknown } } };
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    hubError: body.error?.data.hubError ?? null,
    cookie: res.headers.get("set-cookie")?.split(";")[0] ?? null,
  };
}

const logout = (hub: Hub, cookie: string) =>
  handleTrpc(
    hub,
    new Request(`${BASE}/api/trpc/auth.logout`, {
      method: "POST",
      // CSRF: a cookie change comes from the hub's own origin, as the dashboard's does.
      headers: { cookie, "content-type": "application/json", origin: BASE },
      body: "{}",
    }),
  );

/** The dashboard's live feed over SSE (tRPC's httpSubscriptionLink): the body read as it streams. */
async function openFeed(hub: Hub, headers: Record<string, string>) {
  const controller = new AbortController();
  const url = `${BASE}/api/trpc/live.feed?input=${encodeURIComponent("{}")}`;
  const init = { headers: { accept: "text/event-stream", ...headers }, signal: controller.signal };
  const res = await handleTrpc(hub, new Request(url, init));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let closed = false;
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    closed = true;
  })();
  return {
    text: () => text,
    /** Whether the stream ended within `ms`. */
    endsWithin: (ms: number) =>
      Promise.race([pump.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(closed), ms))]),
    close: () => {
      controller.abort();
      reader.cancel().catch(() => {});
    },
  };
}

async function updates(hub: Hub, query: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const res = await handleRest(hub, new Request(`${BASE}/api/agent-api/updates?${query}`, { headers }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function mint(hub: Hub, memberId: string): Promise<string> {
  const res = await restClient(hub)("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: memberId } });
  expect(res.status).toBe(201);
  return res.body.token as string;
}

const revoke = (hub: Hub, token: string) =>
  restClient(hub)("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } });

describe("login is rate limited", () => {
  it("defaults: 30 attempts/min per address, 10 failures per handle per 15 min, 2 hashes", () => {
    expect(DEFAULT_LOGIN).toEqual({
      perAddress: 30,
      failuresPerHandle: 10,
      failureWindowMs: 15 * 60_000,
      hashes: 2,
      queue: 50,
    });
  });

  it("a flood of wrong passwords → 429 Retry-After, a known and an unknown handle alike", async () => {
    // 5 failures per handle, one back every 2 s; the address budget out of the way.
    const hub = variant({ login: { failuresPerHandle: 5, failureWindowMs: 10_000, perAddress: 1_000 } });
    const flood = (handle: string, address: string) =>
      Promise.all(Array.from({ length: 20 }, () => login(hub, handle, "wrong-password", address)));
    const [known, unknown] = await Promise.all([flood("guest", "198.51.100.7"), flood("nobody", "198.51.100.8")]);
    for (const answers of [known, unknown]) {
      // The budget is spent before the hash: of 20 concurrent guesses only 5 are tried at all.
      expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(15);
      for (const r of refused) expect(r.retryAfter).toBe("2");
    }
    // Nothing tells a known handle from an unknown one.
    const shapes = (all: typeof known) =>
      all
        .map((a) => ({ status: a.status, retryAfter: a.retryAfter, hubError: a.hubError }))
        .sort((a, b) => a.status - b.status);
    expect(shapes(known)).toEqual(shapes(unknown));
    expect(known.find((a) => a.status === 429)?.hubError).toEqual({
      code: "rate_limited",
      message: "too many login attempts; try again in 2 s",
      details: { limit: "login", retry_after: 2 },
      status: 429,
    });
    // Handles are limited as normalised: another spelling is the same handle.
    expect((await login(hub, "  GUEST ", "guest-demo", "203.0.113.9")).status).toBe(429);
    // The owner, from another address, waits Retry-After (one failure's share of the window), then logs in.
    await new Promise((r) => setTimeout(r, 2_100));
    const owner = await login(hub, "guest", "guest-demo", "203.0.113.9");
    expect(owner.status).toBe(200);
    expect(owner.cookie).toMatch(/^maity_session=/);
    // A success gives its token back: the owner can log in again at once.
    expect((await login(hub, "guest", "guest-demo", "203.0.113.9")).status).toBe(200);
  });

  it("per address: over it 429 Retry-After whatever the handle; other addresses untouched", async () => {
    const hub = variant({ login: { perAddress: 3 } });
    const here = "192.0.2.10";
    expect((await login(hub, "guest", "wrong-password", here)).status).toBe(401);
    expect((await login(hub, "nobody", "wrong-password", here)).status).toBe(401);
    expect((await login(hub, "maintainer", "maintainer-demo", here)).status).toBe(200);
    const known = await login(hub, "guest", "guest-demo", here);
    const unknown = await login(hub, "nobody-else", "guest-demo", here);
    const limited = expect.objectContaining({ code: "rate_limited" });
    // The wait counts down in whole seconds from the window's 20 (a loaded machine may be a second on).
    const waitOf = (a: typeof known) => Number(a.retryAfter);
    expect(known).toEqual({ status: 429, retryAfter: expect.any(String), hubError: limited, cookie: null });
    expect(waitOf(known)).toBeGreaterThanOrEqual(18);
    expect(waitOf(known)).toBeLessThanOrEqual(20);
    expect({ ...unknown, retryAfter: null, hubError: null }).toEqual({ ...known, retryAfter: null, hubError: null });
    expect(Math.abs(waitOf(unknown) - waitOf(known))).toBeLessThanOrEqual(1);
    expect((await login(hub, "guest", "guest-demo", "192.0.2.11")).status).toBe(200);
  });

  it("scrypt is bounded: 100 concurrent logins hash 2 at a time; past the queue, 429", async () => {
    const open = { perAddress: 10_000, failuresPerHandle: 10_000 };
    const hub = variant({ login: { ...open, hashes: 2, queue: 1_000 } });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => login(hub, i % 2 ? "guest" : `nobody-${i}`, "wrong", `10.0.0.${i}`)),
    );
    expect(answers.every((a) => a.status === 401)).toBe(true);
    expect(hub.auth.hashing()).toEqual({ running: 0, waiting: 0, peak: 2 });

    const small = variant({ login: { ...open, hashes: 1, queue: 3 } });
    const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => login(small, "guest", "bad", `10.0.1.${i}`)));
    // One hashing, three waiting: the other six are turned away before any work.
    expect(burst.filter((a) => a.status === 401)).toHaveLength(4);
    expect(burst.filter((a) => a.status === 429).map((a) => a.retryAfter)).toEqual(Array(6).fill("1"));
    expect(small.auth.hashing().peak).toBe(1);
  });
});

describe("revocation reaches held and streaming reads", () => {
  const hub = base;

  it("a held /updates ends with 401 UNAUTHORIZED when its token is revoked", async () => {
    const token = await mint(hub, "agt-a");
    const { cursor } = (await updates(hub, "wait=0", token)).body;
    const started = Date.now();
    const held = updates(hub, `wait=20&cursor=${cursor}`, token);
    await new Promise((r) => setTimeout(r, 200));
    expect((await revoke(hub, token)).body).toEqual({ revoked: true });
    expect(await held).toEqual(REVOKED);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a held /updates hands no event written after its revocation, bus or not", async () => {
    const token = await mint(hub, "agt-a");
    const maintainer = await mint(hub, "hum-maintainer");
    const { cursor } = (await updates(hub, "wait=0", token)).body;
    const held = updates(hub, `wait=20&cursor=${cursor}`, token);
    await new Promise((r) => setTimeout(r, 200));
    // Revoked on the database with no bus message yet (as when another instance's NOTIFY is late) ...
    const revokedAt = new Date();
    await hub.db.accessToken.updateMany({ where: { agentId: "agt-a", revokedAt: null }, data: { revokedAt } });
    // ... then a message to the agent: it wakes the held call, which must not hand it over.
    const body = { body: "after the revocation" };
    const posted = await restClient(hub)("POST", `${M}/conversations/agt-a/messages`, { token: maintainer, body });
    expect(posted.status).toBe(201);
    expect(await held).toEqual(REVOKED);
    const event = await hub.db.event.findUnique({ where: { seq: posted.body.seq }, select: { deliveredAt: true } });
    expect(event?.deliveredAt).toBeNull();
  });

  it("the dashboard's SSE stream ends when its session logs out", async () => {
    const { cookie } = await login(hub, "guest", "guest-demo", "192.0.2.50");
    const feed = await openFeed(hub, { cookie: cookie as string });
    expect(await feed.endsWithin(300)).toBe(false);
    expect((await logout(hub, cookie as string)).status).toBe(200);
    const ended = await feed.endsWithin(5_000);
    feed.close();
    expect(ended).toBe(true);
    expect(feed.text()).toMatch(/UNAUTHORIZED/);
  });

  it("an SSE stream on a human's token ends when it is revoked; another's revoking not", async () => {
    const token = await mint(hub, "hum-maintainer");
    const other = await mint(hub, "hum-guest");
    const feed = await openFeed(hub, { authorization: `Bearer ${token}` });
    await revoke(hub, other);
    expect(await feed.endsWithin(500)).toBe(false);
    await revoke(hub, token);
    const ended = await feed.endsWithin(5_000);
    feed.close();
    expect(ended).toBe(true);
  });

  it("the SSE stream ends when its session expires (sessionTtlMs)", async () => {
    const short = variant({ sessionTtlMs: 1_500 });
    const { cookie } = await login(short, "guest", "guest-demo", "192.0.2.51");
    const feed = await openFeed(short, { cookie: cookie as string });
    expect(await feed.endsWithin(500)).toBe(false);
    const ended = await feed.endsWithin(5_000);
    feed.close();
    expect(ended).toBe(true);
    expect(feed.text()).toMatch(/UNAUTHORIZED/);
  });
});

describe.skipIf(!onPostgres)("revocation on two app instances (PostgreSQL: the bus NOTIFYs)", () => {
  let a: Hub;
  let b: Hub;
  beforeAll(async () => {
    const database = await freshDatabase();
    const options = { limits: { agent: 10_000, updates: 10_000 } };
    a = createHub(database, options);
    const second = await openDatabase({ databaseUrl: database.url as string, migrate: false });
    b = createHub(second, options);
    hubs.push(b, a);
    await a.start();
    await b.start();
    await seedDemo(a);
  });

  it("a logout through instance A ends the SSE stream held on instance B", async () => {
    const { cookie } = await login(a, "guest", "guest-demo", "192.0.2.60");
    const feed = await openFeed(b, { cookie: cookie as string });
    expect(await feed.endsWithin(300)).toBe(false);
    expect((await logout(a, cookie as string)).status).toBe(200);
    const ended = await feed.endsWithin(5_000);
    feed.close();
    expect(ended).toBe(true);
  });

  it("a revocation through instance A ends a /updates held on instance B with 401", async () => {
    const token = await mint(a, "agt-a");
    const { cursor } = (await updates(b, "wait=0", token)).body;
    const held = updates(b, `wait=20&cursor=${cursor}`, token);
    await new Promise((r) => setTimeout(r, 300));
    await revoke(a, token);
    expect(await held).toEqual(REVOKED);
  });
});
