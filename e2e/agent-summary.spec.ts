import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { summaryStub } from "../packages/api/test/summaryStub";
import { type App, maity, startApp } from "./clients";
import { ENGINES, engineEnv } from "./engines";
import { freePort } from "./helpers";

// The rolling summary on the server started as README starts it (004 §6, B-105…B-111; DESIGN §4b),
// in the three setups an operator runs: the built-in generator (no setting), an OpenAI-compatible
// provider (MAITY_SUMMARY_URL at a local stub server), and a provider that is down (a closed port).
// An agent reads it with curl's HTTP and the maity binary; a read is never an error.

const ADMIN = "summary-e2e-admin";
const P = "/api/projects/maintainer/maity";

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

const LINES = [
  "We decided to ship 2.4 on Friday.",
  "@Guest will write the release notes.",
  "Who reviews the migration guide?",
  "The build takes 12 minutes on CI.",
];

/** The app with the demo, an agent's and a person's tokens, and a chat of 24 messages. */
async function chatOn(server: App) {
  const token = async (member: string) =>
    (await call(server.url, "POST", "/api/admin/tokens", ADMIN, { member_id: member })).json.token as string;
  const person = await token("hum-maintainer");
  const agent = await token("agt-a");
  const made = await call(server.url, "POST", `${P}/conversations`, person, {
    title: `Summary ${Date.now()}`,
    participants: ["agt-a", "hum-guest"],
  });
  expect(made.status).toBe(201);
  const ids: string[] = [];
  for (let i = 0; i < 24; i++) {
    const sent = await call(server.url, "POST", `${P}/conversations/${made.json.id}/messages`, person, {
      body: LINES[i % LINES.length]?.replace("2.4", `2.${i}`),
    });
    expect(sent.status).toBe(201);
    ids.push(sent.json.id);
  }
  const rooms = await call(server.url, "GET", "/api/agent-api/conversations", agent);
  const key = (rooms.json.conversations as { id: string; maity: { id: string } }[]).find(
    (r) => r.maity.id === made.json.id,
  )?.id as string;
  const read = () => call(server.url, "GET", `/api/agent-api/conversations/${key}/summary`, agent);
  return { person, agent, key, ids, read, chat: made.json.id as string };
}

/** Reads until the status is `status` (each read may start the background job), at most ~10 s. */
async function readUntil(read: () => Promise<Answer>, status: string): Promise<Answer> {
  let answer = await read();
  for (let i = 0; i < 100 && answer.json.status !== status; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await read();
  }
  return answer;
}

const engines = ENGINES;

for (const engine of engines) {
  test(`B-105…B-109 the built-in generator on the shipped server, read over HTTP and by maity summary (${engine})`, async () => {
    test.setTimeout(180_000);
    const server = await startApp(
      { MAITY_ADMIN_TOKEN: ADMIN, MAITY_SEED: "1", ...(await engineEnv(engine, "summary")) },
      await freePort(),
    );
    try {
      const t = await chatOn(server);
      // The server made it in the background as the messages were written (the bus watch), unread.
      const fresh = await readUntil(t.read, "fresh");
      expect(fresh.status).toBe(200);
      expect(fresh.json.summary).toMatchObject({ label: "DERIVED_UNTRUSTED_CONTEXT", generator: "extractive" });
      // B-108: the record's boundary and the raw messages after it cover the chat, none twice.
      const through = t.ids.indexOf(fresh.json.summary.throughMessageId);
      expect(through).toBeGreaterThanOrEqual(19);
      expect(fresh.json.messages.map((m: { id: string }) => m.id)).toEqual(t.ids.slice(through + 1));
      expect(fresh.json.summary.decisions[0].text).toContain("We decided to ship 2.");
      expect(t.ids).toContain(fresh.json.summary.decisions[0].sourceMessageIds[0]);
      expect(fresh.json.summary.openTasks[0]).toMatchObject({ owner: "Guest", status: "open" });
      // B-108: what follows the boundary, raw; the people's route answers the same record.
      await call(server.url, "POST", `${P}/conversations/${t.chat}/messages`, t.person, { body: "@agent-a ready?" });
      const after = await t.read();
      expect(after.json.messages.map((m: { content: string }) => m.content).at(-1)).toBe("@agent-a ready?");
      const people = await call(server.url, "GET", `${P}/conversations/${t.chat}/summary`, t.person);
      expect(people.json.summary.through_message_id).toBe(after.json.summary.throughMessageId);
      const cli = await maity(["summary", t.key], {
        HOME: mkdtempSync(path.join(tmpdir(), "maity-summary-cli-")),
        MAITY_TOKEN: t.agent,
        MAITY_API_URL: server.url,
        TZ: "UTC",
      });
      expect(cli.code, cli.stderr).toBe(0);
      expect(cli.stdout.split("\n")[0]).toContain("DERIVED_UNTRUSTED_CONTEXT");
      expect(cli.stdout).toContain("@agent-a ready? → you should respond");
    } finally {
      server.child.kill("SIGTERM");
    }
  });
}

test("DESIGN §4b MAITY_SUMMARY_URL: an OpenAI-compatible provider (a local stub) writes the record; ids it invents are dropped", async () => {
  test.setTimeout(180_000);
  const stub = await summaryStub("ok");
  const server = await startApp(
    {
      MAITY_ADMIN_TOKEN: ADMIN,
      MAITY_SEED: "1",
      ...(await engineEnv("PGlite", "summary")),
      MAITY_SUMMARY_URL: stub.url,
      MAITY_SUMMARY_MODEL: "stub-model",
      MAITY_SUMMARY_KEY: "sk-e2e",
    },
    await freePort(),
  );
  try {
    const t = await chatOn(server);
    const fresh = await readUntil(t.read, "fresh");
    expect(fresh.json.summary).toMatchObject({
      generator: "model:stub-model",
      decisions: [{ text: "Ship on Friday", sourceMessageIds: [t.ids[0]] }],
      openQuestions: [],
    });
    expect(fresh.json.summary.narrative).toMatch(/^Stub summary of \d+ messages\.$/);
    expect(stub.requests[0]).toMatchObject({ model: "stub-model", authorization: "Bearer sk-e2e" });
  } finally {
    server.child.kill("SIGTERM");
    await stub.close();
  }
});

test("B-111 a provider that is down: every read answers 200 with the raw messages, status unavailable; the log says why", async () => {
  test.setTimeout(180_000);
  const closed = await freePort();
  const server = await startApp(
    {
      MAITY_ADMIN_TOKEN: ADMIN,
      MAITY_SEED: "1",
      ...(await engineEnv("PGlite", "summary")),
      MAITY_SUMMARY_URL: `http://127.0.0.1:${closed}/v1`,
      MAITY_SUMMARY_MODEL: "nowhere",
      MAITY_SUMMARY_TIMEOUT_MS: "1000",
    },
    await freePort(),
  );
  try {
    const t = await chatOn(server);
    for (let i = 0; i < 20; i++) {
      const read = await t.read();
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({ summary: null, status: "unavailable" });
      expect(read.json.messages).toHaveLength(24);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await expect.poll(() => server.log(), { timeout: 15_000 }).toContain("was not made");
  } finally {
    server.child.kill("SIGTERM");
  }
});
