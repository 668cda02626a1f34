import { lookup as dnsLookup } from "node:dns/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createHub, type Hub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// Webhook SSRF: POST /api/agent-api/webhook accepted URLs into the hub's own
// network (loopback in every spelling, the cloud metadata address, private ranges, unique-local IPv6,
// credentials in the URL) and delivered to them; GET /webhook's counts then told whether an internal
// port answered. Now: refused at registration, and again at every delivery on the address actually
// connected to (DNS can change), unless the operator's allow list (MAITY_WEBHOOK_ALLOW) opens it.

// ---- an internal service on 127.0.0.1 that must hear nothing ------------------------------------------

type Hit = { path: string; headers: IncomingHttpHeaders };
const hits: Hit[] = [];
const listener = createServer((req, res) => {
  hits.push({ path: req.url ?? "", headers: req.headers });
  req.resume();
  res.writeHead(200, { "content-type": "text/plain" }).end("ok");
});
await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
const PORT = (listener.address() as { port: number }).port;

// ---- DNS as the test says: names map to addresses, changed at will; localhost asks the system ------------

const PUBLIC = "93.184.215.14";
const dns = new Map<string, string[]>([
  ["metadata.google.internal", ["169.254.169.254"]],
  ["hooks.example.com", [PUBLIC]],
  ["round-robin.example.com", [PUBLIC, "127.0.0.1"]],
  ["six.example.com", ["2606:4700::1111", "fd00::1"]],
]);
async function lookup(name: string): Promise<{ address: string; family: number }[]> {
  if (name === "localhost") return dnsLookup(name, { all: true, verbatim: true });
  const addresses = dns.get(name);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
}

const hub = await testHub({ webhooks: { backoffMs: [20, 20, 20], timeoutMs: 1500, lookup } });
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  await hub.close();
  listener.closeAllConnections();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

// ---- the surfaces ----------------------------------------------------------------------------------

async function agentApi(on: Hub, token: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const req = new Request(`${BASE}/api/agent-api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await handleRest(on, req);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A new agent of maintainer's in maintainer/maity, with its token, and the maintainer's token. */
async function newAgent(on: Hub, handle: string): Promise<{ id: string; token: string; human: string }> {
  const rest = restClient(on);
  const agent = await rest("POST", "/api/admin/agents", { token: ADMIN, body: { owner: "maintainer", handle } });
  expect(agent.status).toBe(201);
  const id = agent.body.id as string;
  expect(
    (await rest("POST", "/api/admin/projects/maintainer/maity/members", { token: ADMIN, body: { member_id: id } }))
      .status,
  ).toBe(201);
  const token = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body
    .token as string;
  const human = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-maintainer" } })).body
    .token as string;
  return { id, token, human };
}

/** The maintainer writes in the agent's direct conversation: one delivery is queued for the agent. */
async function say(on: Hub, agent: { id: string; human: string }, body: string): Promise<void> {
  const res = await restClient(on)("POST", `/api/projects/maintainer/maity/conversations/${agent.id}/messages`, {
    token: agent.human,
    body: { body },
  });
  expect(res.status).toBe(201);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The agent's newest delivery once it is no longer pending. */
async function settled(on: Hub, agentId: string) {
  for (let i = 0; i < 400; i++) {
    await on.webhooks.idle();
    const row = await on.db.webhookDelivery.findFirst({ where: { agentId }, orderBy: { eventSeq: "desc" } });
    if (row && row.status !== "pending") return row;
    await sleep(10);
  }
  throw new Error("the delivery stayed pending");
}

// ---- every form of the probe ----------------------------------------------------------------------

/** [what, URL, the field's answer]: every address form the probe had delivered to, and a few more. */
const FORMS: [string, string][] = [
  ["127.0.0.1 (the admin route)", `http://127.0.0.1:${PORT}/api/admin/tokens`],
  ["localhost", `http://localhost:${PORT}/hook`],
  ["localhost. (trailing dot)", `http://localhost.:${PORT}/hook`],
  ["[::1]", `http://[::1]:${PORT}/hook`],
  ["0.0.0.0", `http://0.0.0.0:${PORT}/hook`],
  ["2130706433", `http://2130706433:${PORT}/hook`],
  ["0x7f000001", `http://0x7f000001:${PORT}/hook`],
  ["127.1", `http://127.1:${PORT}/hook`],
  ["169.254.169.254", "http://169.254.169.254/latest/meta-data/"],
  ["metadata.google.internal", "http://metadata.google.internal/computeMetadata/v1/"],
  ["10.0.0.1", "http://10.0.0.1/hook"],
  ["192.168.0.1", "http://192.168.0.1/hook"],
  ["172.16.0.1", "http://172.16.0.1/hook"],
  ["100.64.0.1 (CGNAT)", "http://100.64.0.1/hook"],
  ["[fd00::1]", "http://[fd00::1]/hook"],
  ["[fe80::1]", "http://[fe80::1]/hook"],
  ["[::ffff:127.0.0.1]", `http://[::ffff:127.0.0.1]:${PORT}/hook`],
  ["[64:ff9b::7f00:1] (NAT64)", `http://[64:ff9b::7f00:1]:${PORT}/hook`],
  ["a name with a public and a loopback address", `http://round-robin.example.com:${PORT}/hook`],
  ["a name with a public and a unique-local IPv6 address", `http://six.example.com:${PORT}/hook`],
];

let agent: { id: string; token: string; human: string };
beforeAll(async () => {
  await seedDemo(hub);
  agent = await newAgent(hub, "ssrf-probe");
});

describe("webhook SSRF: registration refuses what is not public", () => {
  it.each(FORMS)("%s: 400 INVALID_REQUEST naming url, nothing stored", async (_, url) => {
    const res = await agentApi(hub, agent.token, "POST", "/webhook", { url });
    expect(res).toEqual({
      status: 400,
      body: {
        error: expect.stringMatching(/^webhooks go to public addresses only: /),
        code: "INVALID_REQUEST",
        fields: { url: "a public address" },
      },
    });
    expect((await agentApi(hub, agent.token, "GET", "/webhook")).status).toBe(404);
  });

  it("an IP literal is named with its kind; a name gets one answer whether it resolves inside or not at all", async () => {
    expect((await agentApi(hub, agent.token, "POST", "/webhook", { url: `http://127.1:${PORT}/` })).body.error).toBe(
      "webhooks go to public addresses only: 127.0.0.1 is a loopback address",
    );
    expect((await agentApi(hub, agent.token, "POST", "/webhook", { url: "http://[fd00::1]/" })).body.error).toBe(
      "webhooks go to public addresses only: fd00::1 is a unique-local address",
    );
    // No oracle on the hub's own DNS: an internal name and an unknown one read alike.
    const inside = await agentApi(hub, agent.token, "POST", "/webhook", { url: "http://metadata.google.internal/" });
    const nowhere = await agentApi(hub, agent.token, "POST", "/webhook", { url: "http://nowhere.example.net/" });
    expect(inside.body.error).toBe(
      "webhooks go to public addresses only: metadata.google.internal does not resolve to public addresses only",
    );
    expect(nowhere).toEqual({
      status: 400,
      body: {
        error: "webhooks go to public addresses only: nowhere.example.net does not resolve to public addresses only",
        code: "INVALID_REQUEST",
        fields: { url: "a public address" },
      },
    });
  });

  it("credentials in the URL are refused (field url)", async () => {
    const res = await agentApi(hub, agent.token, "POST", "/webhook", { url: `http://user:pw@127.0.0.1:${PORT}/hook` });
    expect(res).toEqual({
      status: 400,
      body: { error: "invalid input: url", code: "INVALID_REQUEST", fields: { url: "no user name or password" } },
    });
    const publicOne = await agentApi(hub, agent.token, "POST", "/webhook", {
      url: "https://user:pw@hooks.example.com/hook",
    });
    expect(publicOne.body.fields).toEqual({ url: "no user name or password" });
  });

  it("a public URL is still accepted", async () => {
    const other = await newAgent(hub, "ssrf-public");
    expect(
      await agentApi(hub, other.token, "POST", "/webhook", { url: "https://hooks.example.com/maity" }),
    ).toMatchObject({ status: 200, body: { url: "https://hooks.example.com/maity" } });
  });
});

describe("webhook SSRF: delivery checks the address it connects to, every time", () => {
  // A webhook stored before the fix (or by hand) is checked at delivery as well: failed at once, never retried.
  it.each([...FORMS, ["user:pw@127.0.0.1", `http://user:pw@127.0.0.1:${PORT}/hook`]])(
    "a stored %s webhook: the delivery fails at once (address not allowed), nothing is sent",
    async (_, url) => {
      await hub.db.webhook.upsert({
        where: { agentId: agent.id },
        create: { agentId: agent.id, url, secret: "s".repeat(16) },
        update: { url },
      });
      await say(hub, agent, `to ${url}`);
      const row = await settled(hub, agent.id);
      expect({ status: row.status, attempts: row.attempts, lastStatus: row.lastStatus }).toEqual({
        status: "failed",
        attempts: 1,
        lastStatus: null,
      });
      expect(row.lastError).toMatch(/^address not allowed: /);
      expect(hits).toEqual([]);
    },
  );

  it("GET /webhook counts the same whether an internal port answers or not (no oracle)", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const counts: unknown[] = [];
    for (const port of [PORT, closedPort]) {
      const probe = await newAgent(hub, `ssrf-port-${port}`);
      const url = `http://127.0.0.1:${port}/hook`;
      await hub.db.webhook.create({ data: { agentId: probe.id, url, secret: "s".repeat(16) } });
      await say(hub, probe, "knock");
      await settled(hub, probe.id);
      counts.push((await agentApi(hub, probe.token, "GET", "/webhook")).body.deliveries);
    }
    expect(counts).toEqual([
      { pending: 0, failed: 1 },
      { pending: 0, failed: 1 },
    ]);
    expect(hits).toEqual([]);
  });

  it("DNS rebinding: a name public at registration that resolves to 127.0.0.1 at delivery is refused", async () => {
    const rebind = await newAgent(hub, "ssrf-rebind");
    dns.set("rebind.example.com", [PUBLIC]);
    const url = `http://rebind.example.com:${PORT}/hook`;
    expect((await agentApi(hub, rebind.token, "POST", "/webhook", { url })).status).toBe(200);
    dns.set("rebind.example.com", ["127.0.0.1"]);
    await say(hub, rebind, "after the rebinding");
    const row = await settled(hub, rebind.id);
    expect({ status: row.status, attempts: row.attempts, lastError: row.lastError }).toEqual({
      status: "failed",
      attempts: 1,
      lastError: "address not allowed: rebind.example.com resolves to 127.0.0.1, a loopback address",
    });
    // One bad address among good ones is enough.
    dns.set("rebind.example.com", [PUBLIC, "::ffff:10.0.0.1"]);
    await say(hub, rebind, "half rebound");
    expect((await settled(hub, rebind.id)).lastError).toBe(
      "address not allowed: rebind.example.com resolves to ::ffff:10.0.0.1, a private address",
    );
    expect(hits).toEqual([]);
  });

  it("the listener on 127.0.0.1 received nothing", () => {
    expect(hits).toEqual([]);
  });
});

describe("webhook SSRF: the operator's allow list (MAITY_WEBHOOK_ALLOW) opens local receivers", () => {
  // A second app instance on the same database, as the operator configured it (its services only:
  // closing it would close the shared database, so only its webhook worker is stopped).
  const local = createHub(hub.database, {
    webhooks: { allow: ["127.0.0.0/8"], lookup, backoffMs: [20], timeoutMs: 1500 },
  });
  stops.push(() => local.webhooks.close());

  it("with 127.0.0.0/8 allowed the local receiver gets the delivery, also through a name pinned to the checked address", async () => {
    const a = await newAgent(local, "allowed-receiver");
    expect(
      (await agentApi(local, a.token, "POST", "/webhook", { url: `http://127.0.0.1:${PORT}/allowed` })).status,
    ).toBe(200);
    await say(local, a, "to the local receiver");
    expect((await settled(local, a.id)).status).toBe("delivered");
    // A name only this test's DNS knows: the hub connects to the address it checked (no second
    // lookup by the HTTP client), with the name as the Host header.
    dns.set("dev-receiver.example.com", ["127.0.0.1"]);
    expect(
      (await agentApi(local, a.token, "POST", "/webhook", { url: `http://dev-receiver.example.com:${PORT}/named` }))
        .status,
    ).toBe(200);
    await say(local, a, "through the name");
    expect((await settled(local, a.id)).status).toBe("delivered");
    expect(hits.map((h) => [h.path, h.headers.host, h.headers["x-maity-event"]])).toEqual([
      ["/allowed", `127.0.0.1:${PORT}`, "message.created"],
      ["/named", `dev-receiver.example.com:${PORT}`, "message.created"],
    ]);
    // The system resolver (no test DNS): localhost, with both its addresses allowed.
    const system = createHub(hub.database, {
      webhooks: { allow: ["127.0.0.0/8", "::1"], backoffMs: [20], timeoutMs: 1500 },
    });
    stops.push(() => system.webhooks.close());
    expect(
      (await agentApi(system, a.token, "POST", "/webhook", { url: `http://localhost:${PORT}/system` })).status,
    ).toBe(200);
    await say(system, a, "through the system resolver");
    expect((await settled(system, a.id)).status).toBe("delivered");
    expect(hits.slice(2).map((h) => [h.path, h.headers.host])).toEqual([["/system", `localhost:${PORT}`]]);
    // What the list does not name stays refused.
    expect((await agentApi(local, a.token, "POST", "/webhook", { url: "http://10.0.0.1/hook" })).body.fields).toEqual({
      url: "a public address",
    });
  });

  it("a redirect is never followed: the 307 is the answer, retried and failed; its target hears nothing", async () => {
    const seen: string[] = [];
    const redirector = createServer((req, res) => {
      seen.push(req.url ?? "");
      req.resume();
      res.writeHead(307, { location: `http://127.0.0.1:${PORT}/redirected` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    try {
      const b = await newAgent(local, "redirected-receiver");
      const before = hits.length;
      const port = (redirector.address() as { port: number }).port;
      expect(
        (await agentApi(local, b.token, "POST", "/webhook", { url: `http://127.0.0.1:${port}/hook` })).status,
      ).toBe(200);
      await say(local, b, "follow me");
      const row = await settled(local, b.id);
      expect({
        status: row.status,
        attempts: row.attempts,
        lastStatus: row.lastStatus,
        lastError: row.lastError,
      }).toEqual({
        status: "failed",
        attempts: 2,
        lastStatus: 307,
        lastError: "answered 307",
      });
      expect(seen).toEqual(["/hook", "/hook"]);
      expect(hits.length).toBe(before);
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });

  it("an allow-list entry that is no host name, IP address or CIDR stops the hub at start", () => {
    // Building the services touches nothing: the hub's own database serves to build a second one.
    expect(() => createHub(hub.database, { webhooks: { allow: ["127.0.0.1", "10.0.0.0/33", "http://x"] } })).toThrow(
      "webhook allow list: not a host name, IP address or CIDR: 10.0.0.0/33, http://x",
    );
  });
});
