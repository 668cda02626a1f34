import { openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { createHub, DEFAULT_LOGIN, type Hub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { handleTrpc } from "../src/fetch.ts";
import { type ApiServer, startApiServer } from "../src/node.ts";
import { ADMIN, BASE, restClient } from "./helpers.ts";

// DESIGN §5: two app instances on one PostgreSQL database. The login limits are one count for
// both (docs/security.md "Login limits"); a credential revoked through one is dropped from the
// other's memory when the NOTIFY arrives, and ends the /ws held there (B-156 4001). PGlite belongs
// to one process: this file runs on PostgreSQL only (CI's second pass).

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const REVOKED = { status: 401, body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" } };

describe.skipIf(!onPostgres)("two app instances on one PostgreSQL: login limits and revocation", () => {
  let a: Hub;
  let b: Hub;
  let apiA: ApiServer;
  let apiB: ApiServer;

  beforeAll(async () => {
    const database = await freshDatabase();
    const options = { limits: { agent: 10_000, updates: 10_000, ws: 10_000 } };
    a = createHub(database, options);
    b = createHub(await openDatabase({ databaseUrl: database.url as string, migrate: false }), options);
    await a.start();
    await b.start();
    await seedDemo(a);
    apiA = await startApiServer(a);
    apiB = await startApiServer(b);
  });
  afterAll(async () => {
    await apiB?.close();
    await apiA?.close();
    await b?.close();
    await a?.close();
  });

  /** tRPC auth.login as the dashboard sends it, from a client address (the Node dispatch's x-maity-remote). */
  async function login(hub: Hub, handle: string, password: string, address: string) {
    const res = await handleTrpc(
      hub,
      new Request(`${BASE}/api/trpc/auth.login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-maity-remote": address },
        body: JSON.stringify({ handle, password }),
      }),
    );
    const body = (await res.json()) as { error?: { data: { hubError: { code: string } | null } } };
    return { status: res.status, code: body.error?.data.hubError?.code ?? null };
  }

  const mint = async (memberId: string) =>
    (await restClient(a)("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: memberId } })).body
      .token as string;
  const updates = (api: ApiServer, token: string) =>
    fetch(`${api.url}/api/agent-api/updates?wait=0`, { headers: { authorization: `Bearer ${token}` } }).then(
      async (r) => ({ status: r.status, body: await r.json() }),
    );

  /** A /ws on `api` after hello and its first cursor frame; `closed` resolves with the close code. */
  async function socket(api: ApiServer, token: string) {
    const ws = new WebSocket(`${api.url.replace("http", "ws")}/api/agent-api/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })),
    );
    let cursor = false;
    ws.on("message", (data) => {
      if ((JSON.parse(String(data)) as { t: string }).t === "cursor") cursor = true;
    });
    await new Promise((resolve) => ws.on("open", resolve));
    ws.send(JSON.stringify({ t: "hello", resume: null }));
    for (let i = 0; i < 250 && !cursor; i++) await new Promise((r) => setTimeout(r, 20));
    expect(cursor).toBe(true);
    return { ws, closed };
  }
  /** Whether an upgrade with `token` is refused with 401. */
  const upgradeRefused = (api: ApiServer, token: string) =>
    new Promise<number>((resolve) => {
      const ws = new WebSocket(`${api.url.replace("http", "ws")}/api/agent-api/ws`, {
        headers: { authorization: `Bearer ${token}` },
      });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => {
        ws.close();
        resolve(101);
      });
      ws.on("error", () => {});
    });
  /** `promise`'s value, or `fallback` once `ms` passed: a bound against a hang, not a timing. */
  const within = <T, F>(promise: Promise<T>, ms: number, fallback: F) =>
    Promise.race([promise, new Promise<F>((r) => setTimeout(() => r(fallback), ms))]);

  it("login limits: 10 failed logins for one handle spread over both instances, and the 11th is refused on either", async () => {
    expect(DEFAULT_LOGIN.failuresPerHandle).toBe(10);
    for (let i = 0; i < 10; i++) {
      // Another address each time: only the handle's count is at stake.
      const answer = await login(i % 2 ? a : b, "guest", "wrong-password", `198.51.100.${i + 1}`);
      expect(answer).toEqual({ status: 401, code: "unauthenticated" });
    }
    // Counted per process, each instance would have seen 5 failures and let these through.
    expect(await login(a, "guest", "wrong-password", "198.51.100.20")).toEqual({ status: 429, code: "rate_limited" });
    expect(await login(b, "guest", "guest-demo", "198.51.100.21")).toEqual({ status: 429, code: "rate_limited" });
    // Another handle is untouched, on either instance.
    expect((await login(b, "maintainer", "maintainer-demo", "198.51.100.22")).status).toBe(200);
  });

  it("B-156 a token revoked through instance A ends the /ws held on instance B (4001) and authenticates on neither", async () => {
    const token = await mint("agt-a");
    // Both instances hold the token in memory: B answers its next call without reading it.
    expect((await updates(apiA, token)).status).toBe(200);
    expect((await updates(apiB, token)).status).toBe(200);
    const statements: string[] = [];
    const stop = b.database.observeQueries((sql) => statements.push(sql));
    expect((await updates(apiB, token)).status).toBe(200);
    stop();
    expect(statements.filter((sql) => /access_tokens/.test(sql))).toEqual([]);
    const held = await socket(apiB, token);
    const revoked = await restClient(a)("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } });
    expect(revoked.body).toEqual({ revoked: true });
    expect(await within(held.closed, 10_000, "still open")).toEqual({ code: 4001, reason: "credential revoked" });
    expect(await updates(apiA, token)).toEqual(REVOKED);
    expect(await updates(apiB, token)).toEqual(REVOKED);
    expect(await upgradeRefused(apiA, token)).toBe(401);
    expect(await upgradeRefused(apiB, token)).toBe(401);
  });

  it("a revocation while B's LISTEN connection is down: B stops serving from memory, and its /ws closes when B listens again", async () => {
    const token = await mint("agt-x");
    expect((await updates(apiB, token)).status).toBe(200);
    const held = await socket(apiB, token);
    // Cut every LISTEN connection; wait until B knows (its bus stops hearing), then revoke through A:
    // its NOTIFY never reaches B.
    await a.db.$queryRawUnsafe(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN maity_bus' AND pid <> pg_backend_pid()",
    );
    for (let i = 0; i < 200 && b.bus.hearing; i++) await new Promise((r) => setTimeout(r, 10));
    await restClient(a)("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } });
    expect(await updates(apiB, token)).toEqual(REVOKED);
    // Back (within a few seconds), B checks the credentials of what it holds open.
    expect(await within(held.closed, 10_000, "still open")).toEqual({ code: 4001, reason: "credential revoked" });
    expect(b.bus.hearing).toBe(true);
    expect(await updates(apiB, token)).toEqual(REVOKED);
  });
});
