import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ADMIN } from "../../api/test/helpers.ts";
import { PROJECT, startHub, type TestHub } from "./hub.ts";
import { call, REMOTE_TOOLS } from "./tools.ts";

// Terminal sessions over the remote MCP endpoint (issue 30, DESIGN §4e; 004 "If your client
// connects as a person", v1.9, v1.13, v1.19, v1.23): a person's bay_u_ device credential, driven
// with the official MCP SDK client over Streamable HTTP against a real server.

let t: TestHub;
let url: URL;
const tokens: Record<string, string> = {};
const SESSION_TOOLS = [
  "await_approval",
  "create_group",
  "end_session",
  "get_delivery_status",
  "join_session",
  "list_groups",
  "list_sessions",
  "listen_messages",
  "request_approval",
  "stop_listening",
];

/** `maity login` for `person`, approved for `bays` (by name; all of theirs when omitted): the credentials. */
async function login(person: string, bays?: string[]) {
  const opened = await t.rest("POST", "/api/device-api/login", { body: { label: `${person}'s laptop` } });
  const view = await t.rest("GET", `/api/device/${opened.body.code}`, { token: tokens[person] ?? null });
  const chosen = (view.body.bays as { id: string; name: string }[]).filter((b) => !bays || bays.includes(b.name));
  await t.rest("POST", `/api/device/${opened.body.code}/approve`, {
    token: tokens[person] ?? null,
    body: { bays: chosen.map((b) => b.id) },
  });
  const polled = await t.rest("POST", `/api/device-api/login/${opened.body.id}/poll`, {
    body: { secret: opened.body.secret },
  });
  expect(polled.body.status).toBe("approved");
  return Object.fromEntries(
    (polled.body.credentials as { bay: { name: string }; token: string }[]).map((c) => [c.bay.name, c.token]),
  );
}

async function mcpClient(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const mcp = new Client({ name: "maity-session-test", version: "0" });
  await mcp.connect(transport);
  return mcp;
}

let device: string;
let mcp: Client;
beforeAll(async () => {
  t = await startHub();
  url = new URL(`${t.api.url}/api/mcp`);
  tokens["hum-maintainer"] = t.tokens.human;
  tokens["hum-guest"] = await t.mint("hum-guest");
  device = (await login("hum-maintainer")).maintainer as string;
  mcp = await mcpClient(device);
});
afterAll(async () => {
  await mcp?.close();
  await t.close();
});

const groupsOfMaintainer = async () =>
  (await t.rest("GET", `${PROJECT}/conversations`, { token: t.tokens.human })).body.items as {
    id: string;
    title: string | null;
    type: string;
  }[];

describe("the session surface of POST /api/mcp (B-310…B-312)", () => {
  it("B-028 B-311 B-312 B-310 B-349 B-340 a device credential gets the session tools and a required session on every base tool; an agent token gets none", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual([...REMOTE_TOOLS, ...SESSION_TOOLS].sort());
    for (const tool of tools.filter((x) => REMOTE_TOOLS.includes(x.name))) {
      expect(tool.inputSchema.required, tool.name).toContain("session");
      expect(tool.description, tool.name).toMatch(/session \(required\)/);
    }
    expect(mcp.getInstructions()?.length).toBeLessThanOrEqual(2048);
    expect(mcp.getInstructions()).toMatch(/join_session/);

    const agent = await mcpClient(t.tokens.agent);
    const agentTools = (await agent.listTools()).tools.map((x) => x.name);
    for (const name of SESSION_TOOLS) expect(agentTools).not.toContain(name);
    const refused = await call(agent, "join_session", { session: "x" }).catch((e: Error) => e);
    expect(refused instanceof Error ? refused.message : refused.text).toMatch(/not found|join_session/i);
    await agent.close();
  });

  it("B-310 a base tool without session is refused by its schema; one never joined answers 401 like no credential", async () => {
    const missing = await call(mcp, "list_conversations", {});
    expect(missing.result.isError).toBe(true);
    expect(missing.text).toMatch(/session/);
    const unknown = await call(mcp, "list_conversations", { session: "never-joined" });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.json).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
  });
});

describe("join_session and groups (B-314…B-321)", () => {
  it("B-314 B-319 joins a group of the person's by exact title: the first line names the Bay and the group; bay {id, name}", async () => {
    const joined = await call(mcp, "join_session", { session: "frontend", group: "Release 0.2 go/no-go" });
    expect(joined.result.isError).toBeFalsy();
    expect(joined.text.split("\n")[0]).toBe('Joined as "frontend" in Bay "maintainer" — group "Release 0.2 go/no-go"');
    expect(joined.json).toMatchObject({
      bay: { id: expect.any(String), name: "maintainer" },
      session: { name: "frontend", id: expect.stringMatching(/^agt-/) },
      conversation: { type: "GROUP", title: "Release 0.2 go/no-go", project: "maintainer/maity" },
      incomingDelivery: { status: "none" },
    });
    // The person sees the session in the room's people (an agent of theirs, named maintainer/frontend).
    const conversation = joined.json.conversation as { maityId: string };
    const view = await t.rest("GET", `${PROJECT}/conversations/${conversation.maityId}`, { token: t.tokens.human });
    const sessionId = (joined.json.session as { id: string }).id;
    expect(view.body.participants.map((p: { member_id: string }) => p.member_id)).toContain(sessionId);
  });

  it("B-314 an id is matched exactly before any title (also the Maity id people see); a title equal to another group's id loses", async () => {
    const [release] = (await groupsOfMaintainer()).filter((g) => g.title === "Release 0.2 go/no-go");
    const byMaityId = await call(mcp, "join_session", { session: "frontend", group: release?.id ?? "" });
    expect(byMaityId.result.isError).toBeFalsy();
    const key = (byMaityId.json.conversation as { id: string }).id;
    // A group titled exactly like the Release group's key: the id still wins.
    await t.rest("POST", `${PROJECT}/conversations`, {
      token: t.tokens.human,
      body: { title: key, participants: ["agt-a", "hum-guest"] },
    });
    const byKey = await call(mcp, "join_session", { session: "frontend", group: key });
    expect((byKey.json.conversation as { title: string }).title).toBe("Release 0.2 go/no-go");
  });

  it("B-315 B-317 an unknown title, another Bay's group and a group the person is not in all answer GROUP_NOT_FOUND; nothing is created", async () => {
    const before = (await groupsOfMaintainer()).length;
    const unknown = await call(mcp, "join_session", { session: "frontend", group: "No such group" });
    expect(unknown.json).toMatchObject({ code: "GROUP_NOT_FOUND", status: 404 });
    // guest's own Bay: a group there is not among the maintainer's groups.
    const guestGroup = await t.rest("POST", "/api/projects", {
      token: tokens["hum-guest"] ?? null,
      body: { slug: "garden", name: "Garden" },
    });
    expect(guestGroup.status).toBe(201);
    const foreign = await call(mcp, "join_session", { session: "frontend", group: "cnv-0001" });
    const idOfTheirs = foreign.result.isError ? foreign : null;
    expect(idOfTheirs === null || (idOfTheirs.json as { code: string }).code === "GROUP_NOT_FOUND").toBe(true);
    const notIn = await call(mcp, "join_session", { session: "frontend", group: "cnv-9999" });
    expect(notIn.json).toMatchObject({ code: "GROUP_NOT_FOUND", status: 404 });
    expect((await groupsOfMaintainer()).length).toBe(before);
  });

  it("B-316 two groups with one title answer GROUP_AMBIGUOUS, whose message says to pass the id", async () => {
    for (let i = 0; i < 2; i++)
      await t.rest("POST", `${PROJECT}/conversations`, {
        token: t.tokens.human,
        body: { title: "Ops", participants: ["agt-a", "hum-guest"] },
      });
    const twice = await call(mcp, "join_session", { session: "frontend", group: "Ops" });
    expect(twice.json).toMatchObject({ code: "GROUP_AMBIGUOUS", status: 409 });
    expect(twice.text).toMatch(/pass the group's id/);
  });

  it("B-318 create_group refuses a title shaped like a group id; otherwise it opens a group with the session in it", async () => {
    for (const title of ["cnv-0042", "clx0123456789abcdefghijkl"]) {
      const refused = await call(mcp, "create_group", { session: "frontend", title });
      expect(refused.json).toMatchObject({ code: "GROUP_TITLE_IS_ID", status: 400 });
    }
    const created = await call(mcp, "create_group", { session: "frontend", title: "Design review" });
    expect(created.result.isError).toBeFalsy();
    expect(created.text.split("\n")[0]).toBe(
      'Joined as "frontend" in Bay "maintainer" — group "Design review" (created)',
    );
    expect(created.json).toMatchObject({ conversation: { project: "maintainer/sessions", type: "GROUP" } });
    const groups = await call(mcp, "list_groups", {});
    const design = (groups.json.groups as { title: string; members: { kind: string }[] }[]).find(
      (g) => g.title === "Design review",
    );
    expect(design?.members.map((m) => m.kind).sort()).toEqual(["session", "user"]);
  });

  it("B-321 sessions: true joins the Bay's one Sessions group, made on first use", async () => {
    const first = await call(mcp, "join_session", { session: "frontend", sessions: true });
    const second = await call(mcp, "join_session", { session: "backend", sessions: true });
    expect(first.json.conversation).toMatchObject({ title: "Sessions", type: "GROUP" });
    expect((second.json.conversation as { id: string }).id).toBe((first.json.conversation as { id: string }).id);
    const groups = await call(mcp, "list_groups", {});
    const shared = (groups.json.groups as { sessions: boolean; members: { name: string }[] }[]).filter(
      (g) => g.sessions,
    );
    expect(shared).toHaveLength(1);
    expect(shared[0]?.members.map((m) => m.name)).toEqual(
      expect.arrayContaining(["maintainer/frontend", "maintainer/backend"]),
    );
  });

  it("a join with neither group nor sessions opens the session's private chat with its person", async () => {
    const joined = await call(mcp, "join_session", { session: "scratch" });
    expect(joined.text.split("\n")[0]).toBe('Joined as "scratch" in Bay "maintainer" — a private chat with you');
    expect(joined.json.conversation).toMatchObject({ type: "DM", project: "maintainer/sessions" });
  });
});

describe("a session acts, and is woken by its person (DESIGN §4e, §4c wake sponsor)", () => {
  it("B-310 send_message as the session; the person reads it from maintainer/frontend; only the person's mention wakes it", async () => {
    const joined = await call(mcp, "join_session", { session: "frontend", group: "Release 0.2 go/no-go" });
    const room = (joined.json.conversation as { id: string; maityId: string }).id;
    const maityId = (joined.json.conversation as { maityId: string }).maityId;
    const sent = await call(mcp, "send_message", {
      session: "frontend",
      conversationId: room,
      content: "Hello from the terminal",
    });
    expect(sent.result.isError).toBeFalsy();
    const read = await t.rest("GET", `${PROJECT}/conversations/${maityId}/messages`, { token: t.tokens.human });
    const mine = (read.body.items as { body: string; from: string }[]).find(
      (m) => m.body === "Hello from the terminal",
    );
    expect(mine?.from).toBe((joined.json.session as { id: string }).id);

    // agent-a mentions it: not its person — shouldRespond false; the person's mention: true.
    const agent = await mcpClient(t.tokens.agent);
    await call(agent, "send_message", { conversationId: room, content: "@frontend please check" });
    await agent.close();
    await t.rest("POST", `${PROJECT}/conversations/${maityId}/messages`, {
      token: t.tokens.human,
      body: { body: "@frontend run the tests" },
    });
    const page = await call(mcp, "get_messages", { session: "frontend", conversationId: room, limit: 5 });
    const messages = (page.json.messages as { content: string; shouldRespond: boolean }[]).filter((m) =>
      m.content.includes("@frontend"),
    );
    expect(messages.map((m) => [m.content, m.shouldRespond])).toEqual(
      expect.arrayContaining([
        ["@frontend please check", false],
        ["@frontend run the tests", true],
      ]),
    );
  });
});

describe("Codex registration (B-327…B-331)", () => {
  const thread = "0199a7c2-3f4b-7c1d-9e2a-5b6c7d8e9f01";
  it("B-327 B-328 runtime codex with a threadId registers; without one it is unavailable; threadId alone or not a UUID is refused", async () => {
    const registered = await call(mcp, "join_session", { session: "codex-1", runtime: "codex", threadId: thread });
    expect(registered.json).toMatchObject({ incomingDelivery: { status: "registered" } });
    expect(registered.text).toMatch(/registered/);
    const unavailable = await call(mcp, "join_session", { session: "codex-2", runtime: "codex" });
    expect(unavailable.json).toMatchObject({ incomingDelivery: { status: "unavailable" } });
    // The tool's schema refuses it before the hub is called (the device API answers INVALID_REQUEST alike).
    const alone = await call(mcp, "join_session", { session: "codex-3", threadId: thread });
    expect(alone.result.isError).toBe(true);
    expect(alone.text).toMatch(/threadId requires runtime/);
    const rest = await t.rest("POST", "/api/device-api/sessions", {
      token: device,
      body: { session: "codex-3", threadId: thread },
    });
    expect(rest).toMatchObject({
      status: 400,
      body: { code: "INVALID_REQUEST", fields: { threadId: expect.any(String) } },
    });
    const bad = await call(mcp, "join_session", { session: "codex-3", runtime: "codex", threadId: "not-a-uuid" });
    expect(bad.result.isError).toBe(true);
    expect(bad.text).toMatch(/threadId/);
  });

  it("B-331 B-330 the device's sessions list carries its registrations; a join without runtime clears one", async () => {
    const listed = await t.rest("GET", "/api/device-api/sessions", { token: device });
    expect(listed.status).toBe(200);
    expect(listed.body.registrations).toEqual([
      { session: "codex-1", runtime: "codex", threadId: thread, registeredAt: expect.any(String) },
    ]);
    // Another device of the same person sees none of this device's registrations.
    const other = (await login("hum-maintainer")).maintainer as string;
    expect((await t.rest("GET", "/api/device-api/sessions", { token: other })).body.registrations).toEqual([]);
    await call(mcp, "join_session", { session: "codex-1" });
    expect((await t.rest("GET", "/api/device-api/sessions", { token: device })).body.registrations).toEqual([]);
  });
});

describe("ending, revoking, and who may call (B-312, B-324, B-339)", () => {
  it("B-339 end_session: it leaves its groups; its tools answer 401; a later join brings it back", async () => {
    await call(mcp, "join_session", { session: "temp", group: "Release 0.2 go/no-go" });
    const ended = await call(mcp, "end_session", { session: "temp" });
    expect(ended.json).toMatchObject({ ended: true, session: "temp", roomsLeft: 1 });
    expect((await call(mcp, "list_conversations", { session: "temp" })).json).toMatchObject({ status: 401 });
    const again = await call(mcp, "end_session", { session: "temp" });
    expect(again.json).toMatchObject({ code: "SESSION_NOT_FOUND", status: 404 });
    const back = await call(mcp, "join_session", { session: "temp" });
    expect(back.result.isError).toBeFalsy();
    const listed = await call(mcp, "list_sessions", {});
    expect((listed.json.sessions as { name: string }[]).map((s) => s.name)).toContain("temp");
  });

  it("B-312 the device API answers an agent token, a person's token and none alike: 401", async () => {
    for (const token of [t.tokens.agent, t.tokens.human, null]) {
      const res = await t.rest("GET", "/api/device-api/groups", { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "missing or invalid agent token", code: "UNAUTHORIZED" });
    }
  });

  it("B-324 each credential opens one Bay: guest's maintainer-Bay login lists groups of that Bay only", async () => {
    const guest = await login("hum-guest");
    expect(Object.keys(guest).sort()).toEqual(["guest", "maintainer"]);
    const inMaintainer = await t.rest("GET", "/api/device-api/groups", { token: guest.maintainer ?? null });
    expect(inMaintainer.body.bay.name).toBe("maintainer");
    const inOwn = await t.rest("GET", "/api/device-api/groups", { token: guest.guest ?? null });
    expect(inOwn.body.bay.name).toBe("guest");
  });

  it("a revoked device answers 401 on MCP at once", async () => {
    const spare = (await login("hum-maintainer")).maintainer as string;
    const client = await mcpClient(spare);
    expect((await call(client, "list_groups", {})).result.isError).toBeFalsy();
    const devices = await t.rest("GET", "/api/me/devices", { token: t.tokens.human });
    const newest = (devices.body.items as { id: string }[])[0];
    await t.rest("DELETE", `/api/me/devices/${newest?.id}`, { token: t.tokens.human });
    const after = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${spare}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(after.status).toBe(401);
    await client.close().catch(() => undefined);
  });
});

describe("approvals (B-313, DESIGN §4e)", () => {
  let room: string;
  let maityId: string;
  beforeAll(async () => {
    const joined = await call(mcp, "join_session", { session: "deployer", group: "Release 0.2 go/no-go" });
    room = (joined.json.conversation as { id: string }).id;
    maityId = (joined.json.conversation as { maityId: string }).maityId;
  });

  it("B-313 request_approval posts a decision card to the session's person; await_approval holds until that person decides", async () => {
    const asked = await call(mcp, "request_approval", {
      session: "deployer",
      conversationId: room,
      question: "Deploy 0.2 to production?",
      options: ["Deploy now", "Deploy tonight"],
    });
    expect(asked.result.isError).toBeFalsy();
    expect(asked.json).toMatchObject({
      status: "pending",
      approver: { id: "hum-maintainer", name: "Maintainer" },
      options: ["Deploy now", "Deploy tonight"],
    });
    const approvalId = asked.json.approvalId as string;
    // The card in the room, with its plain-text fallback naming the approver.
    const page = await t.rest("GET", `${PROJECT}/conversations/${maityId}/messages`, { token: t.tokens.human });
    const card = (page.body.items as { body: string; card?: { type: string; payload: { approvalId: string } } }[]).find(
      (m) => m.card?.type === "card.decision",
    );
    expect(card?.card?.payload.approvalId).toBe(approvalId);
    expect(card?.body).toMatch(
      /^Approval needed from @maintainer: Deploy 0\.2 to production\? Options: 1\. Deploy now/,
    );

    expect((await call(mcp, "await_approval", { session: "deployer", approvalId, wait: 0 })).json).toMatchObject({
      status: "pending",
    });
    // The person decides while the session waits: the wait ends with the decision.
    const waiting = call(mcp, "await_approval", { session: "deployer", approvalId, wait: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const decided = await t.rest("POST", `/api/approvals/${approvalId}`, {
      token: t.tokens.human,
      body: { decision: "approved", choice: "Deploy tonight" },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: "approved", choice: "Deploy tonight", can_decide: false });
    const answer = await waiting;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(answer.json).toMatchObject({
      status: "approved",
      choice: "Deploy tonight",
      by: { id: "hum-maintainer", name: "Maintainer" },
    });
    expect(answer.text).toMatch(/APPROVED with "Deploy tonight"/);
    // The decision is a quiet line in the room; a second decision is refused.
    const after = await t.rest("GET", `${PROJECT}/conversations/${maityId}/messages`, { token: t.tokens.human });
    expect((after.body.items as { body: string }[]).map((m) => m.body)).toContain(
      "Maintainer approved: Deploy tonight — Deploy 0.2 to production?",
    );
    const again = await t.rest("POST", `/api/approvals/${approvalId}`, {
      token: t.tokens.human,
      body: { decision: "denied" },
    });
    expect(again.status).toBe(409);
  });

  it("B-313 only the approver decides: a reader of the room 403 not_approver, an outsider 404, an agent token humans_only; the choice is checked", async () => {
    const asked = await call(mcp, "request_approval", {
      session: "deployer",
      conversationId: room,
      question: "Drop the staging database?",
    });
    const approvalId = asked.json.approvalId as string;
    // guest reads the room along (an observer): sees the card, may not decide.
    const seen = await t.rest("GET", `/api/approvals/${approvalId}`, { token: tokens["hum-guest"] ?? null });
    expect(seen).toMatchObject({ status: 200, body: { status: "pending", can_decide: false } });
    const byGuest = await t.rest("POST", `/api/approvals/${approvalId}`, {
      token: tokens["hum-guest"] ?? null,
      body: { decision: "approved" },
    });
    expect(byGuest.status).toBe(403);
    expect(byGuest.body.error.details.reason).toBe("not_approver");
    // Someone who cannot read the room meets it as missing, like an unknown id.
    const made = await t.rest("POST", "/api/admin/humans", {
      token: ADMIN,
      body: { handle: "outsider", name: "Outsider", password: "outsider-password-1" },
    });
    expect(made.status).toBe(201);
    const outsiderToken = await t.mint("hum-outsider");
    const hidden = await t.rest("GET", `/api/approvals/${approvalId}`, { token: outsiderToken });
    const unknown = await t.rest("GET", "/api/approvals/apr-nope", { token: outsiderToken });
    expect(hidden).toEqual(unknown);
    expect(hidden.status).toBe(404);
    const byAgent = await t.rest("POST", `/api/approvals/${approvalId}`, {
      token: t.tokens.agent,
      body: { decision: "approved" },
    });
    expect(byAgent.status).toBe(403);
    // No options: a choice is refused; a denial settles it, and the session reads it.
    const withChoice = await t.rest("POST", `/api/approvals/${approvalId}`, {
      token: t.tokens.human,
      body: { decision: "approved", choice: "yes" },
    });
    expect(withChoice.status).toBe(400);
    expect(withChoice.body.error.details.fields).toEqual({ choice: "not_expected" });
    await t.rest("POST", `/api/approvals/${approvalId}`, { token: t.tokens.human, body: { decision: "denied" } });
    const read = await call(mcp, "await_approval", { session: "deployer", approvalId, wait: 0 });
    expect(read.json).toMatchObject({ status: "denied", choice: null });
    expect(read.text).toMatch(/DENIED/);
  });

  it("an approver who is not a person in the room is refused by name; another session's approval is not found", async () => {
    const observer = await call(mcp, "request_approval", {
      session: "deployer",
      conversationId: room,
      question: "Ship it?",
      approver: "@guest",
    });
    expect(observer.json).toMatchObject({ code: "INVALID_REQUEST", status: 400 });
    expect(observer.text).toMatch(/approver/);
    const asked = await call(mcp, "request_approval", { session: "deployer", conversationId: room, question: "Tag?" });
    const other = await call(mcp, "await_approval", {
      session: "frontend",
      approvalId: asked.json.approvalId as string,
      wait: 0,
    });
    expect(other.json).toMatchObject({ code: "APPROVAL_NOT_FOUND", status: 404 });
  });
});

describe("listening: listen_messages, the monitor, get_delivery_status, stop_listening (B-332…B-343)", () => {
  type Frame = { type: string; items?: { conversationId: string; messageId: string }[]; cursor?: string };
  type Monitor = { url: string; protocol: string; ticket: string; expiresAt: string };
  let room: string;
  let maityId: string;

  /** A real WebSocket client on the monitor: its frames, its close code, and a wait for a frame. */
  function open(monitor: Monitor) {
    const frames: Frame[] = [];
    const ws = new WebSocket(monitor.url, monitor.protocol);
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    const opened = new Promise<number>((resolve, reject) => {
      ws.on("open", () => resolve(101));
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("error", reject);
    });
    ws.on("message", (data) => frames.push(JSON.parse(String(data)) as Frame));
    const next = async (match: (f: Frame) => boolean, ms = 5000): Promise<Frame | null> => {
      for (const until = Date.now() + ms; Date.now() < until; ) {
        const found = frames.find(match);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 25));
      }
      return null;
    };
    return { ws, frames, closed, opened, next };
  }
  const listen = async (session: string, extra: Record<string, unknown> = {}) => {
    const answer = await call(mcp, "listen_messages", { session, ...extra });
    expect(answer.result.isError).toBeFalsy();
    return (answer.json as { monitor: Monitor }).monitor;
  };
  const status = async (session: string) =>
    ((await call(mcp, "get_delivery_status", { session })).json as { status: string }).status;
  const say = (body: string) =>
    t.rest("POST", `${PROJECT}/conversations/${maityId}/messages`, { token: t.tokens.human, body: { body } });

  beforeAll(async () => {
    const joined = await call(mcp, "join_session", { session: "listener", group: "Release 0.2 go/no-go" });
    room = (joined.json.conversation as { id: string }).id;
    maityId = (joined.json.conversation as { maityId: string }).maityId;
  });

  it("B-332 B-333 B-334 B-335 a ticket opens the monitor once: awaiting_connection, then connected; frames list what wakes the session", async () => {
    const monitor = await listen("listener");
    expect(monitor.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/api\/device-api\/monitor$/);
    expect(monitor.protocol).toBe(`maity.monitor.${monitor.ticket}`);
    expect(Date.parse(monitor.expiresAt) - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(await status("listener")).toBe("awaiting_connection");
    const socket = open(monitor);
    expect(await socket.opened).toBe(101);
    expect(await socket.next((f) => f.type === "ready")).toMatchObject({ type: "ready", cursor: expect.any(String) });
    expect(await status("listener")).toBe("connected");

    // agent-a's mention does not wake a session of the maintainer; the maintainer's does.
    const agent = await mcpClient(t.tokens.agent);
    await call(agent, "send_message", { conversationId: room, content: "@listener look" });
    await agent.close();
    const mine = await say("@listener run the checks");
    const frame = await socket.next((f) => f.type === "messages");
    expect(frame?.items).toEqual([{ conversationId: room, messageId: mine.body.id }]);
    // B-333 B-337: the same ticket does not open a second socket.
    const again = open(monitor);
    expect(await again.opened).toBe(401);
    socket.ws.close();
    await socket.closed;
  });

  it("B-336 a new listener closes the old with 4000; stop_listening closes it with 4000 and voids a pending ticket", async () => {
    const first = open(await listen("listener"));
    await first.next((f) => f.type === "ready");
    const second = open(await listen("listener"));
    await second.next((f) => f.type === "ready");
    expect(await first.closed).toBe(4000);
    const pending = await listen("listener"); // issued, never opened
    await call(mcp, "stop_listening", { session: "listener" });
    expect(await second.closed).toBe(4000);
    expect(await status("listener")).toBe("stopped");
    expect(await open(pending).opened).toBe(401);
  });

  it("B-335 B-337 0 messages lost: a listener closed mid-stream reconnects with its last cursor and is handed the gap", async () => {
    const first = open(await listen("listener"));
    const ready = await first.next((f) => f.type === "ready");
    await say("@listener one");
    const one = await first.next((f) => f.type === "messages");
    first.ws.close();
    expect(await first.closed).toBe(1005);
    expect(await status("listener")).toBe("closed");
    // While no listener is open, three messages that wake it.
    const missed = [];
    for (const n of ["two", "three", "four"]) missed.push((await say(`@listener ${n}`)).body.id as string);
    const second = open(await listen("listener", { cursor: one?.cursor ?? ready?.cursor }));
    const replayed: string[] = [];
    for (let i = 0; i < 20 && replayed.length < 3; i++) {
      const frame = await second.next((f) => f.type === "messages" && !second.frames.slice(0, -1).includes(f), 250);
      replayed.splice(0, replayed.length, ...second.frames.flatMap((f) => f.items?.map((x) => x.messageId) ?? []));
      if (!frame) continue;
    }
    expect(replayed).toEqual(missed);
    second.ws.close();
    await second.closed;
  });

  it("B-341 B-342 B-343 commands relay: the person's /clear is not announced and reads shouldRespond false; anyone else's is a message", async () => {
    const relay = open(await listen("listener", { commands: "relay" }));
    await relay.next((f) => f.type === "ready");
    const clear = await say("@listener /clear");
    const after = await say("@listener the next task");
    const frame = await relay.next((f) => f.type === "messages");
    expect(frame?.items?.map((x) => x.messageId)).toEqual([after.body.id]);
    const page = await call(mcp, "get_messages", { session: "listener", conversationId: room, limit: 3 });
    const verdicts = Object.fromEntries(
      (page.json.messages as { id: string; shouldRespond: boolean }[]).map((m) => [m.id, m.shouldRespond]),
    );
    expect(verdicts[clear.body.id]).toBe(false);
    expect(verdicts[after.body.id]).toBe(true);
    // A feed without commands is handed the same /clear as an ordinary message.
    const plain = open(await listen("listener"));
    await plain.next((f) => f.type === "ready");
    const second = await say("@listener /clear");
    expect((await plain.next((f) => f.type === "messages"))?.items?.map((x) => x.messageId)).toEqual([second.body.id]);
    const reread = await call(mcp, "get_messages", { session: "listener", conversationId: room, limit: 1 });
    expect((reread.json.messages as { shouldRespond: boolean }[])[0]?.shouldRespond).toBe(true);
    plain.ws.close();
    await plain.closed;
  });

  it("a revoked device ends its session's monitor within a second (4001); an expired ticket opens nothing", async () => {
    const spare = (await login("hum-maintainer")).maintainer as string;
    const client = await mcpClient(spare);
    await call(client, "join_session", { session: "short-lived", group: "Release 0.2 go/no-go" });
    const answer = await call(client, "listen_messages", { session: "short-lived" });
    const socket = open((answer.json as { monitor: Monitor }).monitor);
    await socket.next((f) => f.type === "ready");
    const devices = await t.rest("GET", "/api/me/devices", { token: t.tokens.human });
    const revokedAt = Date.now();
    await t.rest("DELETE", `/api/me/devices/${(devices.body.items as { id: string }[])[0]?.id}`, {
      token: t.tokens.human,
    });
    expect(await socket.closed).toBe(4001);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    await client.close().catch(() => undefined);

    const late = await listen("listener");
    await t.hub.db.sessionListener.updateMany({ data: { expiresAt: new Date(Date.now() - 1000) }, where: {} });
    expect(await status("listener")).toBe("expired");
    expect(await open(late).opened).toBe(401);
  });

  it("B-338 a message carrying a listen ticket is refused, never posted", async () => {
    const monitor = await listen("listener");
    const leaked = await call(mcp, "send_message", {
      session: "listener",
      conversationId: room,
      content: `my ticket is ${monitor.ticket}`,
    });
    expect(leaked.result.isError).toBe(true);
    expect(leaked.json).toMatchObject({ status: 400 });
  });
});

describe("join_session_group for persistent agents (B-323, B-304)", () => {
  it("B-323 an agent of the Bay enters the existing Sessions group: its id, roster, policy; never a private chat", async () => {
    const made = await t.rest("POST", "/api/admin/agents", {
      token: ADMIN,
      body: { owner: "maintainer", handle: "helper", description: "Helps the sessions." },
    });
    expect(made.status).toBe(201);
    const helper = await mcpClient(await t.mint(made.body.id));
    const joined = await call(helper, "join_session_group", {});
    expect(joined.result.isError).toBeFalsy();
    expect(joined.json).toMatchObject({
      conversationId: expect.any(String),
      title: "Sessions",
      policy: { effectiveRule: expect.any(String) },
      agentInteraction: true,
    });
    const names = (joined.json.participants as { name: string }[]).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["maintainer/frontend", "maintainer/helper"]));
    const rooms = await call(helper, "list_conversations", {});
    const types = (rooms.json.conversations as { id: string; type: string }[]).filter(
      (r) => r.id === joined.json.conversationId,
    );
    expect(types.map((r) => r.type)).toEqual(["GROUP"]);
    await helper.close();
  });

  it("B-304 an agent beside a visitor, or visiting, is refused GUEST_RESTRICTED_TOOL; a Bay without a Sessions group GROUP_NOT_FOUND", async () => {
    // agent-a shares the Release room with guest's visiting agent-x.
    const beside = await mcpClient(t.tokens.agent);
    expect((await call(beside, "join_session_group", {})).json).toMatchObject({
      code: "GUEST_RESTRICTED_TOOL",
      status: 403,
    });
    await beside.close();
    const visitor = await mcpClient(await t.mint("agt-x"));
    expect((await call(visitor, "join_session_group", {})).json).toMatchObject({ code: "GUEST_RESTRICTED_TOOL" });
    await visitor.close();
    const made = await t.rest("POST", "/api/admin/agents", {
      token: ADMIN,
      body: { owner: "guest", handle: "gardener" },
    });
    const gardener = await mcpClient(await t.mint(made.body.id));
    expect((await call(gardener, "join_session_group", {})).json).toMatchObject({
      code: "GROUP_NOT_FOUND",
      status: 404,
    });
    await gardener.close();
  });
});

describe("what a review found (issue 30)", () => {
  it("a monitor goes on delivering after its person's credentials change elsewhere (another device signed out)", async () => {
    const joined = await call(mcp, "join_session", { session: "steady", group: "Release 0.2 go/no-go" });
    const room = joined.json.conversation as { id: string; maityId: string };
    const answer = await call(mcp, "listen_messages", { session: "steady" });
    const monitor = (answer.json as { monitor: { url: string; protocol: string } }).monitor;
    const frames: { type: string; items?: { messageId: string }[] }[] = [];
    const ws = new WebSocket(monitor.url, monitor.protocol);
    ws.on("message", (d) => frames.push(JSON.parse(String(d))));
    const wait = async (ok: () => boolean) => {
      for (const end = Date.now() + 5000; Date.now() < end && !ok(); ) await new Promise((r) => setTimeout(r, 25));
      return ok();
    };
    expect(await wait(() => frames.some((f) => f.type === "ready"))).toBe(true);
    // Another computer of the same person is signed out: a credentials message for the person.
    await login("hum-maintainer");
    const devices = await t.rest("GET", "/api/me/devices", { token: t.tokens.human });
    await t.rest("DELETE", `/api/me/devices/${(devices.body.items as { id: string }[])[0]?.id}`, {
      token: t.tokens.human,
    });
    for (const n of [1, 2]) {
      const sent = await t.rest("POST", `${PROJECT}/conversations/${room.maityId}/messages`, {
        token: t.tokens.human,
        body: { body: `@steady still there ${n}` },
      });
      expect(await wait(() => frames.some((f) => f.items?.some((i) => i.messageId === sent.body.id)))).toBe(true);
    }
    ws.close();
  });

  it("an admin's removal holds: the session's next join is 403 removed_by_admin", async () => {
    const joined = await call(mcp, "join_session", { session: "removable", group: "Release 0.2 go/no-go" });
    const id = (joined.json.session as { id: string }).id;
    const removed = await t.rest("DELETE", `${PROJECT}/members/${id}`, { token: t.tokens.human });
    expect(removed.status).toBe(200);
    const again = await call(mcp, "join_session", { session: "removable", group: "Release 0.2 go/no-go" });
    expect(again.json).toMatchObject({ status: 403 });
    expect(again.text).toMatch(/removed/);
  });

  it("a guest of one project in a Bay gets neither its Sessions group nor a private chat there; a session has no join_session_group", async () => {
    const guest = await login("hum-guest");
    const client = await mcpClient(guest.maintainer as string);
    for (const args of [{ session: "g1", sessions: true }, { session: "g1" }]) {
      const refused = await call(client, "join_session", args);
      expect(refused.json, JSON.stringify(args)).toMatchObject({ status: 403 });
      expect(refused.text).toMatch(/Bay's own people/);
    }
    await client.close();
    const asSession = await call(mcp, "join_session_group", { session: "frontend" });
    expect(asSession.json).toMatchObject({ status: 403 });
    expect(asSession.text).toMatch(/join_session/);
  });

  it("someone else cannot put a person's session into a chat; its person can, and then only they wake it", async () => {
    const joined = await call(mcp, "join_session", { session: "placed", group: "Release 0.2 go/no-go" });
    const id = (joined.json.session as { id: string }).id;
    const made = await t.rest("POST", `${PROJECT}/conversations`, {
      token: tokens["hum-guest"] ?? null,
      body: { title: "Guest's room", participants: ["hum-maintainer", id] },
    });
    expect(made.status).toBe(403);
    expect(made.body.error.details.reason).toBe("not_sponsor");
    const own = await t.rest("POST", `${PROJECT}/conversations`, {
      token: t.tokens.human,
      body: { title: "With my session", participants: ["hum-guest", id] },
    });
    expect(own.status).toBe(201);
    const row = await t.hub.db.participation.findFirstOrThrow({
      where: { memberId: id, conversation: { publicId: own.body.id } },
      select: { wake: true },
    });
    expect(row.wake).toBe("sponsor");
  });

  it("listen_messages refuses a cursor no frame gave (the ticket is not spent); the Sessions group has no cap of 12", async () => {
    const bad = await call(mcp, "listen_messages", { session: "frontend", cursor: "not-a-cursor" });
    expect(bad.json).toMatchObject({ code: "INVALID_REQUEST", status: 400 });
    for (let i = 0; i < 13; i++) {
      const joined = await call(mcp, "join_session", { session: `crowd-${i}`, sessions: true });
      expect(joined.result.isError, joined.text).toBeFalsy();
    }
  });
});

describe("the device feed (B-331, v1.23)", () => {
  it("B-331 GET /api/device-api/updates: the hosted sessions' messages, each naming its session, and this device's registrations; held until one comes", async () => {
    const thread = "0199a7c2-3f4b-7c1d-9e2a-5b6c7d8e9f09";
    await call(mcp, "join_session", {
      session: "feeder",
      group: "Release 0.2 go/no-go",
      runtime: "codex",
      threadId: thread,
    });
    const first = await t.rest("GET", "/api/device-api/updates", { token: device });
    expect(first.status).toBe(200);
    expect(first.body.events).toEqual([]); // no cursor: from now, never a back-dump
    expect(first.body.registrations).toContainEqual({
      session: "feeder",
      runtime: "codex",
      threadId: thread,
      registeredAt: expect.any(String),
    });
    const view = await t.rest("GET", `${PROJECT}/conversations`, { token: t.tokens.human });
    const release = (view.body.items as { id: string; title: string }[]).find(
      (c) => c.title === "Release 0.2 go/no-go",
    );
    const held = t.rest("GET", `/api/device-api/updates?cursor=${first.body.cursor}&wait=10`, { token: device });
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const sent = await t.rest("POST", `${PROJECT}/conversations/${release?.id}/messages`, {
      token: t.tokens.human,
      body: { body: "@feeder pick this up" },
    });
    const answer = await held;
    expect(Date.now() - started).toBeLessThan(8000);
    const mine = (answer.body.events as { session: string; message: { id: string; shouldRespond: boolean } }[]).filter(
      (e) => e.message.id === sent.body.id,
    );
    expect(mine.find((e) => e.session === "feeder")?.message.shouldRespond).toBe(true);
    expect(mine.every((e) => e.session !== "")).toBe(true);
    // Another person's device hears nothing of it; a cursor not given out is refused.
    const guest = await login("hum-guest");
    const theirs = await t.rest("GET", `/api/device-api/updates?cursor=${first.body.cursor}`, {
      token: guest.maintainer ?? null,
    });
    expect(theirs.body.events).toEqual([]);
    const bad = await t.rest("GET", "/api/device-api/updates?cursor=nope", { token: device });
    expect(bad).toMatchObject({ status: 400, body: { code: "INVALID_REQUEST" } });
  });
});
