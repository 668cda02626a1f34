import { createServer, type ServerResponse } from "node:http";
import { openDatabase } from "@maity/db";
import { createHub, seedDemo, signWebhook } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// Webhook deliveries at the machine's limit (004 §11 Webhook contract v2, OQ-B-21 as the hub adopts
// it): deliveries to different agents run at once, at most `concurrency` requests in flight over
// all agents (MAITY_WEBHOOK_CONCURRENCY), each agent's one at a time in seq order, a failed attempt
// retried after its pause before that agent's later messages. An agent that left the room since
// the message was written gets nothing (hidden = missing).

const BACKOFF = [600, 600];
const CONCURRENCY = 3;
const hub = await testHub({
  webhooks: { backoffMs: BACKOFF, timeoutMs: 5_000, allow: ["127.0.0.1"], concurrency: CONCURRENCY },
  limits: { agent: 100_000 },
});
const rest = restClient(hub);
const PROJECT = "/api/projects/maintainer/maity/conversations";
let human = "";
const receivers = new Set<Receiver>();
afterAll(async () => {
  for (const r of receivers) await r.close();
  await hub.close();
});

beforeAll(async () => {
  await seedDemo(hub);
  human = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-maintainer" } })).body.token;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- receivers on 127.0.0.1 that count what is in flight across all of them -------------------------

type Got = { content: string; at: number; signature: string; raw: string };
type Receiver = {
  url: string;
  got: Got[];
  held: ServerResponse[];
  release: (status?: number) => void;
  close: () => Promise<void>;
};
let inFlight = 0;
let maxInFlight = 0;

/** `answer(n)` is the status of the n-th request (0-based), or "hold" until released. */
async function receiver(answer: (n: number) => number | "hold" = () => 200): Promise<Receiver> {
  const got: Got[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => {
      inFlight -= 1;
    });
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const n = got.length;
      got.push({
        content: (JSON.parse(raw) as { message: { content: string } }).message.content,
        at: Date.now(),
        signature: String(req.headers["x-maity-signature"]),
        raw,
      });
      const status = answer(n);
      if (status === "hold") held.push(res);
      else res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const r: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    held,
    release(status = 200) {
      for (const res of held.splice(0)) if (!res.writableEnded && !res.destroyed) res.writeHead(status).end();
    },
    async close() {
      receivers.delete(r);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  receivers.add(r);
  return r;
}

/** Polls until `check` holds (bounded). */
async function until(check: () => boolean | Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error(`not reached: ${what}`);
}

// ---- agents, chats, messages ------------------------------------------------------------------------

let agents = 0;
/** A new agent of maintainer's in maintainer/maity with a webhook to `r`. */
async function hookedAgent(r: Receiver, secret = "0123456789abcdef-secret"): Promise<string> {
  agents += 1;
  const created = await rest("POST", "/api/admin/agents", {
    token: ADMIN,
    body: { owner: "maintainer", handle: `hook-${agents}`, description: `Webhook agent ${agents}.` },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect(
    (await rest("POST", "/api/admin/projects/maintainer/maity/members", { token: ADMIN, body: { member_id: id } }))
      .status,
  ).toBe(201);
  const token = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  const set = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: r.url, secret }),
    }),
  );
  expect(set.status).toBe(200);
  return id;
}

async function group(title: string, participants: string[]): Promise<string> {
  const created = await rest("POST", PROJECT, { token: human, body: { title, participants } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function say(conversation: string, body: string): Promise<number> {
  const res = await rest("POST", `${PROJECT}/${conversation}/messages`, { token: human, body: { body } });
  expect(res.status).toBe(201);
  return res.body.seq as number;
}

const rowsOf = (agentId: string) =>
  hub.db.webhookDelivery.findMany({ where: { agentId }, orderBy: { eventSeq: "asc" } });

describe("webhook deliveries run concurrently, bounded, each agent's in order (OQ-B-21, B-163)", () => {
  it("OQ-B-21 an agent whose receiver holds its delivery does not hold another agent's: B gets both messages while A's first waits", async () => {
    const ra = await receiver(() => "hold");
    const rb = await receiver();
    const a = await hookedAgent(ra);
    const b = await hookedAgent(rb);
    const room = await group("Held and free", [a, b]);
    await say(room, "first");
    await say(room, "second");
    await until(() => ra.held.length === 1 && rb.got.length === 2, "B's two deliveries while A's first is held");
    expect(rb.got.map((g) => g.content)).toEqual(["first", "second"]);
    // A's second waits behind its first: one at a time per agent, in seq order.
    expect(ra.got.map((g) => g.content)).toEqual(["first"]);
    expect((await rowsOf(a)).map((d) => d.status)).toEqual(["pending", "pending"]);
    ra.release(200);
    await until(() => ra.got.length === 2 && ra.held.length === 1, "A's second after its first");
    expect(ra.got.map((g) => g.content)).toEqual(["first", "second"]);
    ra.release(200);
    await hub.webhooks.idle();
    expect((await rowsOf(a)).map((d) => [d.status, d.attempts])).toEqual([
      ["delivered", 1],
      ["delivered", 1],
    ]);
    await ra.close();
    await rb.close();
  });

  it("OQ-B-21 never more requests in flight than the bound (MAITY_WEBHOOK_CONCURRENCY): 6 agents, 3 at a time, all delivered once", async () => {
    const held = await Promise.all(Array.from({ length: 6 }, () => receiver(() => "hold")));
    const ids: string[] = [];
    for (const r of held) ids.push(await hookedAgent(r));
    const room = await group("Six hooks", ids);
    inFlight = 0;
    maxInFlight = 0;
    await say(room, "to all six");
    const waiting = () => held.reduce((n, r) => n + r.held.length, 0);
    await until(() => waiting() === CONCURRENCY, "the first three requests");
    // Given time, no fourth request starts while three are held.
    await sleep(300);
    expect(waiting()).toBe(CONCURRENCY);
    expect(maxInFlight).toBe(CONCURRENCY);
    // Released one by one, the others follow, still never more than three at once.
    for (let i = 0; i < 20 && held.some((r) => r.got.length === 0 || r.held.length > 0); i++) {
      for (const r of held) r.release(200);
      await sleep(30);
    }
    await hub.webhooks.idle();
    expect(held.map((r) => r.got.map((g) => g.content))).toEqual(held.map(() => ["to all six"]));
    expect(maxInFlight).toBe(CONCURRENCY);
    for (const id of ids) expect((await rowsOf(id)).map((d) => [d.status, d.attempts])).toEqual([["delivered", 1]]);
    for (const r of held) await r.close();
  });

  it("OQ-B-21 B-163 a receiver failing then recovering: its retry keeps the backoff and comes before its later messages; the other agent is not held", async () => {
    const secret = "flaky-secret-0123456789";
    const rc = await receiver((n) => (n === 0 ? 500 : 200));
    const rd = await receiver();
    const c = await hookedAgent(rc, secret);
    const d = await hookedAgent(rd);
    const room = await group("Flaky and steady", [c, d]);
    const seqs = [await say(room, "one"), await say(room, "two"), await say(room, "three")];
    await until(() => rc.got.length === 4 && rd.got.length === 3, "every delivery");
    await hub.webhooks.idle();
    // Each agent's messages in seq order; C's first again after the pause, before its second.
    expect(rc.got.map((g) => g.content)).toEqual(["one", "one", "two", "three"]);
    expect(rd.got.map((g) => g.content)).toEqual(["one", "two", "three"]);
    const [first, retry] = rc.got as [Got, Got];
    expect(retry.at - first.at).toBeGreaterThanOrEqual((BACKOFF[0] as number) - 5);
    // The steady agent did not wait for the flaky one's pause.
    expect((rd.got[2] as Got).at).toBeLessThan(retry.at);
    for (const g of rc.got) expect(g.signature).toBe(signWebhook(secret, g.raw));
    expect((await rowsOf(c)).map((r) => [r.eventSeq, r.status, r.attempts, r.lastStatus])).toEqual([
      [seqs[0], "delivered", 2, 200],
      [seqs[1], "delivered", 1, 200],
      [seqs[2], "delivered", 1, 200],
    ]);
    await rc.close();
    await rd.close();
  });

  it("OQ-B-21 hidden = missing: an agent removed from the chat, or from the project, before its delivery is taken gets nothing", async () => {
    // Each receiver holds its first request: the agent's next delivery waits behind it (one at a time).
    const re = await receiver((n) => (n === 0 ? "hold" : 200));
    const rf = await receiver((n) => (n === 0 ? "hold" : 200));
    const rg = await receiver((n) => (n === 0 ? "hold" : 200));
    const e = await hookedAgent(re);
    const f = await hookedAgent(rf);
    const g = await hookedAgent(rg);
    const room = await group("Leaving", [e, f, g]);
    await say(room, "before");
    await until(() => [re, rf, rg].every((r) => r.held.length === 1), "the first deliveries, held");
    await say(room, "after");
    const removed = await rest("DELETE", `${PROJECT}/${room}/participants/${e}`, { token: human });
    expect(removed.status).toBe(200);
    const ended = await rest("DELETE", `/api/admin/projects/maintainer/maity/members/${f}`, { token: ADMIN });
    expect(ended.status).toBeLessThan(300);
    for (const r of [re, rf, rg]) r.release(200);
    await until(() => rg.got.length === 2, "G's second");
    await hub.webhooks.idle();
    expect(rg.got.map((x) => x.content)).toEqual(["before", "after"]);
    expect(re.got.map((x) => x.content)).toEqual(["before"]);
    expect(rf.got.map((x) => x.content)).toEqual(["before"]);
    for (const id of [e, f])
      expect((await rowsOf(id)).map((r) => [r.status, r.lastError])).toEqual([
        ["delivered", null],
        ["dropped", "no longer in the conversation"],
      ]);
    for (const r of [re, rf, rg]) await r.close();
  });

  // Several app instances on one PostgreSQL (PGlite's data folder belongs to one process).
  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "OQ-B-21 two instances on one database, both sending: every agent gets every message exactly once, in seq order",
    async () => {
      const url = (hub.database as { url?: string | null }).url;
      if (!url) throw new Error("no database URL");
      const other = createHub(await openDatabase({ databaseUrl: url, migrate: false }), {
        webhooks: { backoffMs: BACKOFF, timeoutMs: 5_000, allow: ["127.0.0.1"], concurrency: CONCURRENCY },
      });
      const otherRest = restClient(other);
      try {
        // Both instances are kicked after every write, so both workers claim from the same queue.
        const rs = await Promise.all(Array.from({ length: 8 }, () => receiver(() => 200)));
        const ids: string[] = [];
        for (const r of rs) ids.push(await hookedAgent(r));
        const room = await group("Two instances", ids);
        const seqs: number[] = [];
        for (let i = 0; i < 12; i++) {
          const via = i % 2 === 0 ? rest : otherRest;
          const res = await via("POST", `${PROJECT}/${room}/messages`, { token: human, body: { body: `m${i}` } });
          expect(res.status).toBe(201);
          seqs.push(res.body.seq as number);
          hub.webhooks.kick();
          other.webhooks.kick();
        }
        await until(() => rs.every((r) => r.got.length >= 12), "every delivery", 2_000);
        await Promise.all([hub.webhooks.idle(), other.webhooks.idle()]);
        await sleep(200);
        const contents = seqs.map((_, i) => `m${i}`);
        for (const r of rs) expect(r.got.map((g) => g.content)).toEqual(contents);
        for (const id of ids)
          expect((await rowsOf(id)).map((d) => [d.eventSeq, d.status, d.attempts])).toEqual(
            seqs.map((seq) => [seq, "delivered", 1]),
          );
        for (const r of rs) await r.close();
      } finally {
        await other.close();
      }
    },
  );
});
