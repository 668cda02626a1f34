import { mkdtemp, rm } from "node:fs/promises";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ApiServer, startApiServer } from "@maity/api/node";
import { openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import type { UpdatesEvent } from "@maity/domain";
import { createHub, type Hub, type HubOptions, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentApiError, connect, type EventsOptions } from "../src/index.ts";

// The SDK's event iterator (004 §11) against a real server on 127.0.0.1: every message
// posted while iterating arrives once, in order per room, over /ws and over /updates, through
// dropped connections, a hub killed and started again on the same database and port, and an
// expired cursor (reset / 409 CURSOR_EXPIRED, caught up over REST). Loops are bounded; nothing
// asserts a duration.

const ADMIN = "events-admin";
const HUB: HubOptions = { limits: { agent: 100_000, updates: 100_000, ws: 100_000 } };
const SOCKETS = { idleCursorMs: 300 };
const REF = { owner: "maintainer", slug: "maity" };
const MAINTAINER = { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" };
const FAST = { minMs: 20, maxMs: 200 };

/** A database a second hub can open again after the first closed it: a PGlite folder, or PostgreSQL's. */
async function reopenable() {
  if (process.env.TEST_DATABASE_URL) {
    const owner = await freshDatabase();
    const url = owner.url as string;
    return { open: () => openDatabase({ databaseUrl: url }), dispose: () => owner.close() };
  }
  const dir = await mkdtemp(path.join(tmpdir(), "maity-events-"));
  return { open: () => openDatabase({ dataDir: dir }), dispose: () => rm(dir, { recursive: true, force: true }) };
}

const store = await reopenable();
let hub: Hub = createHub(await store.open(), HUB);
let api: ApiServer;
/** Every TCP connection of the current server, so a test can cut them (a dropped socket or held poll). */
const connections = new Set<Socket>();
const listen = async (port?: number) => {
  api = await startApiServer(hub, { adminToken: ADMIN, sockets: SOCKETS, ...(port ? { port } : {}) });
  api.server.on("connection", (socket: Socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
  });
};
let token = "";
let rooms: { dm: string; group: string } = { dm: "", group: "" };

const admin = async (route: string, body: unknown) => {
  const res = await fetch(`${api.url}/api/admin/${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.ok).toBe(true);
  return (await res.json()) as { token: string };
};
const mint = async () => (await admin("tokens", { member_id: "agt-a" })).token;

beforeAll(async () => {
  await seedDemo(hub);
  await listen();
  token = await mint();
  const mine = await connect({ baseUrl: api.url, token }).conversations();
  const id = (type: string) => mine.find((r) => r.type === type)?.maity.id as string;
  rooms = { dm: id("DM"), group: id("GROUP") };
});
afterAll(async () => {
  await api.close();
  await hub.close();
  await store.dispose();
});

/** A human posts in a room, through the hub itself (the same write the REST route makes). */
const say = (room: keyof typeof rooms, body: string) => hub.messages.post(MAINTAINER, REF, rooms[room], { body });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `events()` in the background, keeping what arrives, until aborted or broken out of. */
function reader(options: EventsOptions & { token?: string; baseUrl?: string } = {}) {
  const stop = new AbortController();
  const got: UpdatesEvent[] = [];
  const cursors: string[] = [];
  let ready: () => void = () => {};
  const started = new Promise<void>((resolve) => (ready = resolve));
  const agent = connect({ baseUrl: options.baseUrl ?? api.url, token: options.token ?? token });
  const done = (async () => {
    for await (const event of agent.events({
      reconnect: FAST,
      ...options,
      signal: stop.signal,
      onCursor: (cursor) => {
        cursors.push(cursor);
        ready();
      },
    })) {
      got.push(event);
    }
  })();
  done.catch(() => ready());
  const contents = () => got.map((e) => e.message.content);
  return {
    got,
    cursors,
    started,
    done,
    contents,
    stop: async () => {
      stop.abort();
      await done;
    },
    /** Waits (bounded) until every expected content has arrived, then checks nothing else did. */
    async until(expected: string[]) {
      for (let i = 0; i < 1_500 && !expected.every((c) => contents().includes(c)); i++) await pause(20);
      return contents();
    },
  };
}

/** Exactly once, and in posting order within each room (B-131 and the SDK's dedupe). */
function expectOnceInOrder(contents: string[], posted: Record<keyof typeof rooms, string[]>) {
  expect([...contents].sort()).toEqual([...posted.dm, ...posted.group].sort());
  expect(contents.filter((c) => posted.dm.includes(c))).toEqual(posted.dm);
  expect(contents.filter((c) => posted.group.includes(c))).toEqual(posted.group);
}

function poster(tag: string) {
  const posted: Record<keyof typeof rooms, string[]> = { dm: [], group: [] };
  let n = 0;
  return {
    posted,
    async post(count: number) {
      for (let i = 0; i < count; i++) {
        const room = n % 3 === 2 ? "dm" : "group";
        const body = `${tag} ${room} #${n++}`;
        posted[room].push(body);
        await say(room, body);
      }
    },
    all: () => [...posted.dm, ...posted.group],
  };
}

describe.each(["ws", "updates"] as const)("events() over %s", (transport) => {
  it("B-131 B-135 B-150 B-152 posted while iterating: each once, in order per room; break ends it", async () => {
    const r = reader({ transport });
    await r.started;
    const p = poster(`${transport} live`);
    await p.post(12);
    expectOnceInOrder(await r.until(p.all()), p.posted);
    expect(r.cursors.at(-1)).toMatch(/^u[0-9a-z]+$/);
    await r.stop();

    // Breaking out of `for await` ends the iterator and its connection (no abort needed).
    const agent = connect({ baseUrl: api.url, token });
    const q = poster(`${transport} break`);
    let first: UpdatesEvent | null = null;
    let cursor: () => void = () => {};
    const ready = new Promise<void>((resolve) => (cursor = resolve));
    const broke = (async () => {
      for await (const event of agent.events({ transport, reconnect: FAST, onCursor: () => cursor() })) {
        first = event;
        break;
      }
    })();
    await ready;
    await q.post(1);
    await broke;
    expect((first as UpdatesEvent | null)?.message.content).toBe(q.all()[0]);
  });

  it("B-144 B-151 B-157 connections cut under it lose and double nothing (resume from the last cursor)", async () => {
    const r = reader({ transport });
    await r.started;
    const p = poster(`${transport} cut`);
    let cut = 0;
    let opened = 0;
    const count = () => (opened += 1);
    api.server.on("connection", count);
    for (let round = 0; round < 4; round++) {
      // Back on a connection (after the backoff), then messages in flight, then cut.
      for (let i = 0; i < 500 && connections.size === 0; i++) await pause(10);
      await p.post(3);
      for (const socket of connections) {
        socket.destroy();
        cut += 1;
      }
      await p.post(2);
      await pause(30);
    }
    await p.post(2);
    expectOnceInOrder(await r.until(p.all()), p.posted);
    api.server.off("connection", count);
    // It was cut, and came back each time on a new connection.
    expect(cut).toBeGreaterThanOrEqual(4);
    expect(opened).toBeGreaterThanOrEqual(4);
    await r.stop();
  });

  it("B-137 B-144 B-156 hub killed, restarted mid-stream: before, during, after: none lost or doubled", async () => {
    const r = reader({ transport });
    await r.started;
    const p = poster(`${transport} restart`);
    await p.post(4);
    await r.until(p.all());
    const port = Number(new URL(api.url).port);
    await p.post(2);
    // Kill: the server (its sockets closed with 4003, held polls cut) and the hub with its database.
    await api.close();
    await hub.close();
    // A new hub on the same database; messages posted through it while no server listens.
    hub = createHub(await store.open(), HUB);
    await p.post(4);
    await listen(port);
    await p.post(4);
    expectOnceInOrder(await r.until(p.all()), p.posted);
    await r.stop();
  });

  it("B-138 B-154 expired cursor (reset, 409 CURSOR_EXPIRED): per-room REST catch-up, then on", async () => {
    // A hub on the same database whose replay window is 100 ms, so a saved cursor expires at once.
    const short = createHub(hub.database, { ...HUB, replayWindowMs: 100 });
    const server = await startApiServer(short, { sockets: SOCKETS });
    const post = (room: keyof typeof rooms, body: string) =>
      short.messages.post(MAINTAINER, REF, rooms[room], { body });
    try {
      const since = new Date().toISOString();
      const first = reader({ transport, baseUrl: server.url });
      await first.started;
      const seen = `${transport} expire seen`;
      await post("dm", seen);
      await first.until([seen]);
      await first.stop();
      const saved = first.cursors.at(-1) as string;

      const missed = {
        dm: [`${transport} missed dm 1`, `${transport} missed dm 2`],
        group: [`${transport} missed group 1`],
      };
      for (const body of missed.dm) await post("dm", body);
      for (const body of missed.group) await post("group", body);
      await pause(250);

      const again = reader({ transport, baseUrl: server.url, cursor: saved, since });
      await again.started;
      const after = { dm: [`${transport} after reset dm`], group: [`${transport} after reset group`] };
      await post("dm", after.dm[0] as string);
      await post("group", after.group[0] as string);
      const contents = await again.until([...missed.dm, ...missed.group, ...after.dm, ...after.group]);
      // The catch-up reads from `since`: the message the first reader saw comes again, once.
      expectOnceInOrder(contents, { dm: [seen, ...missed.dm, ...after.dm], group: [...missed.group, ...after.group] });
      await again.stop();
    } finally {
      await server.close();
    }
  });

  it("B-011 B-156 B-158 a revoked token ends the iterator with AgentApiError 401, without retrying", async () => {
    const own = await mint();
    const r = reader({ transport, token: own });
    await r.started;
    await admin("tokens/revoke", { token: own });
    // The socket closes 4001 at once; a held poll answers 401 on its next event or its next call.
    await say("dm", `${transport} after revocation`);
    const error = await r.done.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentApiError);
    expect(error).toMatchObject({ status: 401 });
  });
});

describe("transport negotiation (§11)", () => {
  it("B-158 auto: an upgrade answered 404 falls back to /updates, which serves the same events", async () => {
    const server = await startApiServer(hub, { sockets: SOCKETS });
    server.server.removeAllListeners("upgrade");
    let upgrades = 0;
    server.server.on("upgrade", (_req, socket) => {
      upgrades += 1;
      socket.end("HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n");
    });
    try {
      const r = reader({ baseUrl: server.url });
      await r.started;
      const p = poster("fallback");
      await p.post(4);
      expectOnceInOrder(await r.until(p.all()), p.posted);
      expect(upgrades).toBe(1);
      await r.stop();
    } finally {
      await server.close();
    }
  });

  it("B-146 auto in Node opens the socket with the Authorization header, never ?token=", async () => {
    const urls: string[] = [];
    const headers: (string | undefined)[] = [];
    api.server.prependListener("upgrade", (req) => {
      urls.push(req.url ?? "");
      headers.push(req.headers.authorization);
    });
    const r = reader();
    await r.started;
    await r.stop();
    expect(urls).toEqual(["/api/agent-api/ws"]);
    expect(headers).toEqual([`Bearer ${token}`]);
  });
});
