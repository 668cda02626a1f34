import { type BusMessage, DEFAULT_LIMITS, type Hub, LINK_TTL_MS, PAIRING_TTL_MS, seedDemo, sha256 } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub, trpcBrowser } from "./helpers.ts";

// Agent protocol §2 "Identity and connection": pairing codes and reverse QR linking.
// B-009 B-010 B-014 B-015 B-016 B-018 B-019 B-026 B-364, and OQ-B-34 (link approval rotates too).
const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());

const PASSWORD = "pairing-test-password";
/** 004 §2 codes: three groups of four from an alphabet without 0/O and 1/I/L. */
const CODE = /^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/;
const BAY_TOKEN = /^bay_[A-Za-z0-9_-]{43}$/;
const UNAUTHORIZED = { status: 401, body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" } };
const INVALID_PAIRING_CODE = {
  status: 400,
  body: { error: "the pairing code is unknown, used or expired", code: "INVALID_PAIRING_CODE" },
};
const LINK_NOT_FOUND = { status: 404, body: { error: "link request not found", code: "NOT_FOUND" } };
const AGENT_NOT_FOUND = {
  status: 404,
  body: { error: { code: "not_found", message: "agent not found", details: {} } },
};
const HUMANS_ONLY = {
  status: 403,
  body: { error: { code: "forbidden", message: "forbidden: humans_only", details: { reason: "humans_only" } } },
};
const UNAUTHENTICATED = {
  status: 401,
  body: { error: { code: "unauthenticated", message: "missing or invalid credentials", details: {} } },
};

// Each call comes from its own client address unless one is named: the pre-auth budget (10 a
// minute per address) is then only spent where a test means to spend it.
let nextAddress = 0;
async function agentApiRaw(
  target: Hub,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; address?: string; headers?: Record<string, string> } = {},
) {
  nextAddress += 1;
  const headers: Record<string, string> = {
    "x-maity-remote": options.address ?? `2001:db8::${nextAddress.toString(16)}`,
    ...(options.headers ?? {}),
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === "string"
        ? options.body
        : JSON.stringify(options.body);
  return handleRest(target, new Request(`${BASE}/api/agent-api${path}`, { method, headers, body }));
}
async function agentApi(
  method: string,
  path: string,
  options: Parameters<typeof agentApiRaw>[3] = {},
  target: Hub = hub,
) {
  const res = await agentApiRaw(target, method, path, options);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const me = (token: string) => agentApi("GET", "/me", { token });
const pair = (code: string, options: Parameters<typeof agentApiRaw>[3] = {}) =>
  agentApi("POST", "/pair", { ...options, body: { code } });
const poll = (id: string, secret: string) => agentApi("POST", `/link/${id}/poll`, { body: { secret } });
const normal = (code: string) => code.toUpperCase().replace(/[\s-]/g, "");

/** A human with an operator-minted mty_ token (its own, so a test knows exactly which agents it owns). */
async function newHuman(handle: string): Promise<{ id: string; handle: string; token: string }> {
  const created = await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle, name: handle, password: PASSWORD },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id, handle, token: await operatorToken(created.body.id) };
}
async function newAgent(owner: string, handle: string): Promise<{ id: string; name: string }> {
  const created = await rest("POST", "/api/admin/agents", { token: ADMIN, body: { owner, handle } });
  expect(created.status).toBe(201);
  return { id: created.body.id, name: created.body.name };
}
async function operatorToken(memberId: string): Promise<string> {
  const minted = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: memberId } });
  expect(minted.status).toBe(201);
  return minted.body.token;
}
const mint = (agentId: string, humanToken: string) =>
  rest("POST", `/api/agents/${agentId}/pairing-codes`, { token: humanToken });
async function mintCode(agentId: string, humanToken: string): Promise<string> {
  const minted = await mint(agentId, humanToken);
  expect(minted.status).toBe(201);
  return minted.body.code;
}
const liveTokens = (agentId: string) => hub.db.accessToken.count({ where: { agentId, revokedAt: null } });
/** Every column of every row of a table, as text: what an attacker with the database would read. */
const tableText = async (table: "pairing_codes" | "link_requests" | "access_tokens") =>
  JSON.stringify(await hub.db.$queryRawUnsafe(`SELECT * FROM ${table}`));
const meOf = (agent: { id: string; name: string }, description = "") => ({
  status: 200,
  body: { id: agent.id, name: agent.name, description, instanceId: `${agent.id}-default`, protocolVersion: "1.23" },
});

let maintainerToken = "";
let guestToken = "";
beforeAll(async () => {
  await seedDemo(hub);
  maintainerToken = await operatorToken("hum-maintainer");
  guestToken = await operatorToken("hum-guest");
});

describe("POST /api/agents/{agent_id}/pairing-codes: the owner mints a code (B-014)", () => {
  it("B-014 B-364 the owner mints a code over REST: 201 {code, agent_id, expires_at} ten minutes ahead", async () => {
    const agent = await newAgent("maintainer", "mint-rest");
    expect(PAIRING_TTL_MS).toBe(10 * 60 * 1000);
    const before = Date.now();
    const minted = await mint(agent.id, maintainerToken);
    const after = Date.now();
    expect(minted).toEqual({
      status: 201,
      body: { code: expect.stringMatching(CODE), agent_id: agent.id, expires_at: expect.any(String) },
    });
    const expiresAt = Date.parse(minted.body.expires_at);
    expect(new Date(expiresAt).toISOString()).toBe(minted.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + PAIRING_TTL_MS);
    expect(expiresAt).toBeLessThanOrEqual(after + PAIRING_TTL_MS);
    const rows = await hub.db.pairingCode.findMany({ where: { agentId: agent.id } });
    expect(rows).toEqual([
      {
        id: sha256(normal(minted.body.code)),
        agentId: agent.id,
        createdById: "hum-maintainer",
        createdAt: expect.any(Date),
        expiresAt: new Date(expiresAt),
        usedAt: null,
      },
    ]);
  });

  it("B-014 the dashboard mints over tRPC (agents.mintPairingCode) and the code redeems", async () => {
    const agent = await newAgent("maintainer", "mint-trpc");
    const browser = trpcBrowser(hub);
    expect((await browser.mutation("auth.login", { handle: "maintainer", password: "maintainer-demo" })).status).toBe(
      200,
    );
    const before = Date.now();
    const minted = await browser.mutation("agents.mintPairingCode", { agent_id: agent.id });
    const after = Date.now();
    expect(minted.status).toBe(200);
    const data = minted.body.result?.data as { code: string; agent_id: string; expires_at: string };
    expect(data).toEqual({ code: expect.stringMatching(CODE), agent_id: agent.id, expires_at: expect.any(String) });
    expect(Date.parse(data.expires_at)).toBeGreaterThanOrEqual(before + PAIRING_TTL_MS);
    expect(Date.parse(data.expires_at)).toBeLessThanOrEqual(after + PAIRING_TTL_MS);
    expect(await pair(data.code)).toEqual({
      status: 200,
      body: { baseUrl: BASE, token: expect.stringMatching(BAY_TOKEN), agent: agent },
    });
  });

  it("B-014 another human's agent, an unknown agent and a human id answer 404 not_found, over REST and tRPC; nothing is stored", async () => {
    const before = await hub.db.pairingCode.count();
    expect(await mint("agt-a", guestToken)).toEqual(AGENT_NOT_FOUND);
    expect(await mint("agt-x", maintainerToken)).toEqual(AGENT_NOT_FOUND);
    expect(await mint("agt-nobody", maintainerToken)).toEqual(AGENT_NOT_FOUND);
    expect(await mint("hum-maintainer", maintainerToken)).toEqual(AGENT_NOT_FOUND);
    const browser = trpcBrowser(hub);
    await browser.mutation("auth.login", { handle: "guest", password: "guest-demo" });
    const refused = await browser.mutation("agents.mintPairingCode", { agent_id: "agt-a" });
    expect(refused.status).toBe(404);
    expect(refused.body.error?.data.hubError).toEqual({
      code: "not_found",
      message: "agent not found",
      details: {},
      status: 404,
    });
    expect(await hub.db.pairingCode.count()).toBe(before);
  });

  it("B-014 an agent's token answers 403 forbidden humans_only (even for itself), no credentials 401, bad input 400 with the field named", async () => {
    const before = await hub.db.pairingCode.count();
    expect(await mint("agt-a", await operatorToken("agt-a"))).toEqual(HUMANS_ONLY);
    expect(await rest("POST", "/api/agents/agt-a/pairing-codes")).toEqual(UNAUTHENTICATED);
    expect(await rest("POST", "/api/agents/not-an-id/pairing-codes", { token: maintainerToken })).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid",
          message: "invalid input: agent_id",
          details: { fields: { agent_id: "a member id (hum-… or agt-…)" } },
        },
      },
    });
    expect(
      await rest("POST", "/api/agents/agt-a/pairing-codes", { token: maintainerToken, body: { ttl: 3600 } }),
    ).toEqual({
      status: 400,
      body: {
        error: { code: "invalid", message: "invalid input: ttl", details: { fields: { ttl: "unknown_field" } } },
      },
    });
    expect(await hub.db.pairingCode.count()).toBe(before);
  });

  it("B-014 codes are stored hashed: no column of any row holds the code, in any spelling", async () => {
    const agent = await newAgent("maintainer", "hashed-code");
    const code = await mintCode(agent.id, maintainerToken);
    const stored = await tableText("pairing_codes");
    for (const spelling of [code, normal(code), code.toLowerCase(), normal(code).toLowerCase()])
      expect(stored).not.toContain(spelling);
    expect(
      await hub.db.pairingCode.findUnique({ where: { id: sha256(normal(code)) }, select: { agentId: true } }),
    ).toEqual({ agentId: agent.id });
  });
});

describe("POST /api/agent-api/pair: redeeming a code (B-015 B-016 B-026)", () => {
  it("B-010 B-016 B-026 redemption needs no token, returns {baseUrl, token, agent} and every earlier token of the agent answers 401", async () => {
    const agent = await newAgent("maintainer", "rotate-pair");
    const [first, second] = [await operatorToken(agent.id), await operatorToken(agent.id)];
    const bystander = await operatorToken("agt-x");
    expect(await me(first)).toEqual(meOf(agent));
    expect(await me(second)).toEqual(meOf(agent));
    const code = await mintCode(agent.id, maintainerToken);
    const redeemed = await pair(code);
    expect(redeemed).toEqual({
      status: 200,
      body: { baseUrl: BASE, token: expect.stringMatching(BAY_TOKEN), agent: { id: agent.id, name: agent.name } },
    });
    expect(await me(first)).toEqual(UNAUTHORIZED);
    expect(await me(second)).toEqual(UNAUTHORIZED);
    expect(await me(redeemed.body.token)).toEqual(meOf(agent));
    expect(await liveTokens(agent.id)).toBe(1);
    // Only that agent's tokens rotate: another agent and the owner keep theirs.
    expect((await me(bystander)).status).toBe(200);
    expect((await mint(agent.id, maintainerToken)).status).toBe(201);
  });

  it("B-026 a redemption and a collected link tell the agent's open sessions to re-check their token; a refused redemption tells nothing", async () => {
    const owner = await newHuman("sven");
    const agent = await newAgent("sven", "agent-live");
    const heard: BusMessage[] = [];
    const stop = hub.bus.subscribe((message) => {
      if (message.type === "credentials") heard.push(message);
    });
    try {
      const code = await mintCode(agent.id, owner.token);
      expect((await pair(code)).status).toBe(200);
      expect(await pair(code)).toEqual(INVALID_PAIRING_CODE);
      expect(heard).toEqual([{ type: "credentials", agentId: agent.id }]);
      const link = (await agentApi("POST", "/link", { body: {} })).body;
      expect(
        (await rest("POST", `/api/links/${link.code}/approve`, { token: owner.token, body: { agent_id: agent.id } }))
          .status,
      ).toBe(200);
      expect(heard).toHaveLength(1);
      expect((await poll(link.id, link.secret)).status).toBe(200);
      expect(heard).toEqual([
        { type: "credentials", agentId: agent.id },
        { type: "credentials", agentId: agent.id },
      ]);
    } finally {
      stop();
    }
  });

  it("B-016 behind a proxy the base URL is the forwarded origin", async () => {
    const agent = await newAgent("maintainer", "pair-proxy");
    const code = await mintCode(agent.id, maintainerToken);
    const redeemed = await pair(code, {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "hub.example.org" },
    });
    expect(redeemed).toEqual({
      status: 200,
      body: { baseUrl: "https://hub.example.org", token: expect.stringMatching(BAY_TOKEN), agent },
    });
  });

  it("B-009 the redeemed bay_ token is stored only as its SHA-256", async () => {
    const agent = await newAgent("maintainer", "pair-hash");
    const { token } = (await pair(await mintCode(agent.id, maintainerToken))).body;
    expect(
      await hub.db.accessToken.findMany({
        where: { agentId: agent.id, revokedAt: null },
        select: { kind: true, hash: true, label: true },
      }),
    ).toEqual([{ kind: "agent", hash: sha256(token), label: "paired" }]);
    expect(await tableText("access_tokens")).not.toContain(token);
  });

  it("B-015 a second redemption answers 400 INVALID_PAIRING_CODE, issues nothing and leaves the first token working", async () => {
    const agent = await newAgent("maintainer", "pair-twice");
    const code = await mintCode(agent.id, maintainerToken);
    const first = await pair(code);
    expect(first.status).toBe(200);
    const tokensBefore = await hub.db.accessToken.count({ where: { agentId: agent.id } });
    expect(await pair(code)).toEqual(INVALID_PAIRING_CODE);
    expect(await pair(code.toLowerCase())).toEqual(INVALID_PAIRING_CODE);
    expect(await hub.db.accessToken.count({ where: { agentId: agent.id } })).toBe(tokensBefore);
    expect(await me(first.body.token)).toEqual(meOf(agent));
  });

  it("B-015 B-364 an expired code and an unknown code answer the same 400 and leave the agent's tokens alone", async () => {
    const agent = await newAgent("maintainer", "pair-expired");
    const current = await operatorToken(agent.id);
    const code = await mintCode(agent.id, maintainerToken);
    const moved = await hub.db.pairingCode.updateMany({
      where: { agentId: agent.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(moved.count).toBe(1);
    expect(await pair(code)).toEqual(INVALID_PAIRING_CODE);
    expect(await pair("ABCD-EFGH-JKMN")).toEqual(INVALID_PAIRING_CODE);
    expect(await pair("---")).toEqual(INVALID_PAIRING_CODE);
    expect(await me(current)).toEqual(meOf(agent));
    expect(await hub.db.pairingCode.findMany({ where: { agentId: agent.id }, select: { usedAt: true } })).toEqual([
      { usedAt: null },
    ]);
  });

  it("B-015 a code still inside its ten minutes redeems", async () => {
    const agent = await newAgent("maintainer", "pair-late");
    const code = await mintCode(agent.id, maintainerToken);
    await hub.db.pairingCode.updateMany({
      where: { agentId: agent.id },
      data: { expiresAt: new Date(Date.now() + 5000) },
    });
    expect((await pair(code)).status).toBe(200);
  });

  it("B-015 two racing redemptions of one code: exactly one gets a token", async () => {
    const agent = await newAgent("maintainer", "pair-race");
    const code = await mintCode(agent.id, maintainerToken);
    const answers = await Promise.all([pair(code), pair(code)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const won = answers.find((a) => a.status === 200);
    expect(answers.find((a) => a.status === 400)).toEqual(INVALID_PAIRING_CODE);
    expect(await liveTokens(agent.id)).toBe(1);
    expect(await me(won?.body.token)).toEqual(meOf(agent));
  });

  it("B-014 codes are accepted case-insensitively, with or without dashes or spaces", async () => {
    const agent = await newAgent("maintainer", "pair-spelling");
    const spellings = [
      (c: string) => c.toLowerCase(),
      (c: string) => normal(c),
      (c: string) => normal(c).toLowerCase(),
      (c: string) => ` ${c.replaceAll("-", " ")} `,
    ];
    for (const spell of spellings) {
      const code = await mintCode(agent.id, maintainerToken);
      expect(await pair(spell(code)), spell(code)).toEqual({
        status: 200,
        body: { baseUrl: BASE, token: expect.stringMatching(BAY_TOKEN), agent },
      });
    }
  });
});

describe("reverse linking: POST /api/agent-api/link, GET /api/links/{code}, approve, poll (B-018 B-019 OQ-B-34)", () => {
  const createLink = (body: unknown = {}, headers: Record<string, string> = {}) =>
    agentApi("POST", "/link", { body, headers });
  const view = (code: string, token: string) => rest("GET", `/api/links/${code}`, { token });
  const approve = (code: string, agentId: string, token: string) =>
    rest("POST", `/api/links/${code}/approve`, { token, body: { agent_id: agentId } });
  const LINK = {
    id: expect.stringMatching(/^lnk-[A-Za-z0-9_-]{16}$/),
    secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    code: expect.stringMatching(CODE),
    approveUrl: expect.any(String),
    expiresAt: expect.any(String),
    pollIntervalSeconds: 2,
  };

  it("B-018 B-019 B-010 creating a request needs no token and answers {id, secret, code, approveUrl, expiresAt}; the URL carries only the code", async () => {
    expect(LINK_TTL_MS).toBe(10 * 60 * 1000);
    const before = Date.now();
    const created = await createLink({ label: "laptop" });
    const after = Date.now();
    expect(created).toEqual({ status: 201, body: LINK });
    const { id, secret, code, approveUrl, expiresAt } = created.body;
    expect(approveUrl).toBe(`${BASE}/link/${code}`);
    expect(approveUrl).not.toContain(secret);
    expect(approveUrl).not.toContain("bay_");
    expect(JSON.stringify(created.body)).not.toContain("bay_");
    expect(Date.parse(expiresAt)).toBeGreaterThanOrEqual(before + LINK_TTL_MS);
    expect(Date.parse(expiresAt)).toBeLessThanOrEqual(after + LINK_TTL_MS);
    // Only hashes are stored: neither the approve code nor the poll secret is readable from the row.
    expect(await hub.db.linkRequest.findUnique({ where: { id } })).toEqual({
      id,
      codeHash: sha256(normal(code)),
      pollSecretHash: sha256(secret),
      label: "laptop",
      createdAt: expect.any(Date),
      expiresAt: new Date(expiresAt),
      agentId: null,
      approvedById: null,
      approvedAt: null,
      redeemedAt: null,
    });
    const stored = await tableText("link_requests");
    for (const plain of [secret, code, normal(code)]) expect(stored).not.toContain(plain);
    // Without a label, and behind a proxy: the forwarded origin.
    const proxied = await createLink(undefined, {
      "x-forwarded-proto": "https",
      "x-forwarded-host": "hub.example.org",
    });
    expect(proxied).toEqual({ status: 201, body: LINK });
    expect(proxied.body.approveUrl).toBe(`https://hub.example.org/link/${proxied.body.code}`);
    expect(
      (await hub.db.linkRequest.findUnique({ where: { id: proxied.body.id }, select: { label: true } }))?.label,
    ).toBeNull();
  });

  it("B-018 OQ-B-34 B-026 pending until the owner views and approves; the next poll hands the token over once and revokes the older ones", async () => {
    const owner = await newHuman("lina");
    const agent = await newAgent("lina", "agent-laptop");
    const spare = await newAgent("lina", "agent-spare");
    const older = await operatorToken(agent.id);
    const created = await createLink({ label: "ci-runner" });
    const { id, secret, code } = created.body;
    expect(await poll(id, secret)).toEqual({ status: 200, body: { status: "pending" } });
    expect(await view(code, owner.token)).toEqual({
      status: 200,
      body: {
        label: "ci-runner",
        status: "pending",
        created_at: expect.any(String),
        expires_at: created.body.expiresAt,
        agents: [agent, spare],
      },
    });
    expect(await approve(code, agent.id, owner.token)).toEqual({
      status: 200,
      body: { approved: true, agent_id: agent.id },
    });
    expect((await view(code, owner.token)).body.status).toBe("approved");
    const collected = await poll(id, secret);
    expect(collected).toEqual({
      status: 200,
      body: { status: "approved", baseUrl: BASE, token: expect.stringMatching(BAY_TOKEN), agent },
    });
    expect(await poll(id, secret)).toEqual(LINK_NOT_FOUND);
    expect(await me(collected.body.token)).toEqual(meOf(agent));
    expect(await me(older)).toEqual(UNAUTHORIZED);
    expect(await liveTokens(agent.id)).toBe(1);
    expect(
      await hub.db.accessToken.findMany({
        where: { agentId: agent.id, revokedAt: null },
        select: { hash: true, label: true },
      }),
    ).toEqual([{ hash: sha256(collected.body.token), label: "linked" }]);
    expect(
      await hub.db.linkRequest.findUnique({
        where: { id },
        select: { agentId: true, approvedById: true, redeemedAt: true },
      }),
    ).toEqual({
      agentId: agent.id,
      approvedById: owner.id,
      redeemedAt: expect.any(Date),
    });
    // Approved once: a second approval (for any agent) is refused.
    expect(await approve(code, spare.id, owner.token)).toEqual({
      status: 404,
      body: {
        error: { code: "not_found", message: "link request not found, expired or already approved", details: {} },
      },
    });
  });

  it("OQ-B-34 B-026 one live session per agent across both ways: a link revokes the paired token and a pairing revokes the linked one", async () => {
    const owner = await newHuman("mira");
    const agent = await newAgent("mira", "agent-both");
    const paired = (await pair(await mintCode(agent.id, owner.token))).body.token as string;
    expect(await me(paired)).toEqual(meOf(agent));
    const link = (await createLink()).body;
    expect((await approve(link.code, agent.id, owner.token)).status).toBe(200);
    const linked = (await poll(link.id, link.secret)).body.token as string;
    expect(await me(linked)).toEqual(meOf(agent));
    expect(await me(paired)).toEqual(UNAUTHORIZED);
    const repaired = (await pair(await mintCode(agent.id, owner.token))).body.token as string;
    expect(await me(repaired)).toEqual(meOf(agent));
    expect(await me(linked)).toEqual(UNAUTHORIZED);
    expect(await liveTokens(agent.id)).toBe(1);
  });

  it("B-018 another human cannot approve for someone else's agent; the request stays open for the owner", async () => {
    const owner = await newHuman("nora");
    const agent = await newAgent("nora", "agent-desk");
    const older = await operatorToken(agent.id);
    const link = (await createLink({ label: "desk" })).body;
    // The guest can see the request (it holds the code) but is offered only its own agents.
    expect(await view(link.code, guestToken)).toEqual({
      status: 200,
      body: {
        label: "desk",
        status: "pending",
        created_at: expect.any(String),
        expires_at: link.expiresAt,
        agents: [{ id: "agt-x", name: "guest/agent-x" }],
      },
    });
    expect(await approve(link.code, agent.id, guestToken)).toEqual(AGENT_NOT_FOUND);
    expect(await approve(link.code, "agt-a", guestToken)).toEqual(AGENT_NOT_FOUND);
    expect(await approve(link.code, agent.id, await operatorToken(agent.id))).toEqual(HUMANS_ONLY);
    expect(await rest("POST", `/api/links/${link.code}/approve`, { body: { agent_id: agent.id } })).toEqual(
      UNAUTHENTICATED,
    );
    expect(await view(link.code, await operatorToken("agt-x"))).toEqual(HUMANS_ONLY);
    expect(await poll(link.id, link.secret)).toEqual({ status: 200, body: { status: "pending" } });
    expect(
      await hub.db.linkRequest.findUnique({ where: { id: link.id }, select: { agentId: true, approvedAt: true } }),
    ).toEqual({ agentId: null, approvedAt: null });
    expect(await me(older)).toEqual(meOf(agent));
    expect(await approve(link.code, agent.id, owner.token)).toEqual({
      status: 200,
      body: { approved: true, agent_id: agent.id },
    });
    expect((await poll(link.id, link.secret)).body).toEqual({
      status: "approved",
      baseUrl: BASE,
      token: expect.stringMatching(BAY_TOKEN),
      agent,
    });
  });

  it("B-018 an unknown code answers 404 to view and approve", async () => {
    const missing = {
      status: 404,
      body: { error: { code: "not_found", message: "link request not found", details: {} } },
    };
    expect(await view("ABCD-EFGH-JKMN", maintainerToken)).toEqual(missing);
    expect(await approve("ABCD-EFGH-JKMN", "agt-a", maintainerToken)).toEqual({
      status: 404,
      body: {
        error: { code: "not_found", message: "link request not found, expired or already approved", details: {} },
      },
    });
  });

  it("B-018 a wrong secret answers 404 exactly like an unknown request, before and after approval, and collects nothing", async () => {
    const owner = await newHuman("olga");
    const agent = await newAgent("olga", "agent-secret");
    const link = (await createLink()).body;
    const wrong = `${link.secret.slice(0, -1)}${link.secret.endsWith("A") ? "B" : "A"}`;
    expect(await poll(link.id, wrong)).toEqual(LINK_NOT_FOUND);
    expect(await poll("lnk-AAAAAAAAAAAAAAAA", link.secret)).toEqual(LINK_NOT_FOUND);
    expect((await approve(link.code, agent.id, owner.token)).status).toBe(200);
    expect(await poll(link.id, wrong)).toEqual(LINK_NOT_FOUND);
    expect(await poll(link.id, link.code)).toEqual(LINK_NOT_FOUND);
    expect(await liveTokens(agent.id)).toBe(0);
    expect(await hub.db.linkRequest.findUnique({ where: { id: link.id }, select: { redeemedAt: true } })).toEqual({
      redeemedAt: null,
    });
    expect((await poll(link.id, link.secret)).body).toEqual({
      status: "approved",
      baseUrl: BASE,
      token: expect.stringMatching(BAY_TOKEN),
      agent,
    });
  });

  it("B-018 an expired request: the owner sees expired, approve and poll answer 404", async () => {
    const owner = await newHuman("petra");
    const agent = await newAgent("petra", "agent-late");
    const link = (await createLink({ label: "late" })).body;
    await hub.db.linkRequest.update({ where: { id: link.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await view(link.code, owner.token)).body).toMatchObject({ label: "late", status: "expired" });
    expect(await approve(link.code, agent.id, owner.token)).toEqual({
      status: 404,
      body: {
        error: { code: "not_found", message: "link request not found, expired or already approved", details: {} },
      },
    });
    expect(await poll(link.id, link.secret)).toEqual(LINK_NOT_FOUND);
    expect(await liveTokens(agent.id)).toBe(0);
  });

  it("B-018 two racing polls after approval: exactly one collects the token", async () => {
    const owner = await newHuman("quinn");
    const agent = await newAgent("quinn", "agent-race");
    const link = (await createLink()).body;
    expect((await approve(link.code, agent.id, owner.token)).status).toBe(200);
    const answers = await Promise.all([poll(link.id, link.secret), poll(link.id, link.secret)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    expect(answers.find((a) => a.status === 404)).toEqual(LINK_NOT_FOUND);
    expect(await liveTokens(agent.id)).toBe(1);
    expect(await me(answers.find((a) => a.status === 200)?.body.token)).toEqual(meOf(agent));
  });

  it("B-018 the dashboard views and approves over tRPC (links.get, links.approve); the code is read case-insensitively, with or without dashes", async () => {
    await newHuman("rosa");
    const agent = await newAgent("rosa", "agent-phone");
    const link = (await createLink({ label: "phone" })).body;
    const browser = trpcBrowser(hub);
    expect((await browser.mutation("auth.login", { handle: "rosa", password: PASSWORD })).status).toBe(200);
    const seen = await browser.query("links.get", { code: link.code.toLowerCase() });
    expect(seen.status).toBe(200);
    expect(seen.body.result?.data).toEqual({
      label: "phone",
      status: "pending",
      created_at: expect.any(String),
      expires_at: link.expiresAt,
      agents: [agent],
    });
    const approved = await browser.mutation("links.approve", { code: normal(link.code), agent_id: agent.id });
    expect(approved.status).toBe(200);
    expect(approved.body.result?.data).toEqual({ approved: true, agent_id: agent.id });
    expect((await poll(link.id, link.secret)).body).toEqual({
      status: "approved",
      baseUrl: BASE,
      token: expect.stringMatching(BAY_TOKEN),
      agent,
    });
  });

  it("bad input on the Maity routes answers 400 with the field named", async () => {
    const link = (await createLink()).body;
    const invalid = (fields: Record<string, string>) => ({
      status: 400,
      body: {
        error: { code: "invalid", message: `invalid input: ${Object.keys(fields).join(", ")}`, details: { fields } },
      },
    });
    expect(await rest("POST", `/api/links/${link.code}/approve`, { token: maintainerToken, body: {} })).toEqual(
      invalid({ agent_id: "required" }),
    );
    expect(await approve(link.code, "agent-a", maintainerToken)).toEqual(
      invalid({ agent_id: "a member id (hum-… or agt-…)" }),
    );
    expect(
      await rest("POST", `/api/links/${link.code}/approve`, {
        token: maintainerToken,
        body: { agent_id: "agt-a", token: "x" },
      }),
    ).toEqual(invalid({ token: "unknown_field" }));
    expect(
      await rest("POST", `/api/links/${link.code}/approve`, { token: maintainerToken, body: "{not json" }),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid",
          message: "the request body is not valid JSON",
          details: { fields: { body: "not_json" } },
        },
      },
    });
    expect(await view("X".repeat(41), maintainerToken)).toEqual(invalid({ code: "a link code" }));
    expect(await hub.db.linkRequest.findUnique({ where: { id: link.id }, select: { approvedAt: true } })).toEqual({
      approvedAt: null,
    });
  });
});

describe("bad input on the pre-auth routes: 400 with the field named", () => {
  const invalidRequest = (fields: Record<string, string>) => ({
    status: 400,
    body: { error: `invalid input: ${Object.keys(fields).join(", ")}`, code: "INVALID_REQUEST", fields },
  });
  const INVALID_JSON = {
    status: 400,
    body: { error: "the body is not valid JSON", code: "INVALID_JSON", fields: { body: "invalid_json" } },
  };

  it("POST /pair: a missing, empty, non-string or too long code, an unknown field, bad JSON; a refused body does not spend the code", async () => {
    const agent = await newAgent("maintainer", "pair-input");
    const code = await mintCode(agent.id, maintainerToken);
    expect(await agentApi("POST", "/pair", { body: {} })).toEqual(invalidRequest({ code: "required" }));
    expect(await agentApi("POST", "/pair")).toEqual(invalidRequest({ code: "required" }));
    expect(await pair("")).toEqual(invalidRequest({ code: "required" }));
    expect(await agentApi("POST", "/pair", { body: { code: 42 } })).toEqual(invalidRequest({ code: "a pairing code" }));
    expect(await pair("A".repeat(65))).toEqual(invalidRequest({ code: "a pairing code" }));
    expect(await agentApi("POST", "/pair", { body: { code, agent_id: agent.id } })).toEqual(
      invalidRequest({ agent_id: "unknown_field" }),
    );
    expect(await agentApi("POST", "/pair", { body: `{"code": "${code}"` })).toEqual(INVALID_JSON);
    expect(await agentApi("GET", "/pair")).toEqual({
      status: 405,
      body: { error: "GET is not allowed here", code: "METHOD_NOT_ALLOWED" },
    });
    expect(await hub.db.pairingCode.findMany({ where: { agentId: agent.id }, select: { usedAt: true } })).toEqual([
      { usedAt: null },
    ]);
    expect((await pair(code)).status).toBe(200);
  });

  it("POST /link and /link/:id/poll: a bad label, unknown fields, a missing secret, bad JSON", async () => {
    const before = await hub.db.linkRequest.count();
    expect(await agentApi("POST", "/link", { body: { label: "x".repeat(81) } })).toEqual(
      invalidRequest({ label: "at most 80 characters" }),
    );
    expect(await agentApi("POST", "/link", { body: { label: 5 } })).toEqual(invalidRequest({ label: "a string" }));
    expect(await agentApi("POST", "/link", { body: { name: "laptop" } })).toEqual(
      invalidRequest({ name: "unknown_field" }),
    );
    expect(await agentApi("POST", "/link", { body: "label=laptop" })).toEqual(INVALID_JSON);
    expect(await hub.db.linkRequest.count()).toBe(before);
    const link = (await agentApi("POST", "/link", { body: {} })).body;
    expect(await agentApi("POST", `/link/${link.id}/poll`, { body: {} })).toEqual(
      invalidRequest({ secret: "required" }),
    );
    expect(await agentApi("POST", `/link/${link.id}/poll`, { body: { secret: "" } })).toEqual(
      invalidRequest({ secret: "required" }),
    );
    expect(await agentApi("POST", `/link/${link.id}/poll`, { body: { secret: link.secret, code: link.code } })).toEqual(
      invalidRequest({ code: "unknown_field" }),
    );
    expect(await agentApi("POST", `/link/${link.id}/poll`, { body: "{" })).toEqual(INVALID_JSON);
    expect(await poll(link.id, link.secret)).toEqual({ status: 200, body: { status: "pending" } });
  });
});

describe("the pre-auth budget per client address (B-010)", () => {
  it("the default is 10 a minute: the 11th call from one address answers 429 RATE_LIMITED with retry-after; another address is not affected", async () => {
    expect(DEFAULT_LIMITS.preauth).toBe(10);
    expect(hub.limits.settings.preauth).toBe(10);
    const address = "203.0.113.10";
    for (let i = 0; i < 10; i++) expect((await agentApi("POST", "/pair", { address, body: "{" })).status).toBe(400);
    const refused = await agentApiRaw(hub, "POST", "/pair", { address, body: "{" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("6");
    expect(await refused.json()).toEqual({ error: "too many attempts; wait and try again", code: "RATE_LIMITED" });
    expect((await agentApi("POST", "/pair", { address: "203.0.113.11", body: "{" })).status).toBe(400);
  });

  it("with limits.preauth 3: pair, link and poll share one budget; the 4th call is refused before it reads the code, which stays redeemable", async () => {
    const small = await testHub({ limits: { preauth: 3 } });
    try {
      await seedDemo(small);
      const smallRest = restClient(small);
      const humanToken = (
        await smallRest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-maintainer" } })
      ).body.token as string;
      const minted = await smallRest("POST", "/api/agents/agt-a/pairing-codes", { token: humanToken });
      expect(minted.status).toBe(201);
      const address = "203.0.113.20";
      const link = await agentApi("POST", "/link", { address, body: {} }, small);
      expect(link.status).toBe(201);
      expect(
        await agentApi("POST", `/link/${link.body.id}/poll`, { address, body: { secret: link.body.secret } }, small),
      ).toEqual({ status: 200, body: { status: "pending" } });
      expect(await agentApi("POST", "/pair", { address, body: { code: "ABCD-EFGH-JKMN" } }, small)).toEqual(
        INVALID_PAIRING_CODE,
      );
      for (const [path, body] of [
        ["/pair", { code: minted.body.code }],
        ["/link", {}],
        [`/link/${link.body.id}/poll`, { secret: link.body.secret }],
      ] as const) {
        const refused = await agentApiRaw(small, "POST", path, { address, body });
        expect(refused.status, path).toBe(429);
        expect(refused.headers.get("retry-after"), path).toBe("20");
        expect(await refused.json()).toEqual({ error: "too many attempts; wait and try again", code: "RATE_LIMITED" });
      }
      expect(await small.db.pairingCode.findMany({ select: { usedAt: true } })).toEqual([{ usedAt: null }]);
      const redeemed = await agentApi(
        "POST",
        "/pair",
        { address: "203.0.113.21", body: { code: minted.body.code } },
        small,
      );
      expect(redeemed).toEqual({
        status: 200,
        body: {
          baseUrl: BASE,
          token: expect.stringMatching(BAY_TOKEN),
          agent: { id: "agt-a", name: "maintainer/agent-a" },
        },
      });
      // Authenticated calls from the exhausted address spend the agent's budget, not the pre-auth one.
      expect((await agentApi("GET", "/me", { address, token: redeemed.body.token }, small)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
