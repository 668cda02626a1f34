import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { encodeUpdatesCursor, type UpdatesEvent } from "@maity/domain";
import { createHub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ApiServer, startApiServer } from "../src/node.ts";
import { ADMIN, createWithVisitors, restClient, testHub } from "./helpers.ts";

// 004 §11 GET /ws (B-146…B-159) on a real server on 127.0.0.1, with short timers so the hello
// deadline, pings and idle cursor frames happen within a test.

const hub = await testHub({ limits: { agent: 10_000, updates: 10_000, ws: 10_000 } });
const rest = restClient(hub);
const T: Record<string, string> = {};
const M = "/api/projects/maintainer/maity";
let api: ApiServer;
let wsUrl: string;

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "agt-x", "hum-maintainer", "hum-guest"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  api = await startApiServer(hub, { sockets: { helloTimeoutMs: 400, pingIntervalMs: 150, idleCursorMs: 300 } });
  wsUrl = `${api.url.replace("http", "ws")}/api/agent-api/ws`;
});
afterAll(async () => {
  await api.close();
  await hub.close();
});

type Frame = { t: string; cursor?: string } & Partial<UpdatesEvent>;
interface Client {
  ws: WebSocket;
  frames: Frame[];
  /** The first frame (from `from` on) that matches, within `ms`. */
  frame(match: (f: Frame) => boolean, ms?: number, from?: number): Promise<Frame>;
  closed: Promise<{ code: number; reason: string }>;
  opened: Promise<void>;
}

function connect(token: string | null, options: { query?: string; autoPong?: boolean; hello?: unknown } = {}): Client {
  const ws = new WebSocket(`${wsUrl}${options.query ?? ""}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    autoPong: options.autoPong ?? true,
  });
  const frames: Frame[] = [];
  const waiters = new Set<() => void>();
  ws.on("message", (data) => {
    frames.push(JSON.parse(String(data)));
    for (const w of waiters) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    ws.on("open", () => {
      if (options.hello !== undefined) ws.send(JSON.stringify(options.hello));
      resolve();
    });
    ws.on("unexpected-response", (_req, res) =>
      reject(
        Object.assign(new Error(`upgrade answered ${res.statusCode}`), {
          status: res.statusCode,
          headers: res.headers,
        }),
      ),
    );
    ws.on("error", () => {});
  });
  opened.catch(() => {});
  const frame = (match: (f: Frame) => boolean, ms = 5000, from = 0) =>
    new Promise<Frame>((resolve, reject) => {
      const check = () => {
        const found = frames.slice(from).find(match);
        if (!found) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(frames.map((f) => f.t))}`));
      }, ms);
      if (!check()) waiters.add(check);
    });
  return { ws, frames, frame, closed, opened };
}
const say = async (who: string, conversation: string, body: string) => {
  const res = await rest("POST", `${M}/conversations/${conversation}/messages`, { token: T[who], body: { body } });
  expect(res.status).toBe(201);
  return res.body as { seq: number };
};
const poll = async (query: string, token = T["agt-a"] as string) => {
  const res = await fetch(`${api.url}/api/agent-api/updates?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as { cursor: string; events: UpdatesEvent[] } };
};
const isCursor = (f: Frame) => f.t === "cursor";
const isEvent = (f: Frame) => f.t === "event";

describe("connecting (B-146 B-147 B-158)", () => {
  it("B-146 B-149 B-150 the Authorization header opens it; nothing comes before hello; after hello a cursor frame says where the stream stands", async () => {
    const c = connect(T["agt-a"] as string);
    await c.opened;
    await new Promise((r) => setTimeout(r, 150));
    expect(c.frames).toEqual([]);
    c.ws.send(JSON.stringify({ t: "hello", resume: null, features: ["brief", "rainbows"] }));
    const cursor = await c.frame(isCursor);
    expect(cursor).toEqual({ t: "cursor", cursor: (await poll("wait=0")).body.cursor });
    c.ws.close();
  });

  it("B-147 ?token= in the URL is still accepted (deprecated)", async () => {
    const c = connect(null, { query: `?token=${T["agt-a"]}`, hello: { t: "hello", resume: null } });
    expect(await c.frame(isCursor)).toMatchObject({ t: "cursor" });
    c.ws.close();
  });

  it("B-158 B-366 a wrong, missing or human credential is answered 401 on the upgrade", async () => {
    for (const token of ["bay_nope", null, T["hum-maintainer"] as string]) {
      await expect(connect(token).opened).rejects.toMatchObject({ status: 401 });
    }
  });

  it("B-158 B-363 reconnecting too fast is answered 429 with Retry-After", async () => {
    const strict = createHub(hub.database, { limits: { ws: 2 } });
    const server = await startApiServer(strict);
    try {
      const url = `${server.url.replace("http", "ws")}/api/agent-api/ws`;
      const open = () =>
        new Promise<number>((resolve) => {
          const ws = new WebSocket(url, { headers: { authorization: `Bearer ${T["agt-x"]}` } });
          ws.on("open", () => {
            ws.close();
            resolve(101);
          });
          ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
          ws.on("error", () => {});
        });
      expect([await open(), await open(), await open()]).toEqual([101, 101, 429]);
    } finally {
      await server.close();
    }
  });
});

describe("frames (B-148 B-151 B-152 B-153 B-159)", () => {
  it("B-151 B-152 a message arrives as an event frame without a cursor, then a cursor frame for the batch", async () => {
    const c = connect(T["agt-a"] as string, { hello: { t: "hello", resume: null } });
    const start = await c.frame(isCursor);
    const posted = await say("hum-maintainer", "agt-a", "over the socket");
    const event = await c.frame(isEvent);
    expect(Object.keys(event).sort()).toEqual(["conversation", "conversationId", "message", "project", "t", "type"]);
    expect(event).toMatchObject({
      t: "event",
      type: "message",
      message: { id: `evt-${posted.seq}`, content: "over the socket", shouldRespond: true },
    });
    const after = c.frames.indexOf(event);
    expect(await c.frame(isCursor, 2000, after)).toEqual({ t: "cursor", cursor: encodeUpdatesCursor(posted.seq) });
    expect(start.cursor).not.toBe(encodeUpdatesCursor(posted.seq));
    c.ws.close();
  });

  it("B-159 the socket's event is the same event /updates serves for the same position", async () => {
    const cursor = (await poll("wait=0")).body.cursor;
    const c = connect(T["agt-a"] as string, { hello: { t: "hello", resume: cursor } });
    await c.frame(isCursor);
    const posted = await say("hum-maintainer", "agt-a", "same everywhere");
    const { t: _t, ...event } = await c.frame((f) => isEvent(f) && f.message?.id === `evt-${posted.seq}`);
    c.ws.close();
    await c.closed;
    expect((await poll(`wait=0&cursor=${cursor}`)).body.events).toEqual([event]);
  });

  it("B-153 an idle socket gets a cursor frame again when nothing happens", async () => {
    const c = connect(T["agt-x"] as string, { hello: { t: "hello", resume: null } });
    const first = await c.frame(isCursor);
    const idle = await c.frame(isCursor, 3000, c.frames.indexOf(first) + 1);
    expect(idle).toEqual(first);
    c.ws.close();
  });

  it("v1.23 §9.1 the socket's handing a direct message to the agent sets delivered_at", async () => {
    const c = connect(T["agt-a"] as string, { hello: { t: "hello", resume: null } });
    await c.frame(isCursor);
    const posted = await say("hum-maintainer", "agt-a", "deliver me");
    await c.frame((f) => isCursor(f) && f.cursor === encodeUpdatesCursor(posted.seq));
    let delivered: string | null = null;
    for (let i = 0; i < 50 && !delivered; i++) {
      const items = (
        await rest("GET", `${M}/conversations/agt-a/messages?before=${posted.seq + 1}&limit=1`, {
          token: T["hum-maintainer"],
        })
      ).body.items as { delivered_at: string | null }[];
      delivered = items[0]?.delivered_at ?? null;
      if (!delivered) await new Promise((r) => setTimeout(r, 20));
    }
    expect(delivered).toEqual(expect.stringMatching(/^\d{4}-/));
    c.ws.close();
  });
});

describe("resume and handoff (B-144 B-154)", () => {
  it("B-144 cursors pass from long-poll to socket and back without a message lost or doubled", async () => {
    const seen: string[] = [];
    let cursor = (await poll("wait=0")).body.cursor;
    const a = await say("hum-maintainer", "agt-a", "one (long-poll)");
    const got = await poll(`wait=0&cursor=${cursor}`);
    seen.push(...got.body.events.map((e) => e.message.id));
    cursor = got.body.cursor;
    // Two messages while nobody listens; the socket resumes from the long-poll's cursor.
    const b = await say("hum-maintainer", "agt-a", "two (missed)");
    const c2 = await say("hum-maintainer", "agt-a", "three (missed)");
    const socket = connect(T["agt-a"] as string, { hello: { t: "hello", resume: cursor } });
    const batchEnd = await socket.frame((f) => isCursor(f) && f.cursor === encodeUpdatesCursor(c2.seq));
    const d = await say("hum-maintainer", "agt-a", "four (socket)");
    const last = await socket.frame(
      (f) => isCursor(f) && f.cursor === encodeUpdatesCursor(d.seq),
      5000,
      socket.frames.indexOf(batchEnd) + 1,
    );
    seen.push(...socket.frames.filter(isEvent).map((f) => f.message?.id as string));
    socket.ws.close();
    await socket.closed;
    // And back: the socket's last cursor frame is a long-poll cursor.
    const e = await say("hum-maintainer", "agt-a", "five (long-poll again)");
    const back = await poll(`wait=0&cursor=${last.cursor}`);
    seen.push(...back.body.events.map((ev) => ev.message.id));
    expect(seen).toEqual([a, b, c2, d, e].map((m) => `evt-${m.seq}`));
  });

  it("B-154 a resume cursor the hub no longer holds gets reset, then the stream runs on from now", async () => {
    const short = createHub(hub.database, { replayWindowMs: 100, limits: { ws: 10_000 } });
    const server = await startApiServer(short, { sockets: { idleCursorMs: 300 } });
    try {
      const cursor = (await poll("wait=0", T["agt-x"])).body.cursor;
      await say("hum-maintainer", "cnv-0003", "@guest/agent-x missed while away");
      await new Promise((r) => setTimeout(r, 200));
      const ws = new WebSocket(`${server.url.replace("http", "ws")}/api/agent-api/ws`, {
        headers: { authorization: `Bearer ${T["agt-x"]}` },
      });
      const frames: Frame[] = [];
      ws.on("message", (data) => frames.push(JSON.parse(String(data))));
      await new Promise((r) => ws.on("open", r));
      ws.send(JSON.stringify({ t: "hello", resume: cursor }));
      for (let i = 0; i < 100 && frames.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(frames.slice(0, 2)).toEqual([{ t: "reset" }, { t: "cursor", cursor: expect.stringMatching(/^u/) }]);
      // Through the hub that serves the socket: its bus wakes the socket (another hub object has its own bus).
      const posted = (
        await restClient(short)("POST", `${M}/conversations/cnv-0003/messages`, {
          token: T["hum-maintainer"],
          body: { body: "after the reset" },
        })
      ).body as { seq: number };
      for (let i = 0; i < 100 && !frames.some((f) => f.message?.id === `evt-${posted.seq}`); i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(frames.filter(isEvent).map((f) => f.message?.id)).toEqual([`evt-${posted.seq}`]);
      ws.close();
    } finally {
      await server.close();
    }
  });
});

describe("closing (B-149 B-155 B-156 B-157)", () => {
  it("B-149 B-156 no hello within the deadline closes with 4002", async () => {
    const c = connect(T["agt-x"] as string);
    expect(await c.closed).toEqual({ code: 4002, reason: "hello expected within 10 seconds" });
  });

  it.each([
    ["a frame that is not JSON", "hello?"],
    ["a first frame that is not hello", JSON.stringify({ t: "send", content: "hi" })],
  ])("B-156 OQ-B-20 %s closes with 4002", async (_name, frame) => {
    const c = connect(T["agt-x"] as string);
    await c.opened;
    c.ws.send(frame);
    expect((await c.closed).code).toBe(4002);
  });

  it("B-119 OQ-B-20 the socket is inbound-only: a frame after hello closes it with 4002", async () => {
    const c = connect(T["agt-x"] as string, { hello: { t: "hello", resume: null } });
    await c.frame(isCursor);
    c.ws.send(JSON.stringify({ t: "hello", resume: null }));
    expect(await c.closed).toEqual({ code: 4002, reason: "the socket is inbound-only: send over REST" });
  });

  it("B-155 B-384 a second connection for the same agent displaces the first with 4000; another agent's stays", async () => {
    const first = connect(T["agt-a"] as string, { hello: { t: "hello", resume: null } });
    await first.frame(isCursor);
    const other = connect(T["agt-x"] as string, { hello: { t: "hello", resume: null } });
    await other.frame(isCursor);
    const second = connect(T["agt-a"] as string, { hello: { t: "hello", resume: null } });
    await second.frame(isCursor);
    expect(await first.closed).toEqual({ code: 4000, reason: "displaced by a newer connection" });
    const posted = await say("hum-maintainer", "agt-a", "to the newer one");
    expect((await second.frame(isEvent)).message?.id).toBe(`evt-${posted.seq}`);
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    second.ws.close();
    other.ws.close();
  });

  it("B-156 B-384 a revoked credential closes the socket with 4001", async () => {
    const { token } = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "agt-x" } })).body;
    const c = connect(token, { hello: { t: "hello", resume: null } });
    await c.frame(isCursor);
    expect((await rest("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } })).body).toEqual({
      revoked: true,
    });
    expect(await c.closed).toEqual({ code: 4001, reason: "credential revoked" });
  });

  it("B-156 no message posted after the revocation reaches the socket while the check is under way", async () => {
    const { token } = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "agt-a" } })).body;
    const c = connect(token, { hello: { t: "hello", resume: null } });
    await c.frame(isCursor);
    // The socket's own re-check of its token is made slow (a busy database); every other read is not.
    const fromToken = hub.auth.fromToken;
    hub.auth.fromToken = async (given, instance) => {
      if (given === token) await new Promise((r) => setTimeout(r, 500));
      return fromToken(given, instance);
    };
    try {
      expect((await rest("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } })).body).toEqual({
        revoked: true,
      });
      const posted = await say("hum-maintainer", "agt-a", "after the revocation");
      expect(await c.closed).toEqual({ code: 4001, reason: "credential revoked" });
      expect(c.frames.filter((f) => f.t === "event")).toEqual([]);
      const event = await hub.db.event.findUnique({ where: { seq: posted.seq }, select: { deliveredAt: true } });
      expect(event?.deliveredAt).toBeNull();
    } finally {
      hub.auth.fromToken = fromToken;
    }
  });

  it("B-157 a client that answers no pings is dropped after two", async () => {
    const c = connect(T["agt-x"] as string, { autoPong: false, hello: { t: "hello", resume: null } });
    await c.frame(isCursor);
    expect((await c.closed).code).toBe(1006);
  });

  it("B-157 a client that answers pings stays", async () => {
    const c = connect(T["agt-x"] as string, { hello: { t: "hello", resume: null } });
    await c.frame(isCursor);
    await new Promise((r) => setTimeout(r, 700));
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    c.ws.close();
  });

  it("B-156 the server going away closes its sockets with 4003", async () => {
    const server = await startApiServer(hub);
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/api/agent-api/ws`, {
      headers: { authorization: `Bearer ${T["agt-x"]}` },
    });
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    await new Promise((r) => ws.on("open", r));
    ws.send(JSON.stringify({ t: "hello", resume: null }));
    await new Promise((r) => ws.once("message", r));
    await server.close();
    expect(await closed).toBe(4003);
  });
});

describe("a real client no one here wrote: Python's websockets", () => {
  const python = "/usr/bin/python3";
  it.skipIf(!existsSync(python))(
    "B-146 B-150 B-152 Debian's python3-websockets opens /ws with the Authorization header, says hello and receives a message a human posts over REST",
    async () => {
      const script = `
import asyncio, json, sys, websockets
async def main(url, token):
    async with websockets.connect(url, extra_headers={"Authorization": "Bearer " + token}) as ws:
        await ws.send(json.dumps({"t": "hello", "resume": None}))
        first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        print(json.dumps(first), flush=True)
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 15))
            if frame.get("t") == "event":
                print(json.dumps(frame), flush=True)
                return
asyncio.run(main(sys.argv[1], sys.argv[2]))
`;
      const child = execFile(python, ["-c", script, wsUrl, T["agt-a"] as string], { timeout: 30_000 });
      let out = "";
      const ready = new Promise<void>((resolve) =>
        child.stdout?.on("data", (chunk) => {
          out += chunk;
          if (out.includes("\n")) resolve();
        }),
      );
      const exited = promisify((cb: (e: Error | null, code?: number) => void) =>
        child.on("exit", (code) => cb(null, code ?? -1)),
      )();
      await ready;
      const posted = await say("hum-maintainer", "agt-a", "hello, Python");
      expect(await exited).toBe(0);
      const [first, event] = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(first).toEqual({ t: "cursor", cursor: expect.stringMatching(/^u/) });
      expect(event).toMatchObject({
        t: "event",
        type: "message",
        message: { id: `evt-${posted.seq}`, content: "hello, Python", senderId: "hum-maintainer", shouldRespond: true },
      });
    },
  );
});

describe("the brief and the notes on /ws (B-268, B-264, B-249)", () => {
  it('B-268 B-264 B-249 hello features ["brief", "notes"]: the first event carries the brief and the pinned note; a socket without them gets neither', async () => {
    await rest("PUT", `${M}/brief`, { token: T["hum-maintainer"], body: { brief: "Sockets read this." } });
    const note = await rest("POST", `${M}/notes`, {
      token: T["hum-maintainer"],
      body: { title: "Socket rule", body: "One hello.", pinned: true },
    });
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    const asked = connect(T["agt-a"] as string, {
      hello: { t: "hello", resume: null, features: ["brief", "notes", "x"] },
    });
    const plain = connect(T["agt-x"] as string, { hello: { t: "hello", resume: null } });
    await Promise.all([asked.frame(isCursor), plain.frame(isCursor)]);
    const room = await createWithVisitors(rest, `${M}`, (id) => T[id] as string, "hum-maintainer", {
      title: "Socket notes",
      participants: ["agt-a", "agt-x"],
    });
    await say("hum-maintainer", room.body.id, "a message to both sockets");
    const event = await asked.frame(isEvent);
    expect(event.brief).toBe("Sockets read this.");
    expect(event.notes?.pinned).toEqual([
      expect.objectContaining({ id: note.body.id, title: "Socket rule", body: "One hello.", scope: "project" }),
    ]);
    const other = await plain.frame(isEvent);
    expect(other).not.toHaveProperty("brief");
    expect(other).not.toHaveProperty("notes");
    expect(other.project?.version).toBe(event.project?.version);
    asked.ws.close();
    plain.ws.close();
  });
});

describe("hand-outs on a socket stay pending until a resume confirms them (B-265, B-253)", () => {
  it("B-265 B-253 two batches handed on a socket the client never read: a resume from before them hands both again, merged", async () => {
    const room = await createWithVisitors(rest, `${M}`, (id) => T[id] as string, "hum-maintainer", {
      title: "Socket resume",
      participants: ["agt-a", "agt-x"],
    });
    const first = connect(T["agt-a"] as string, { hello: { t: "hello", resume: null, features: ["brief", "notes"] } });
    const start = (await first.frame(isCursor)).cursor as string;
    const brief = `Resume me (${Date.now()}).`;
    await rest("PUT", `${M}/brief`, { token: T["hum-maintainer"], body: { brief } });
    await say("hum-maintainer", room.body.id, "one");
    expect((await first.frame((f) => isEvent(f) && f.message?.content === "one")).brief).toBe(brief);
    const pinned = await rest("POST", `${M}/conversations/${room.body.id}/notes`, {
      token: T["hum-maintainer"],
      body: { title: "Resume rule", body: "Hand it again.", pinned: true },
    });
    await say("hum-maintainer", room.body.id, "two");
    const two = await first.frame((f) => isEvent(f) && f.message?.content === "two");
    expect(two.notes?.pinned.map((n) => n.id)).toContain(pinned.body.id);
    first.ws.close();
    await first.closed;
    // The client lost both frames: it resumes from the cursor it had before them.
    const again = connect(T["agt-a"] as string, { hello: { t: "hello", resume: start, features: ["brief", "notes"] } });
    const one = await again.frame((f) => isEvent(f) && f.message?.content === "one");
    expect(one.brief).toBe(brief);
    expect(one.notes?.pinned.map((n) => n.id)).toContain(pinned.body.id);
    again.ws.close();
  });
});
