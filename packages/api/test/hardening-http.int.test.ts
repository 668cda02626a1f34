import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { REQUEST_BODY_MAX_BYTES } from "@maity/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REQUEST_BODY_MAX_BYTES as AGENT_BODY_MAX_BYTES } from "@maity/domain";
import { PREAUTH_BODY_MAX_BYTES } from "../src/body.ts";
import { type ApiServer, startApiServer } from "../src/node.ts";
import { createHub, type Hub } from "@maity/hub";
import { readSettings } from "../src/config.ts";
import { handleRest } from "../src/rest/index.ts";
import { pumpChunked } from "./chunked.ts";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// The HTTP edge through the real Node server with raw HTTP: bodies stop at their limit
// (chunked, no Content-Length, on every route family), malformed percent-encoding is a named
// 400 or no session, never a 500, a cookie-borne change must be same-origin JSON (CSRF).

const hub = await testHub();
const rest = restClient(hub);
let api: ApiServer;
const P = "/api/projects/maintainer/maity";
let token = "";
let agentToken = "";
let chat = "";
let cookie = "";
let origin = "";

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown> | null;
  /** Bytes of the body the client got written before the answer came. */
  written: number;
}

/**
 * One raw request. `body` is sent as is (with its Content-Length); `stream` bytes are generated
 * 64 KiB at a time as a chunked body with no Content-Length, until the answer comes.
 */
function send(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; stream?: number } = {},
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${method} ${path} within 30 s`)), 30_000);
    let progress = { written: 0 };
    let answered = false;
    const req = httpRequest(`${api.url}${path}`, { method, headers: options.headers ?? {} });
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString("utf8");
        let json: Record<string, unknown> | null = null;
        try {
          json = text ? (JSON.parse(text) as Record<string, unknown>) : null;
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, written: progress.written });
        req.destroy();
      });
    });
    req.on("error", (error) => {
      // The server closes the connection after its answer; writing on may then fail (EPIPE/ECONNRESET).
      if (!answered) {
        clearTimeout(timer);
        reject(error);
      }
    });
    if (options.stream === undefined) {
      req.end(options.body);
      return;
    }
    progress = pumpChunked(req, options.stream, () => answered);
  });
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const json = { "content-type": "application/json" };

beforeAll(async () => {
  api = await startApiServer(hub, { adminToken: ADMIN });
  origin = api.url;
  const admin = (path: string, body: unknown) => rest("POST", path, { token: ADMIN, body });
  await admin("/api/admin/humans", { handle: "maintainer", name: "Maintainer", password: "maintainer-pw" });
  await admin("/api/admin/humans", { handle: "guest", name: "Guest", password: "guest-pass" });
  await admin("/api/admin/projects", { owner: "maintainer", slug: "maity", name: "Maity" });
  await admin("/api/admin/projects/maintainer/maity/members", { member_id: "hum-guest" });
  await admin("/api/admin/agents", { owner: "maintainer", handle: "agent-a" });
  await admin("/api/admin/projects/maintainer/maity/members", { member_id: "agt-a" });
  token = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-maintainer" } })).body.token;
  agentToken = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "agt-a" } })).body.token;
  const group = { title: "Edge", participants: ["hum-guest", "agt-a"] };
  const created = await rest("POST", `${P}/conversations`, { token, body: group });
  chat = created.body.id;
  const login = await send("POST", "/api/trpc/auth.login", {
    headers: { ...json, origin },
    body: JSON.stringify({ handle: "maintainer", password: "maintainer-pw" }),
  });
  expect(login.status, login.text).toBe(200);
  cookie = String(login.headers["set-cookie"]?.[0]).split(";")[0] ?? "";
});
afterAll(async () => {
  await api?.close();
  await hub.close();
});

// 16 MiB is far past every limit and far more than the socket buffers hold: a server that reads
// the whole body before refusing it takes it all; one that stops at the limit never does.
const HUGE = 16 * 1024 * 1024;

describe("a body is read only up to its route family's limit, with or without Content-Length", () => {
  it("REST: a chunked body, no Content-Length → 413 too_large naming the limit, the rest never read", async () => {
    const headers = { ...bearer(token), ...json };
    const res = await send("POST", `${P}/conversations/${chat}/messages`, { headers, stream: HUGE });
    expect(res.status, res.text).toBe(413);
    expect(res.json).toEqual({
      error: {
        code: "too_large",
        message: expect.stringContaining(String(REQUEST_BODY_MAX_BYTES)),
        details: { fields: { body: "too_large" }, limit: REQUEST_BODY_MAX_BYTES },
      },
    });
    expect(res.headers.connection).toBe("close");
    expect(res.written).toBeLessThan(HUGE);
  });

  it("agent API: a chunked body → 413 BODY_TOO_LARGE naming the limit, the rest never read", async () => {
    const headers = { ...bearer(agentToken), ...json };
    const res = await send("POST", `/api/agent-api/conversations/${chat}/messages`, { headers, stream: HUGE });
    expect(res.status, res.text).toBe(413);
    expect(res.json).toMatchObject({ code: "BODY_TOO_LARGE", limit: AGENT_BODY_MAX_BYTES });
    expect(res.headers.connection).toBe("close");
    expect(res.written).toBeLessThan(HUGE);
  });

  it("tRPC messages.post (had no limit): a chunked body → 413 PAYLOAD_TOO_LARGE, hubError too_large", async () => {
    const res = await send("POST", "/api/trpc/messages.post", { headers: { ...bearer(token), ...json }, stream: HUGE });
    expect(res.status, res.text).toBe(413);
    expect(res.json).toMatchObject({
      error: {
        data: {
          code: "PAYLOAD_TOO_LARGE",
          httpStatus: 413,
          hubError: {
            code: "too_large",
            status: 413,
            details: { fields: { body: "too_large" }, limit: REQUEST_BODY_MAX_BYTES },
          },
        },
      },
    });
    expect(res.headers.connection).toBe("close");
    expect(res.written).toBeLessThan(HUGE);
  });

  it("without any credential: auth.login and /pair stop at the small pre-auth limit", async () => {
    const login = await send("POST", "/api/trpc/auth.login", { headers: { ...json }, stream: HUGE });
    expect(login.status, login.text).toBe(413);
    const limit = { code: "too_large", details: { limit: PREAUTH_BODY_MAX_BYTES } };
    expect(login.json).toMatchObject({ error: { data: { hubError: limit } } });
    expect(login.written).toBeLessThan(HUGE);
    const pair = await send("POST", "/api/agent-api/pair", { headers: { ...json }, stream: HUGE });
    expect(pair.status, pair.text).toBe(413);
    expect(pair.json).toMatchObject({ code: "BODY_TOO_LARGE", limit: PREAUTH_BODY_MAX_BYTES });
    expect(pair.written).toBeLessThan(HUGE);
  });

  it("a declared Content-Length over the limit is refused before any of the body is sent", async () => {
    const declared = { ...json, "content-length": String(HUGE) };
    // Nothing is written: the answer cannot have waited for the body.
    for (const [path, headers] of [
      [`${P}/conversations/${chat}/messages`, bearer(token)],
      [`/api/agent-api/conversations/${chat}/messages`, bearer(agentToken)],
      ["/api/trpc/messages.post", bearer(token)],
    ] as const) {
      const res = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${api.url}${path}`, { method: "POST", headers: { ...headers, ...declared } });
        req.on("response", (r) => {
          resolve(r.statusCode ?? 0);
          req.destroy();
        });
        req.on("error", reject);
        req.flushHeaders();
      });
      expect(res, path).toBe(413);
    }
  });

  it("a body within the limit still works on the same server (chunked too)", async () => {
    const headers = { ...bearer(token), ...json, "transfer-encoding": "chunked" };
    const body = JSON.stringify({ body: "small" });
    const res = await send("POST", `${P}/conversations/${chat}/messages`, { headers, body });
    expect(res.status, res.text).toBe(201);
  });

  it("a password over 1024 characters is refused by the schema before it is hashed (was: hashed, 401)", async () => {
    const body = JSON.stringify({ handle: "maintainer", password: "p".repeat(1025) });
    const res = await send("POST", "/api/trpc/auth.login", { headers: { ...json }, body });
    expect(res.status, res.text).toBe(400);
    const invalid = { code: "invalid", details: { fields: { password: expect.any(String) } } };
    expect(res.json).toMatchObject({ error: { data: { hubError: invalid } } });
  });
});

describe("malformed percent-encoding is the client's error, never a 500", () => {
  const bad = "maity_session=%E0%A4%A";
  it("a session cookie that does not decode is no session: 401 / null on every route family", async () => {
    const restRes = await send("GET", `${P}/members`, { headers: { cookie: bad } });
    expect(restRes.status, restRes.text).toBe(401);
    const me = await send("GET", "/api/trpc/auth.me", { headers: { cookie: bad } });
    expect(me.status, me.text).toBe(200);
    expect(me.json).toMatchObject({ result: { data: null } });
    const agent = await send("GET", "/api/agent-api/conversations", { headers: { cookie: bad } });
    expect(agent.status, agent.text).toBe(401);
  });

  it("a path segment that does not decode → 400 naming it (REST: the parameter, agent API: path)", async () => {
    const restRes = await send("GET", "/api/projects/%E0%A4%A/maity/members", { headers: bearer(token) });
    expect(restRes.status, restRes.text).toBe(400);
    const fields = { owner: "malformed_percent_encoding" };
    expect(restRes.json).toMatchObject({ error: { code: "invalid", details: { fields } } });
    const agent = await send("GET", "/api/agent-api/conversations/%E0%A4%A/context", { headers: bearer(agentToken) });
    expect(agent.status, agent.text).toBe(400);
    expect(agent.json).toMatchObject({ code: "INVALID_REQUEST", fields: { path: "malformed_percent_encoding" } });
    const trpc = await send("GET", "/api/trpc/%E0%A4%A", { headers: bearer(token) });
    expect(trpc.status, trpc.text).toBeLessThan(500);
  });
});

describe("a change made with the session cookie must be same-origin JSON (CSRF)", () => {
  const form = () => ({ cookie, "content-type": "text/plain", origin: "http://evil.example" });
  const writes = () =>
    [
      ["POST", `${P}/conversations/${chat}/messages`, { body: "csrf" }],
      ["POST", `${P}/conversations`, { title: "csrf", participants: ["hum-guest"] }],
      ["PUT", `${P}/conversations/${chat}/pin`, {}],
    ] as const;
  const count = async () => ({
    events: await hub.db.event.count(),
    pins: await hub.db.pin.count(),
    chats: await hub.db.conversation.count(),
  });

  it("a cross-site text/plain form with the victim's cookie → 403 cross_site, nothing written", async () => {
    const before = await count();
    for (const [method, path, body] of writes()) {
      const res = await send(method, path, { headers: form(), body: JSON.stringify(body) });
      expect(res.status, `${method} ${path} ${res.text}`).toBe(403);
      expect(res.json).toMatchObject({ error: { code: "forbidden", details: { reason: "cross_site" } } });
    }
    const trpc = await send("POST", "/api/trpc/messages.post", {
      headers: { ...form(), "content-type": "application/json" },
      body: JSON.stringify({ owner: "maintainer", slug: "maity", conversation_id: chat, body: "csrf" }),
    });
    expect(trpc.status, trpc.text).toBe(403);
    const forbidden = { code: "forbidden", details: { reason: "cross_site" } };
    expect(trpc.json).toMatchObject({ error: { data: { hubError: forbidden } } });
    expect(await count()).toEqual(before);
  });

  it("without Origin, Sec-Fetch-Site decides: cross-site or absent → 403", async () => {
    const path = `${P}/conversations/${chat}/messages`;
    const body = JSON.stringify({ body: "csrf" });
    for (const site of ["cross-site", "same-site", undefined]) {
      const headers: Record<string, string> = { cookie, ...json };
      if (site) headers["sec-fetch-site"] = site;
      const res = await send("POST", path, { headers, body });
      expect(res.status, `${site} ${res.text}`).toBe(403);
    }
    const same = await send("POST", path, { headers: { cookie, ...json, "sec-fetch-site": "same-origin" }, body });
    expect(same.status, same.text).toBe(201);
  });

  it("same-origin but not JSON → 415 unsupported_media_type naming the content type", async () => {
    const headers = { cookie, origin, "content-type": "text/plain" };
    const body = JSON.stringify({ body: "x" });
    const res = await send("POST", `${P}/conversations/${chat}/messages`, { headers, body });
    expect(res.status, res.text).toBe(415);
    const fields = { "content-type": "not_json" };
    expect(res.json).toMatchObject({ error: { code: "unsupported_media_type", details: { fields } } });
  });

  it("the dashboard's own calls keep working: same-origin JSON with the cookie (REST and tRPC)", async () => {
    const page = { headers: { cookie, origin, ...json }, body: JSON.stringify({ body: "from the page" }) };
    const restRes = await send("POST", `${P}/conversations/${chat}/messages`, page);
    expect(restRes.status, restRes.text).toBe(201);
    const trpc = await send("POST", "/api/trpc/messages.post", {
      headers: { cookie, origin, ...json },
      body: JSON.stringify({ owner: "maintainer", slug: "maity", conversation_id: chat, body: "from the dashboard" }),
    });
    expect(trpc.status, trpc.text).toBe(200);
    // Reads are not changes: a GET with the cookie needs no Origin.
    expect((await send("GET", `${P}/members`, { headers: { cookie } })).status).toBe(200);
  });

  it("behind a proxy: the Origin may name the forwarded host (X-Forwarded-Host), no other", async () => {
    const path = `${P}/conversations/${chat}/messages`;
    const body = JSON.stringify({ body: "through the proxy" });
    const proxied = { cookie, ...json, origin: "https://hub.example.org", "x-forwarded-host": "hub.example.org" };
    expect((await send("POST", path, { headers: proxied, body })).status).toBe(201);
    const elsewhere = { ...proxied, "x-forwarded-host": "other.example.org" };
    expect((await send("POST", path, { headers: elsewhere, body })).status).toBe(403);
  });

  it("MAITY_PUBLIC_URL's host is the hub's own origin too (the hub's publicUrl setting)", async () => {
    const path = `${P}/conversations/${chat}/messages`;
    const call = (target: Hub, page: string) =>
      handleRest(
        target,
        new Request(`http://127.0.0.1:3000${path}`, {
          method: "POST",
          headers: { cookie, ...json, origin: page },
          body: JSON.stringify({ body: "from the public address" }),
        }),
      );
    // Another hub over the same database (the session is the same), configured with a public URL.
    const published = createHub(hub.database, {
      publicUrl: readSettings({ MAITY_PUBLIC_URL: "https://chat.example.org/" }).publicUrl,
    });
    expect((await call(published, "https://chat.example.org")).status).toBe(201);
    expect((await call(hub, "https://chat.example.org")).status).toBe(403);
    expect((await call(published, "https://evil.example.org")).status).toBe(403);
  });

  it("a bearer call carries no ambient credential and is not concerned (any Origin, any content type)", async () => {
    const res = await send("POST", `${P}/conversations/${chat}/messages`, {
      headers: { ...bearer(token), origin: "http://elsewhere.example", "content-type": "text/plain" },
      body: JSON.stringify({ body: "script" }),
    });
    expect(res.status, res.text).toBe(201);
  });
});
