import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { WebSocket } from "ws";
import { type App, startApp } from "./clients";
import { ENGINES, engineEnv } from "./engines";
import { freePort } from "./helpers";

// Terminal sessions on the server as README starts it (issue 30, DESIGN §4e): a computer signed in
// with a device login, a terminal driven with the official MCP SDK client over POST /api/mcp, its
// monitor a real WebSocket. Faults: a listener replaced while messages stream in, and the server
// killed with -9 during a fresh start and while a listener is open — 0 messages lost on the monitor
// after a reconnect with the last cursor, 0 sessions cleared without a saved note.
// On PGlite (a data folder, README's default) and, with TEST_DATABASE_URL, on PostgreSQL.

const ADMIN = "sessions-e2e-admin";
const P = "/api/projects/maintainer/maity";

type Answer = { status: number; json: ReturnType<typeof JSON.parse> };
async function call(url: string, method: string, route: string, auth: string | null, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json", origin: url };
  if (auth) headers.authorization = `Bearer ${auth}`;
  const res = await fetch(`${url}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function kill9(server: App): Promise<void> {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGKILL");
  await exited;
}

async function mcpOf(url: string, token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "e2e-terminal", version: "0" });
  await client.connect(transport);
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
    if (result.isError) throw new Error(`${name}: ${text}`);
    return { text, json: result.structuredContent as Record<string, never> };
  };
  return { client, tool };
}

type Frame = { type: string; items?: { conversationId: string; messageId: string }[]; cursor?: string };
/** A monitor socket: its frames, its close code, and a bounded wait for a condition on the frames. */
function monitor(m: { url: string; protocol: string }) {
  const frames: Frame[] = [];
  const ws = new WebSocket(m.url, m.protocol);
  ws.on("message", (data) => frames.push(JSON.parse(String(data)) as Frame));
  ws.on("error", () => undefined);
  const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
  const until = async (done: () => boolean, ms = 15_000) => {
    for (const end = Date.now() + ms; Date.now() < end && !done(); ) await new Promise((r) => setTimeout(r, 25));
    return done();
  };
  const ids = () => frames.flatMap((f) => f.items?.map((i) => i.messageId) ?? []);
  const cursor = () => frames.filter((f) => f.cursor).at(-1)?.cursor;
  return { ws, frames, closed, until, ids, cursor };
}

const engines = ENGINES;

for (const engine of engines) {
  test(`B-310 B-332…B-337 B-289…B-293 a terminal session, its monitor and a fresh start survive a replaced listener and kill -9 (${engine})`, async () => {
    test.setTimeout(300_000);
    const env = { MAITY_ADMIN_TOKEN: ADMIN, MAITY_SEED: "1", ...(await engineEnv(engine, "sessions")) };
    const port = await freePort();
    let server = await startApp(env, port);
    const at = (method: string, route: string, auth: string | null, body?: unknown) =>
      call(server.url, method, route, auth, body);
    try {
      const person = (await at("POST", "/api/admin/tokens", ADMIN, { member_id: "hum-maintainer" })).json.token;
      // `maity login`, approved by the person for their Bay.
      const opened = (await at("POST", "/api/device-api/login", null, { label: "e2e laptop" })).json;
      const bays = (await at("GET", `/api/device/${opened.code}`, person)).json.bays.map((b: { id: string }) => b.id);
      expect((await at("POST", `/api/device/${opened.code}/approve`, person, { bays })).status).toBe(200);
      const polled = (await at("POST", `/api/device-api/login/${opened.id}/poll`, null, { secret: opened.secret }))
        .json;
      const device = polled.credentials[0].token as string;

      // The terminal joins the Release group over MCP and opens its monitor.
      let terminal = await mcpOf(server.url, device);
      const joined = await terminal.tool("join_session", { session: "e2e", group: "Release 0.2 go/no-go" });
      expect(joined.text.split("\n")[0]).toBe('Joined as "e2e" in Bay "maintainer" — group "Release 0.2 go/no-go"');
      const room = joined.json.conversation as unknown as { id: string; maityId: string };
      const say = async (body: string) =>
        (await at("POST", `${P}/conversations/${room.maityId}/messages`, person, { body })).json.id as string;
      const listen = async (cursor?: string) =>
        (await terminal.tool("listen_messages", { session: "e2e", ...(cursor ? { cursor } : {}) })).json
          .monitor as unknown as { url: string; protocol: string };
      const first = monitor(await listen());
      expect(await first.until(() => first.frames.some((f) => f.type === "ready"))).toBe(true);
      expect((await terminal.tool("get_delivery_status", { session: "e2e" })).json.status).toBe("connected");

      // Fault: 30 messages that wake the session stream in; after the 10th the listener is replaced
      // by one opened with the old one's last cursor. Every message reaches one of the two.
      const sent: string[] = [];
      let second: ReturnType<typeof monitor> | null = null;
      for (let i = 0; i < 30; i++) {
        sent.push(await say(`@e2e task ${i}`));
        if (i === 9) {
          await first.until(() => first.ids().length >= 5, 5_000);
          second = monitor(await listen(first.cursor()));
        }
      }
      expect(await first.closed).toBe(4000);
      const both = () => new Set([...first.ids(), ...(second?.ids() ?? [])]);
      expect(await second?.until(() => sent.every((id) => both().has(id)))).toBe(true);
      expect(sent.filter((id) => !both().has(id))).toEqual([]);

      // A fresh start; the server is killed with -9 while the note is awaited.
      const asked = await at(
        "POST",
        `/api/sessions/${joined.json.session && (joined.json.session as { id: string }).id}/fresh-start`,
        person,
        {
          conversation_id: room.id,
        },
      );
      expect(asked.status).toBe(201);
      const handoffId = asked.json.handoff_id as string;
      const lastCursor = second?.cursor();
      await kill9(server);
      expect(await second?.closed).not.toBe(4000);
      server = await startApp(env, port);

      // After the restart: nothing is cleared without a saved note.
      const early = await at("POST", "/api/device-api/handoff", device, { handoffId, step: "cleared" });
      expect(early.status).toBe(409);
      expect((await at("GET", "/api/device-api/handoff", device)).json.items).toEqual([
        expect.objectContaining({ handoffId, state: "awaiting_note" }),
      ]);
      // Messages while no listener is open, then a new listener with the last cursor: 0 lost.
      terminal = await mcpOf(server.url, device);
      const missed = [await say("@e2e after the restart 1"), await say("@e2e after the restart 2")];
      const third = monitor(await listen(lastCursor));
      expect(await third.until(() => missed.every((id) => third.ids().includes(id)))).toBe(true);

      // The note is saved over MCP; killed again before the relay clears: the saved note holds.
      const body = "Release 0.2: tagged tonight; smoke tests green; next: announce it in the changelog.";
      await terminal.tool("create_note", {
        session: "e2e",
        conversationId: room.id,
        title: "Handoff · today",
        body,
        handoffId,
      });
      await kill9(server);
      server = await startApp(env, port);
      const pending = (await at("GET", "/api/device-api/handoff", device)).json.items;
      expect(pending).toEqual([expect.objectContaining({ handoffId, state: "note_saved" })]);
      expect((await at("POST", "/api/device-api/handoff", device, { handoffId, step: "cleared" })).status).toBe(200);
      expect((await at("POST", "/api/device-api/handoff", device, { handoffId, step: "fresh" })).status).toBe(200);
      const lines = (await at("GET", `${P}/conversations/${room.maityId}/messages`, person)).json.items as {
        body: string;
      }[];
      expect(lines.map((m) => m.body)).toEqual(
        expect.arrayContaining(["e2e saved a handoff note", "e2e started fresh from its handoff note"]),
      );
      third.ws.close();
      await terminal.client.close();
    } finally {
      await kill9(server).catch(() => undefined);
    }
  });
}
