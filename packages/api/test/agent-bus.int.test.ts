import { openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { createHub, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ApiServer, startApiServer } from "../src/node.ts";
import { appRouter } from "../src/routers/index.ts";
import { ADMIN, restClient } from "./helpers.ts";

// DESIGN §3/§5: two app instances on one PostgreSQL database share the live bus through
// LISTEN/NOTIFY, so an agent connected to one hears a message written through the other.
// PGlite belongs to one process: this file runs on PostgreSQL only (CI's second pass).

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)("two app instances on one PostgreSQL (the live bus)", () => {
  let a: ReturnType<typeof createHub>;
  let b: ReturnType<typeof createHub>;
  let apiA: ApiServer;
  let apiB: ApiServer;
  const T: Record<string, string> = {};

  beforeAll(async () => {
    const database = await freshDatabase();
    a = createHub(database);
    b = createHub(await openDatabase({ databaseUrl: database.url as string, migrate: false }));
    await a.start();
    await b.start();
    await seedDemo(a);
    const rest = restClient(a);
    for (const id of ["agt-a", "hum-maintainer"])
      T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
    apiA = await startApiServer(a);
    apiB = await startApiServer(b);
  });
  afterAll(async () => {
    await apiB?.close();
    await apiA?.close();
    await b?.close();
    await a?.close();
  });

  const post = (api: ApiServer, body: string) =>
    fetch(`${api.url}/api/projects/maintainer/maity/conversations/agt-a/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${T["hum-maintainer"]}`, "content-type": "application/json" },
      body: JSON.stringify({ body }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { seq: number } }));

  it("a /updates call held on instance B returns a message posted through instance A", async () => {
    const updates = (cursor?: string, wait = 0) =>
      fetch(`${apiB.url}/api/agent-api/updates?wait=${wait}${cursor ? `&cursor=${cursor}` : ""}`, {
        headers: { authorization: `Bearer ${T["agt-a"]}` },
      }).then((r) => r.json() as Promise<{ cursor: string; events: { message: { id: string } }[] }>);
    const { cursor } = await updates();
    const held = updates(cursor, 15);
    await new Promise((r) => setTimeout(r, 300));
    const posted = await post(apiA, "written on A");
    expect(posted.status).toBe(201);
    // B's feed reads the log only when its bus wakes it: without A's NOTIFY the call would time
    // out with no events.
    const answer = await held;
    expect(answer.events.map((e) => e.message.id)).toEqual([`evt-${posted.body.seq}`]);
  });

  it("a socket on instance B receives a message posted through instance A", async () => {
    const ws = new WebSocket(`${apiB.url.replace("http", "ws")}/api/agent-api/ws`, {
      headers: { authorization: `Bearer ${T["agt-a"]}` },
    });
    const frames: { t: string; message?: { id: string } }[] = [];
    const got = new Promise<void>((resolve) =>
      ws.on("message", (data) => {
        frames.push(JSON.parse(String(data)));
        if (frames.some((f) => f.t === "event")) resolve();
      }),
    );
    await new Promise((r) => ws.on("open", r));
    ws.send(JSON.stringify({ t: "hello", resume: null }));
    for (let i = 0; i < 100 && frames.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const posted = await post(apiA, "written on A, heard on B");
    await got;
    expect(frames.filter((f) => f.t === "event").map((f) => f.message?.id)).toEqual([`evt-${posted.body.seq}`]);
    ws.close();
  });

  it("a dropped LISTEN connection: what A wrote meanwhile reaches B when B listens again, and B's live.feed says listening again", async () => {
    const heard: number[] = [];
    const follower = b.bus.follow((event) => heard.push(event.seq));
    let resyncs = 0;
    const stopResync = b.bus.onResync(() => resyncs++);
    // The dashboard's feed on B, as the maintainer: first item `listening`.
    const controller = new AbortController();
    const ctx = {
      hub: b,
      caller: { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" },
      session: null,
      resHeaders: new Headers(),
      secure: false,
      admin: "hidden" as const,
    };
    const feed = (await appRouter.createCaller(ctx, { signal: controller.signal }).live.feed(undefined))[
      Symbol.asyncIterator
    ]();
    const item = async () => ((await feed.next()).value as unknown as [string, { kind: string; seq: number }])[1];
    expect((await item()).kind).toBe("listening");
    // Cut every LISTEN connection (both instances'); A writes before B's retry (a second) listens again,
    // so B never hears its NOTIFY — and nothing written afterwards shows B the gap.
    await a.db.$queryRawUnsafe(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN maity_bus' AND pid <> pg_backend_pid()",
    );
    const posted = await post(apiA, "written while B was not listening");
    expect(posted.status).toBe(201);
    for (let i = 0; i < 200 && !(heard.includes(posted.body.seq) && resyncs > 0); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(heard).toContain(posted.body.seq);
    expect(resyncs).toBeGreaterThan(0);
    // The feed brings the message (read from the log) and says `listening` again, whichever first.
    const next = [await item(), await item()];
    expect(next.map((x) => x.kind).sort()).toEqual(["listening", "message"]);
    expect(next.find((x) => x.kind === "message")?.seq).toBe(posted.body.seq);
    controller.abort();
    follower.stop();
    stopResync();
  });
});
