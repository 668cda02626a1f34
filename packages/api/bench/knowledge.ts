// pnpm bench:knowledge — what the brief and the notes cost a delivery (004 v1.15–v1.17): GET /updates
// answering one message, for an agent instance without the opt-in, one with features=brief,notes
// when nothing changed (the steady state: the record and the room's knowledge are read, nothing is
// attached or written), and one with the opt-in right after a pinned note changed (a delta attached
// and recorded). The three polls are taken one after the other on each message, so the ratios
// compare the same seconds of a noisy machine. Prints median and p90 ms and the SQL statements each
// poll issues (authentication included). PGlite (a throwaway data folder, as `pnpm start` runs it),
// then PostgreSQL when DATABASE_URL names one (`--only=pglite|postgresql`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "@maity/db";
import { createHub, type HumanCaller } from "@maity/hub";
import { handleRest } from "../src/rest/index.ts";
import { benchEngines } from "./engines.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const ADMIN = "bench-admin-token";
const PINNED = 5;
const SHELF = 30;
const paragraph = (n: number) =>
  Array.from({ length: n }, (_, i) => `- Step ${i + 1}: check the release notes, the tags and the changelog.`).join(
    "\n",
  );

async function run(engine: "pglite" | "postgresql", pgUrl: string | undefined) {
  const dir = engine === "pglite" ? mkdtempSync(path.join(tmpdir(), "maity-bench-knowledge-")) : null;
  const database = await openDatabase(dir ? { dataDir: dir } : { databaseUrl: pgUrl as string });
  const hub = createHub(database, { limits: { agent: 1_000_000, updates: 1_000_000 } });
  const call = async (method: string, route: string, token: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const res = await handleRest(
      hub,
      new Request(`http://127.0.0.1${route}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { adminToken: ADMIN },
    );
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  try {
    const suffix = `${Date.now().toString(36)}`;
    const owner = `bench${suffix}`;
    await hub.admin.createHuman({ handle: owner, name: "Bench", password: "bench-password" });
    const me: HumanCaller = { kind: "human", id: `hum-${owner}`, handle: owner, name: "Bench" };
    const ref = { owner, slug: "knowledge" };
    await hub.admin.createProject({ ...ref, name: "Knowledge" });
    // Three agents in one room, alike but for what they ask and when they read.
    const tokens: Record<string, string> = {};
    const ids: string[] = [];
    for (const name of ["plain", "opted", "changed"]) {
      const agent = await hub.admin.createAgent({ owner, handle: `${name}-${suffix}`, description: "Reads." });
      await hub.admin.addMember(ref, { member_id: agent.id });
      tokens[name] = (await hub.admin.mintToken({ member_id: agent.id })).token;
      ids.push(agent.id);
    }
    const person = (await hub.admin.mintToken({ member_id: me.id })).token;
    const chat = (await hub.groups.create(me, ref, { title: "Bench room", participants: ids })).view.id;
    const P = `/api/projects/${owner}/knowledge`;
    await call("PUT", `${P}/brief`, person, { brief: `# Release brief\n${paragraph(20)}` });
    const pinned: { id: string; version: number }[] = [];
    for (let i = 0; i < PINNED; i++)
      pinned.push(
        await call("POST", `${P}/notes`, person, { title: `Pinned ${i}`, body: paragraph(15), pinned: true }),
      );
    for (let i = 0; i < SHELF; i++)
      await call("POST", `${P}/notes`, person, { title: `Shelf ${i}`, body: paragraph(5) });

    const cursors: Record<string, string | null> = { plain: null, opted: null, changed: null };
    const poll = async (instance: string, features: string) => {
      let statements = 0;
      const stop = database.observeQueries(() => statements++);
      const t = performance.now();
      const q = `wait=5${features ? `&features=${features}` : ""}${cursors[instance] ? `&cursor=${cursors[instance]}` : ""}`;
      const answer = await call("GET", `/api/agent-api/updates?${q}`, tokens[instance] as string);
      const ms = performance.now() - t;
      stop();
      cursors[instance] = answer.cursor;
      return { ms, statements, events: answer.events as { brief?: unknown; notes?: unknown }[] };
    };
    for (const [instance, features] of [
      ["plain", ""],
      ["opted", "brief,notes"],
      ["changed", "brief,notes"],
    ] as const)
      await poll(instance, features);
    const rows = { plain: [] as number[], opted: [] as number[], changed: [] as number[] };
    const statements = { plain: 0, opted: 0, changed: 0 };
    let attached = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // "changed" is measured right after an edit; "plain" and "opted" on a message with nothing changed.
      const target = pinned[round % PINNED] as { id: string; version: number };
      await call("POST", `${P}/conversations/${chat}/messages`, person, { body: `round ${round}` });
      const plain = await poll("plain", "");
      const opted = await poll("opted", "brief,notes");
      const edited = await call("PATCH", `${P}/notes/${target.id}`, person, {
        base_version: target.version,
        body: `${paragraph(15)}\nround ${round}`,
      });
      target.version = edited.version;
      // The other two read past the edit before the next round (opted is handed it here, unmeasured).
      await call("POST", `${P}/conversations/${chat}/messages`, person, { body: `after ${round}` });
      await poll("plain", "");
      await poll("opted", "brief,notes");
      const changed = await poll("changed", "brief,notes");
      if (changed.events.some((e) => e.notes)) attached += 1;
      if (round === 0) continue;
      rows.plain.push(plain.ms);
      rows.opted.push(opted.ms);
      rows.changed.push(changed.ms);
      statements.plain = plain.statements;
      statements.opted = opted.statements;
      statements.changed = changed.statements;
    }
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;
    const base = pct(rows.plain, 0.5);
    console.log(
      `${engine}: ${ROUNDS} rounds, a brief of ~1.5 kB, ${PINNED} pinned notes of ~1 kB, ${SHELF} on the shelf; ` +
        `GET /updates answering one message (statements include the token's check)`,
    );
    console.log("  delivery                                  median ms   p90 ms   × plain   statements");
    for (const [name, label] of [
      ["plain", "without the opt-in"],
      ["opted", "features=brief,notes, nothing changed"],
      ["changed", "features=brief,notes, a pinned note changed"],
    ] as const) {
      const median = pct(rows[name], 0.5);
      console.log(
        `  ${label.padEnd(42)}${median.toFixed(2).padStart(9)}${pct(rows[name], 0.9).toFixed(2).padStart(9)}` +
          `${`×${(median / base).toFixed(2)}`.padStart(10)}${String(statements[name]).padStart(13)}`,
      );
    }
    console.log(`  (the changed delivery carried a notes delta ${attached} times of ${ROUNDS})`);
  } finally {
    await hub.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

const { engines, pgUrl } = benchEngines();
for (const engine of engines) await run(engine, pgUrl);
