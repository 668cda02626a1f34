import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startApp } from "./clients";
import { freePort } from "./helpers";
import type pgTypes from "pg";
import WebSocket from "ws";

// Two app instances on one PostgreSQL, as users run them: the built app started twice the way
// `pnpm start` starts it (NODE_ENV=production, the same server.ts), on one DATABASE_URL. What one
// instance learns, the other must act on at once (docs/security.md, DESIGN §5):
// - login failures are counted once for both: 10 failures for one handle, spread across A and B,
//   and the 11th attempt is refused on either, even with the right password;
// - a token revoked through A closes the /ws held on B with 4001 (within a second), and the held
//   /updates on B answers 401;
// - a message posted through A reaches the agent's /updates held on B.
// Needs PostgreSQL (TEST_DATABASE_URL, which CI sets). How long the close took is reported, not
// asserted (a time limit fails on a busy machine, not on a wrong hub): the annotation says it.

const base = process.env.TEST_DATABASE_URL;
const ADMIN = "two-instances-admin";
const root = path.resolve(import.meta.dirname, "..");
// The driver is the database package's own dependency (the workspace root does not list it).
const pg = createRequire(path.join(root, "packages/db/package.json"))("pg") as typeof pgTypes;
const servers: ChildProcess[] = [];
let dbName = "";
let A = "";
let B = "";

test.skip(!base, "needs PostgreSQL: TEST_DATABASE_URL=postgresql://…");

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function start(databaseUrl: string): Promise<string> {
  const app = await startApp({ DATABASE_URL: databaseUrl, MAITY_ADMIN_TOKEN: ADMIN }, await freePort());
  servers.push(app.child);
  return app.url;
}

async function call(url: string, method: string, route: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = { "content-type": "application/json", origin: url };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${url}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(40_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  dbName = `maity_e2e_two_${process.pid}`;
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${dbName}"`);
  const url = new URL(base as string);
  url.pathname = `/${dbName}`;
  // One after the other: the first applies the migrations, the second finds them applied.
  A = await start(url.toString());
  B = await start(url.toString());
});

test.afterAll(async () => {
  for (const server of servers) server.kill("SIGTERM");
  await Promise.all(
    servers.map((s) => (s.exitCode === null ? new Promise((resolve) => s.once("exit", resolve)) : null)),
  );
  if (dbName) await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
});

test("login failures are counted once for both instances: the 11th attempt is refused on either", async () => {
  await call(A, "POST", "/api/admin/humans", ADMIN, { handle: "target", name: "Target", password: "right-password-1" });
  const login = (url: string, password: string) =>
    call(url, "POST", "/api/trpc/auth.login", undefined, { handle: "target", password }).then((r) => r.status);
  const failures: number[] = [];
  for (let i = 0; i < 10; i++) failures.push(await login(i % 2 === 0 ? A : B, "wrong-password-1"));
  expect(failures).toEqual(Array(10).fill(401));
  expect({ A: await login(A, "right-password-1"), B: await login(B, "right-password-1") }).toEqual({ A: 429, B: 429 });
});

test("a message posted through A reaches /updates held on B; a token revoked through A closes B's /ws (4001) and its held /updates (401)", async () => {
  await call(A, "POST", "/api/admin/humans", ADMIN, { handle: "poster", name: "Poster", password: "right-password-2" });
  await call(A, "POST", "/api/admin/projects", ADMIN, { owner: "poster", slug: "both", name: "Both" });
  const agent = (await call(A, "POST", "/api/admin/agents", ADMIN, {
    owner: "poster",
    handle: "listener",
    description: "listens on B",
  })) as { json: { id: string } };
  await call(A, "POST", "/api/admin/projects/poster/both/members", ADMIN, { member_id: agent.json.id });
  const agentToken = (await call(A, "POST", "/api/admin/tokens", ADMIN, { member_id: agent.json.id })).json
    ?.token as string;
  const humanToken = (await call(A, "POST", "/api/admin/tokens", ADMIN, { member_id: "hum-poster" })).json
    ?.token as string;

  // The agent's direct conversation: posted through A, read from /updates held on B.
  const now = await call(B, "GET", "/api/agent-api/updates?wait=0", agentToken);
  expect(now.status).toBe(200);
  const held = call(B, "GET", `/api/agent-api/updates?wait=20&cursor=${now.json?.cursor}`, agentToken);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const posted = await call(
    A,
    "POST",
    `/api/projects/poster/both/conversations/${agent.json.id}/messages`,
    humanToken,
    {
      body: "written through A",
    },
  );
  expect(posted.status).toBe(201);
  const answer = await held;
  expect(answer.status).toBe(200);
  const events = answer.json?.events as { message: { content: string } }[];
  expect(events.map((e) => e.message.content)).toEqual(["written through A"]);

  // A /ws and a held /updates on B; the token is revoked through A.
  const ws = new WebSocket(`${B.replace("http", "ws")}/api/agent-api/ws`, {
    headers: { authorization: `Bearer ${agentToken}` },
  });
  const frames: { t: string }[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ t: "hello" }));
  await expect.poll(() => frames.some((f) => f.t === "cursor")).toBe(true);
  const closed = new Promise<{ code: number; at: number }>((resolve) =>
    ws.once("close", (code) => resolve({ code, at: performance.now() })),
  );
  const waiting = call(B, "GET", "/api/agent-api/updates?wait=20", agentToken);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const revokedAt = performance.now();
  expect((await call(A, "POST", "/api/admin/tokens/revoke", ADMIN, { token: agentToken })).status).toBe(200);
  const close = await closed;
  expect(close.code).toBe(4001);
  test.info().annotations.push({
    type: "revoke → close",
    description: `${(close.at - revokedAt).toFixed(1)} ms from sending the revoke through A to B's close frame`,
  });
  expect((await waiting).status).toBe(401);
});
