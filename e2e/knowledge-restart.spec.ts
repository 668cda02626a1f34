import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import type pgTypes from "pg";
import { type App, startApp } from "./clients";
import { freePort } from "./helpers";

// What an agent was handed of the brief and the notes survives kill -9 (004 v1.16/v1.17 B-253,
// B-265; issue 27): the built app started as `pnpm start` starts it, agents long-polling
// /updates?features=brief,notes while a person rewrites the brief and edits, pins, unpins and
// deletes notes; the server is killed with SIGKILL mid-way and started again on the same data. Every
// agent then re-polls from the last cursor it received and folds the deltas in as the spec says
// (keyed by id, the higher version wins, removed dropped, the shelf replaced, the brief keyed by
// project.version): at the end each holds exactly the current brief and pinned notes — 0 missing.
// On PGlite (a data folder, README's default) and, with TEST_DATABASE_URL, on PostgreSQL.

const root = path.resolve(import.meta.dirname, "..");
const pg = createRequire(path.join(root, "packages/db/package.json"))("pg") as typeof pgTypes;
const ADMIN = "knowledge-restart-admin";
const AGENTS = 4;
const ROUNDS = 16;
const P = "/api/projects/maintainer/maity";

type Server = App;
const start = (env: Record<string, string>, port: number) => startApp({ MAITY_ADMIN_TOKEN: ADMIN, ...env }, port);

async function kill9(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGKILL");
  await exited;
}

// The wire as JSON, what a client reads.
type Answer = { status: number; json: ReturnType<typeof JSON.parse> };
async function call(url: string, method: string, route: string, token: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, origin: url },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

type Delta = {
  pinned: { id: string; version: number; body: string; title: string }[];
  removed: { id: string }[];
  shelf?: { titles: { id: string }[]; more: number };
};
type Event = {
  conversationId: string;
  message: { content: string };
  project: { version: number };
  brief?: string | null;
  notes?: Delta;
};

/** An agent as the spec asks it to keep what it is handed: its own memory, folded event by event. */
class Agent {
  cursor: string | null = null;
  brief: { version: number; text: string | null } = { version: -1, text: null };
  pinned = new Map<string, { version: number; body: string }>();
  seen = new Set<string>();
  constructor(
    readonly token: string,
    readonly room: string,
  ) {}

  fold(e: Event): void {
    if (e.conversationId !== this.room) return;
    this.seen.add(e.message.content);
    if (e.brief !== undefined && e.project.version >= this.brief.version)
      this.brief = { version: e.project.version, text: e.brief };
    for (const n of e.notes?.pinned ?? [])
      if ((this.pinned.get(n.id)?.version ?? 0) <= n.version)
        this.pinned.set(n.id, { version: n.version, body: n.body });
    for (const r of e.notes?.removed ?? []) this.pinned.delete(r.id);
  }

  /** A poll whose answer never arrives (a dropped connection, a crashed client): its cursor stays. */
  async lose(url: string): Promise<number> {
    const q = `wait=5&features=brief,notes${this.cursor ? `&cursor=${this.cursor}` : ""}`;
    const answer = await call(url, "GET", `/api/agent-api/updates?${q}`, this.token);
    return (answer.json.events as Event[]).filter((e) => e.brief !== undefined || e.notes).length;
  }

  /** One poll; a refused or dropped call (the server killed) changes nothing: the cursor stays. */
  async poll(url: string): Promise<void> {
    const q = `wait=1&features=brief,notes${this.cursor ? `&cursor=${this.cursor}` : ""}`;
    const answer = await call(url, "GET", `/api/agent-api/updates?${q}`, this.token).catch(() => null);
    if (answer?.status !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return;
    }
    for (const e of answer.json.events as Event[]) this.fold(e);
    this.cursor = answer.json.cursor;
  }
}

const engines = [
  {
    name: "PGlite",
    env: () => ({ MAITY_DATA_DIR: mkdtempSync(path.join(tmpdir(), "maity-restart-")), DATABASE_URL: "" }),
  },
  ...(process.env.TEST_DATABASE_URL ? [{ name: "PostgreSQL", env: () => ({ DATABASE_URL: "" }) }] : []),
];

for (const engine of engines)
  test(`kill -9 while ${AGENTS} agents poll with features=brief,notes: after a restart each holds every current version (${engine.name})`, async () => {
    test.setTimeout(300_000);
    let env = engine.env();
    let dbName = "";
    const pgAdmin = async (sql: string) => {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };
    if (engine.name === "PostgreSQL") {
      dbName = `maity_e2e_restart_${process.pid}`;
      await pgAdmin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await pgAdmin(`CREATE DATABASE "${dbName}"`);
      const url = new URL(process.env.TEST_DATABASE_URL as string);
      url.pathname = `/${dbName}`;
      env = { DATABASE_URL: url.toString() };
    }
    const port = await freePort();
    let server = await start({ ...env, MAITY_SEED: "1" }, port);
    try {
      const admin = (method: string, route: string, body?: unknown) =>
        call(server.url, method, `/api/admin${route}`, ADMIN, body);
      const person = (await admin("POST", "/tokens", { member_id: "hum-maintainer" })).json.token;
      const ids: string[] = [];
      for (let i = 0; i < AGENTS; i++) {
        const made = await admin("POST", "/agents", { owner: "maintainer", handle: `keeper-${i}` });
        expect(made.status).toBe(201);
        ids.push(made.json.id);
        await admin("POST", "/projects/maintainer/maity/members", { member_id: made.json.id });
      }
      const group = await call(server.url, "POST", `${P}/conversations`, person, {
        title: "Keepers",
        participants: ids,
      });
      expect(group.status).toBe(201);
      const roomId = group.json.id;
      const rooms = await Promise.all(
        ids.map(async (id) => (await admin("POST", "/tokens", { member_id: id })).json.token),
      );
      const first = (await call(server.url, "GET", "/api/agent-api/conversations", rooms[0] as string)).json
        .conversations as { id: string; title: string }[];
      const key = first.find((r) => r.title === "Keepers")?.id as string;
      const agents = rooms.map((token) => new Agent(token, key));
      for (const a of agents) await a.poll(server.url);

      // The person's changes, one round after another, each followed by a message the agents receive.
      const notes: { id: string; version: number; pinned: boolean }[] = [];
      let polling = true;
      const poll = () =>
        agents.map(async (a) => {
          while (polling) await a.poll(server.url);
        });
      let loops = poll();
      for (let round = 0; round < ROUNDS; round++) {
        if (round === ROUNDS - 1) {
          // The last change's answers will be lost: the agents stop reading first.
          polling = false;
          await Promise.all(loops);
        }
        const url = server.url;
        await call(url, "PUT", `${P}/brief`, person, { brief: `Brief of round ${round}.` });
        if (round % 3 === 0) {
          const made = await call(url, "POST", `${P}/notes`, person, {
            title: `Note ${round}`,
            body: `body ${round}`,
            pinned: true,
          });
          notes.push({ id: made.json.id, version: 1, pinned: true });
        } else {
          const n = notes[round % notes.length] as (typeof notes)[number];
          const pinned = round % 4 === 0 ? !n.pinned : n.pinned;
          const edited = await call(url, "PATCH", `${P}/notes/${n.id}`, person, {
            base_version: n.version,
            body: `edited in round ${round}`,
            pinned,
          });
          expect(edited.status).toBe(200);
          n.version = edited.json.version;
          n.pinned = pinned;
        }
        if (round === ROUNDS - 4) {
          const gone = notes.shift() as (typeof notes)[number];
          expect((await call(url, "DELETE", `${P}/notes/${gone.id}`, person)).status).toBe(204);
        }
        await call(url, "POST", `${P}/conversations/${roomId}/messages`, person, { body: `round ${round}` });
      }
      // The last change is handed to every agent in an answer it never receives; then kill -9. Nothing
      // changes after the restart, so only the record of what was handed can bring it back.
      const lost = await Promise.all(agents.map((a) => a.lose(server.url)));
      expect(
        lost.every((n) => n > 0),
        "every lost answer carried a hand-out",
      ).toBe(true);
      await kill9(server);
      server = await start(env, port);
      polling = true;
      loops = poll();
      for (let i = 0; i < 3; i++)
        await call(server.url, "POST", `${P}/conversations/${roomId}/messages`, person, { body: `after ${i}` });
      await call(server.url, "POST", `${P}/conversations/${roomId}/messages`, person, { body: "the end" });
      for (const deadline = Date.now() + 60_000; agents.some((a) => !a.seen.has("the end")) && Date.now() < deadline; )
        await new Promise((resolve) => setTimeout(resolve, 100));
      polling = false;
      await Promise.all(loops);

      const now = (await call(server.url, "GET", `${P}/brief`, person)).json;
      const pinnedNow = (
        (await call(server.url, "GET", `${P}/notes`, person)).json.items as {
          id: string;
          version: number;
          body: string;
          pinned: boolean;
        }[]
      ).filter((n) => n.pinned);
      let missing = 0;
      for (const a of agents) {
        if (a.brief.version !== now.version || a.brief.text !== now.brief) missing += 1;
        for (const n of pinnedNow)
          if (a.pinned.get(n.id)?.version !== n.version || a.pinned.get(n.id)?.body !== n.body) missing += 1;
        if (a.pinned.size !== pinnedNow.length) missing += Math.abs(a.pinned.size - pinnedNow.length);
        expect(a.seen.size, "every message reached every agent").toBe(ROUNDS + 4);
      }
      test.info().annotations.push({
        type: "kill -9",
        description: `${engine.name}: ${AGENTS} agents, ${ROUNDS} rounds of changes, then killed; brief version ${now.version}, ${pinnedNow.length} pinned notes; ${missing} missing`,
      });
      console.log(test.info().annotations.at(-1)?.description);
      expect(missing).toBe(0);
    } finally {
      await kill9(server).catch(() => {});
      if ("MAITY_DATA_DIR" in env) rmSync(env.MAITY_DATA_DIR as string, { recursive: true, force: true });
      if (dbName) await pgAdmin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    }
  });
