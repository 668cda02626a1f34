import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { handleTrpc } from "../src/fetch.ts";
import { ADMIN, BASE, restClient, testHub, trpcBrowser } from "./helpers.ts";

// Agent protocol §4 "When to speak", end to end through the real handlers: the reply policy set by
// a manager (Maity REST PATCH and tRPC conversations.update), human messages posted over Maity REST,
// agent messages over POST /api/agent-api/conversations/:id/messages, and every agent's verdict read
// back as `shouldRespond` through the agent API — the forward poll (GET …/messages?since=) and the
// held feed (GET /updates?wait=0 with a cursor), which must agree. Requirements B-044 B-046 B-047
// B-052…B-089 with the open questions the hub adopts (OQ-B-08 OQ-B-09 OQ-B-10 OQ-B-11).

// Every writer here mentions a lot in a few seconds: the ping rate (§1.7) is not what is tested.
const hub = await testHub({
  limits: { agent: 100_000, updates: 100_000 },
  pingRate: { pings: 100_000, windowSeconds: 600 },
});
const rest = restClient(hub);
afterAll(() => hub.close());

const PASSWORD = "routing-password";
const L = "/api/projects/maintainer/lab";
const MAINTAINER = "hum-maintainer";
const GUEST = "hum-guest";
// The agents and their roster names (`owner/handle`); their handles share no word. B and T share
// "runner" (B-062) and meet only in the chat about names that fit several agents.
const D = "agt-deploy-runner";
const W = "agt-docs-writer";
const R = "agt-pr-reviewer";
const B = "agt-build-runner";
const T = "agt-test-runner";
const NAME: Record<string, string> = {
  [D]: "maintainer/deploy-runner",
  [W]: "guest/docs-writer",
  [R]: "carol/pr-reviewer",
};
const ALIAS: Record<string, string> = {
  [D]: "D",
  [W]: "W",
  [R]: "R",
  [B]: "B",
  [T]: "T",
  [MAINTAINER]: "maintainer",
  [GUEST]: "guest",
};
type Alias = "D" | "W" | "R" | "B" | "T";

const tokens: Record<string, string> = {};
function tok(id: string): string {
  const token = tokens[id];
  if (!token) throw new Error(`no token for ${id}`);
  return token;
}
const admin = (method: string, path: string, body?: unknown) => rest(method, path, { token: ADMIN, body });
const chatPath = (chat: string) => `${L}/conversations/${chat}`;
const patch = (who: string, chat: string, body: Record<string, unknown>) =>
  rest("PATCH", chatPath(chat), { token: tok(who), body });

type AgentMsg = {
  id: string;
  senderId: string;
  content: string;
  metadata: Record<string, unknown> | null;
  mentions: string[];
  shouldRespond: boolean;
  replyTo: { id: string; senderId: string; senderType: string; preview: string } | null;
};
type Envelope = {
  conversation: { id: string; type: string; title: string | null };
  participants: { id: string; role: string }[];
  policy: { rule: string | null; effectiveRule: string; policyApplies: boolean; maxAgentRounds: number | null };
  you: { id: string; name: string; isOrchestrator: boolean };
  instructions: string;
};

async function agentApi(method: string, path: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

type TrpcBody = { result?: { data: unknown }; error?: { data: { hubError: unknown } } };
/** tRPC over fetch with a bearer token (an agent has no dashboard session). */
async function trpcWithToken(token: string, name: string, input: unknown) {
  const res = await handleTrpc(
    hub,
    new Request(`${BASE}/api/trpc/${name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    }),
  );
  return { status: res.status, body: (await res.json()) as TrpcBody };
}

/** A group chat as both surfaces name it, with each agent's /updates cursor and a `since` from before its first message. */
type Chat = { id: string; key: string; since: string; agents: string[]; cursors: Record<string, string> };

async function openChat(title: string, policy?: Record<string, unknown>, agents: string[] = [D, W, R]): Promise<Chat> {
  const created = await rest("POST", `${L}/conversations`, {
    token: tok(MAINTAINER),
    body: { title, participants: [GUEST, ...agents] },
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  if (policy) expect((await patch(MAINTAINER, id, policy)).status).toBe(200);
  const first = agents[0] ?? D;
  const rooms = await agentApi("GET", "/conversations", tok(first));
  expect(rooms.status).toBe(200);
  const key = (rooms.body.conversations as { id: string; maity: { id: string } }[]).find((r) => r.maity.id === id)?.id;
  if (!key) throw new Error(`${title} is not among the rooms of ${first}`);
  const cursors: Record<string, string> = {};
  for (const agent of agents) {
    const head = await agentApi("GET", "/updates?wait=0", tok(agent));
    expect(head).toEqual({ status: 200, body: { cursor: expect.any(String), events: [] } });
    cursors[agent] = head.body.cursor;
  }
  return { id, key, since: new Date(Date.now() - 1000).toISOString(), agents, cursors };
}

/** A human writes over Maity REST (optionally replying to the message of that seq). */
async function say(who: string, chat: Chat, body: string, replyTo?: number): Promise<{ seq: number; id: string }> {
  const res = await rest("POST", `${chatPath(chat.id)}/messages`, {
    token: tok(who),
    body: replyTo === undefined ? { body } : { body, reply_to: replyTo },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** An agent writes over the agent API (optionally replying to a message id). */
async function agentSays(agent: string, chat: Chat, content: string, replyToMessageId?: string): Promise<AgentMsg> {
  const res = await agentApi(
    "POST",
    `/conversations/${chat.key}/messages`,
    tok(agent),
    replyToMessageId === undefined ? { content } : { content, replyToMessageId },
  );
  expect(res.status).toBe(201);
  return res.body;
}
const seqOf = (messageId: string): number => Number(messageId.replace(/^evt-/, ""));

/** The agent's forward poll of the chat since it opened: every message, ascending, with its context. */
async function poll(agent: string, chat: Chat): Promise<{ messages: AgentMsg[]; context: Envelope }> {
  const res = await agentApi(
    "GET",
    `/conversations/${chat.key}/messages?since=${encodeURIComponent(chat.since)}&limit=200`,
    tok(agent),
  );
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * Each message of the chat with every agent's shouldRespond, as [sender, content, {D, W, R}]. Read
 * through the poll and through /updates from the cursor taken when the chat opened; both must agree.
 */
async function seen(chat: Chat): Promise<[string, string, Partial<Record<Alias, boolean>>][]> {
  const byAgent = new Map<string, AgentMsg[]>();
  for (const agent of chat.agents) {
    const { messages } = await poll(agent, chat);
    const updates = await agentApi(
      "GET",
      `/updates?wait=0&cursor=${encodeURIComponent(chat.cursors[agent] ?? "")}`,
      tok(agent),
    );
    expect(updates.status).toBe(200);
    const events = updates.body.events as { conversationId: string; message: AgentMsg }[];
    expect(events.map((e) => e.conversationId)).toEqual(events.map(() => chat.key));
    const line = (m: AgentMsg) => [m.id, m.senderId, m.content, m.shouldRespond];
    expect(events.map((e) => line(e.message))).toEqual(messages.map(line));
    byAgent.set(agent, messages);
  }
  const first = byAgent.get(chat.agents[0] ?? "") ?? [];
  for (const agent of chat.agents) expect((byAgent.get(agent) ?? []).map((m) => m.id)).toEqual(first.map((m) => m.id));
  return first.map((m, i) => [
    ALIAS[m.senderId] ?? m.senderId,
    m.content,
    Object.fromEntries(chat.agents.map((a) => [ALIAS[a] as Alias, byAgent.get(a)?.[i]?.shouldRespond])) as Partial<
      Record<Alias, boolean>
    >,
  ]);
}
/** The expected verdicts: the agents named respond, the others do not. */
const to = (...who: Alias[]) => ({ D: who.includes("D"), W: who.includes("W"), R: who.includes("R") });

/** One message as an agent reads it, found by its content. */
async function messageAs(agent: string, chat: Chat, content: string): Promise<AgentMsg> {
  const found = (await poll(agent, chat)).messages.find((m) => m.content === content);
  if (!found) throw new Error(`no message "${content}"`);
  return found;
}
const addressing = (m: AgentMsg) => ({ mentions: m.mentions, metadata: m.metadata });

const context = async (agent: string, chat: Chat): Promise<Envelope> => {
  const res = await agentApi("GET", `/conversations/${chat.key}/context`, tok(agent));
  expect(res.status).toBe(200);
  return res.body;
};
const lineOf = (instructions: string, prefix: string): string | undefined =>
  instructions.split("\n").find((l) => l.startsWith(prefix));

beforeAll(async () => {
  for (const handle of ["maintainer", "guest", "carol"])
    expect(
      (
        await admin("POST", "/api/admin/humans", {
          handle,
          name: handle[0]?.toUpperCase() + handle.slice(1),
          password: PASSWORD,
          // One Bay for the three (DESIGN §4c): routing among a team's own agents, no visitor.
          ...(handle === "maintainer" ? {} : { bay: "maintainer" }),
        })
      ).status,
    ).toBe(201);
  for (const [owner, handle, description] of [
    ["maintainer", "deploy-runner", "Deploys, CI pipelines and release checks."],
    ["guest", "docs-writer", "Writes changelogs and documentation."],
    ["carol", "pr-reviewer", "Reviews pull requests and code style."],
    ["carol", "build-runner", "Builds the artifacts."],
    ["guest", "test-runner", "Runs the test suites."],
  ] as const) {
    const res = await admin("POST", "/api/admin/agents", { owner, handle, description });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(`agt-${handle}`);
  }
  expect((await admin("POST", "/api/admin/projects", { owner: "maintainer", slug: "lab", name: "Lab" })).status).toBe(
    201,
  );
  for (const id of [GUEST, "hum-carol", D, W, R, B, T])
    expect((await admin("POST", "/api/admin/projects/maintainer/lab/members", { member_id: id })).status).toBe(201);
  for (const id of [MAINTAINER, GUEST, "hum-carol", D, W, R, B, T]) {
    const res = await admin("POST", "/api/admin/tokens", { member_id: id });
    expect(res.status).toBe(201);
    tokens[id] = res.body.token;
  }
});

describe("setting the reply policy (B-052 B-066 B-067)", () => {
  const policyOf = (view: Record<string, unknown>) => ({
    reply_policy: view.reply_policy,
    designated_agent_id: view.designated_agent_id,
    max_agent_rounds: view.max_agent_rounds,
    custom_rules: view.custom_rules,
  });
  const lastChange = async (chat: string) =>
    (
      (await hub.db.event.findFirstOrThrow({
        where: { conversation: { publicId: chat }, kind: "conversation_updated" },
        orderBy: { seq: "desc" },
        select: { fromId: true, payload: true },
      })) as {
        fromId: string;
        payload: { changed: Record<string, unknown> };
      }
    ).payload.changed;

  it("B-052 B-055 B-056 B-058 B-059 B-066 B-067 a manager sets each policy over Maity REST PATCH; the view, the conversation_updated event and the agents' envelope follow", async () => {
    const chat = await openChat("Policy over REST", undefined, [D, W]);
    expect(policyOf((await rest("GET", chatPath(chat.id), { token: tok(MAINTAINER) })).body)).toEqual({
      reply_policy: "MENTIONS",
      designated_agent_id: null,
      max_agent_rounds: 2,
      custom_rules: null,
    });
    const steps: [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
      [
        { reply_policy: "DEDICATED", designated_agent_id: D },
        { reply_policy: "DEDICATED", designated_agent_id: D, max_agent_rounds: 2 },
        { reply_policy: "DEDICATED", designated_agent_id: D },
      ],
      [
        { reply_policy: "ORCHESTRATOR", designated_agent_id: W },
        { reply_policy: "ORCHESTRATOR", designated_agent_id: W, max_agent_rounds: 2 },
        { reply_policy: "ORCHESTRATOR", designated_agent_id: W },
      ],
      // ROUTER keeps the named agent as its fallback; it may also have none.
      [
        { reply_policy: "ROUTER" },
        { reply_policy: "ROUTER", designated_agent_id: W, max_agent_rounds: 2 },
        { reply_policy: "ROUTER" },
      ],
      [
        { designated_agent_id: null },
        { reply_policy: "ROUTER", designated_agent_id: null, max_agent_rounds: 2 },
        { designated_agent_id: null },
      ],
      [
        { reply_policy: "OPEN" },
        { reply_policy: "OPEN", designated_agent_id: null, max_agent_rounds: 2 },
        { reply_policy: "OPEN" },
      ],
      [
        { reply_policy: "DEDICATED", designated_agent_id: W, max_agent_rounds: 0 },
        { reply_policy: "DEDICATED", designated_agent_id: W, max_agent_rounds: 0 },
        { reply_policy: "DEDICATED", designated_agent_id: W, max_agent_rounds: 0 },
      ],
      // Switching to a policy that names no agent drops the designated one.
      [
        { reply_policy: "MENTIONS", max_agent_rounds: 5 },
        { reply_policy: "MENTIONS", designated_agent_id: null, max_agent_rounds: 5 },
        { reply_policy: "MENTIONS", designated_agent_id: null, max_agent_rounds: 5 },
      ],
      [
        { max_agent_rounds: 6, accept_token_cost: true },
        { reply_policy: "MENTIONS", designated_agent_id: null, max_agent_rounds: 6 },
        { max_agent_rounds: 6 },
      ],
      // An accepted value is kept through another change without a second acceptance.
      [
        { reply_policy: "OPEN" },
        { reply_policy: "OPEN", designated_agent_id: null, max_agent_rounds: 6 },
        { reply_policy: "OPEN" },
      ],
      [
        { max_agent_rounds: 20, accept_token_cost: true },
        { reply_policy: "OPEN", designated_agent_id: null, max_agent_rounds: 20 },
        { max_agent_rounds: 20 },
      ],
      [
        { reply_policy: "MENTIONS", max_agent_rounds: 2 },
        { reply_policy: "MENTIONS", designated_agent_id: null, max_agent_rounds: 2 },
        { reply_policy: "MENTIONS", max_agent_rounds: 2 },
      ],
    ];
    for (const [body, view, changed] of steps) {
      const res = await patch(MAINTAINER, chat.id, body);
      expect(res.status).toBe(200);
      expect(policyOf(res.body)).toEqual({ ...view, custom_rules: null });
      expect(await lastChange(chat.id)).toEqual(changed);
      expect(policyOf((await rest("GET", chatPath(chat.id), { token: tok(GUEST) })).body)).toEqual({
        ...view,
        custom_rules: null,
      });
      const envelope = await context(W, chat);
      expect(envelope.policy).toEqual({
        rule: view.reply_policy,
        effectiveRule: view.reply_policy,
        policyApplies: true,
        maxAgentRounds: view.max_agent_rounds,
      });
      expect(envelope.you.isOrchestrator).toBe(view.reply_policy === "ORCHESTRATOR" && view.designated_agent_id === W);
    }
  });

  it("B-052 B-066 B-067 the same over tRPC conversations.update, as the dashboard calls it", async () => {
    const chat = await openChat("Policy over tRPC", undefined, [D, W]);
    const browser = trpcBrowser(hub);
    expect((await browser.mutation("auth.login", { handle: "maintainer", password: PASSWORD })).status).toBe(200);
    const ref = { owner: "maintainer", slug: "lab", conversation_id: chat.id };
    for (const [body, view, changed] of [
      [
        { reply_policy: "DEDICATED", designated_agent_id: W },
        { reply_policy: "DEDICATED", designated_agent_id: W, max_agent_rounds: 2 },
        { reply_policy: "DEDICATED", designated_agent_id: W },
      ],
      [
        { reply_policy: "ORCHESTRATOR", designated_agent_id: D },
        { reply_policy: "ORCHESTRATOR", designated_agent_id: D, max_agent_rounds: 2 },
        { reply_policy: "ORCHESTRATOR", designated_agent_id: D },
      ],
      [
        { reply_policy: "ROUTER", designated_agent_id: W, max_agent_rounds: 4 },
        { reply_policy: "ROUTER", designated_agent_id: W, max_agent_rounds: 4 },
        { reply_policy: "ROUTER", designated_agent_id: W, max_agent_rounds: 4 },
      ],
      [
        { reply_policy: "OPEN", max_agent_rounds: 7, accept_token_cost: true },
        { reply_policy: "OPEN", designated_agent_id: null, max_agent_rounds: 7 },
        { reply_policy: "OPEN", designated_agent_id: null, max_agent_rounds: 7 },
      ],
      [
        { reply_policy: "MENTIONS", max_agent_rounds: 2 },
        { reply_policy: "MENTIONS", designated_agent_id: null, max_agent_rounds: 2 },
        { reply_policy: "MENTIONS", max_agent_rounds: 2 },
      ],
    ] as const) {
      const res = await browser.mutation("conversations.update", { ...ref, ...body });
      expect(res.status).toBe(200);
      expect(policyOf(res.body.result?.data as Record<string, unknown>)).toEqual({ ...view, custom_rules: null });
      expect(await lastChange(chat.id)).toEqual(changed);
    }
    // Refusals over tRPC carry the hub's error with the field named; nothing is written.
    const events = await hub.db.event.count();
    const refused = await browser.mutation("conversations.update", { ...ref, reply_policy: "ORCHESTRATOR" });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.data.hubError).toEqual({
      code: "invalid",
      message: "the reply policy is not valid for this chat",
      details: { fields: { designated_agent_id: "required" } },
      status: 400,
    });
    const above = await browser.mutation("conversations.update", { ...ref, max_agent_rounds: 9 });
    expect(above.body.error?.data.hubError).toEqual({
      code: "invalid",
      message: "the reply policy is not valid for this chat",
      details: { fields: { max_agent_rounds: "needs_accept_token_cost" } },
      status: 400,
    });
    const outOfRange = await browser.mutation("conversations.update", {
      ...ref,
      max_agent_rounds: 21,
      accept_token_cost: true,
    });
    expect(outOfRange.body.error?.data.hubError).toEqual({
      code: "invalid",
      message: "invalid input: max_agent_rounds",
      details: { fields: { max_agent_rounds: "an integer 0–20" } },
      status: 400,
    });
    const forbidden = {
      code: "forbidden",
      message: "only the chat's creator and participants holding members:admin manage it",
      details: { reason: "not_a_manager" },
      status: 403,
    };
    const guest = trpcBrowser(hub);
    expect((await guest.mutation("auth.login", { handle: "guest", password: PASSWORD })).status).toBe(200);
    const byGuest = await guest.mutation("conversations.update", { ...ref, reply_policy: "OPEN" });
    expect([byGuest.status, byGuest.body.error?.data.hubError]).toEqual([403, forbidden]);
    const byAgent = await trpcWithToken(tok(D), "conversations.update", {
      ...ref,
      reply_policy: "DEDICATED",
      designated_agent_id: D,
    });
    expect([byAgent.status, byAgent.body.error?.data.hubError]).toEqual([403, forbidden]);
    expect(await hub.db.event.count()).toBe(events);
    expect(policyOf((await rest("GET", chatPath(chat.id), { token: tok(MAINTAINER) })).body)).toEqual({
      reply_policy: "MENTIONS",
      designated_agent_id: null,
      max_agent_rounds: 2,
      custom_rules: null,
    });
  });

  it("B-055 B-056 B-066 B-067 refusals name the field — designated agent required, not an agent participant, rounds 0–20, above 5 only with accept_token_cost — a non-manager and an agent are forbidden; nothing is written", async () => {
    // R is a member of the project but not of this chat.
    const chat = await openChat("Policy refusals", undefined, [D, W]);
    const invalid = (fields: Record<string, string>, message = "the reply policy is not valid for this chat") => ({
      status: 400,
      body: { error: { code: "invalid", message, details: { fields } } },
    });
    const rounds = (reason: string) =>
      invalid(
        { max_agent_rounds: reason },
        reason === "an integer 0–20" ? "invalid input: max_agent_rounds" : undefined,
      );
    const forbidden = {
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "only the chat's creator and participants holding members:admin manage it",
          details: { reason: "not_a_manager" },
        },
      },
    };
    const before = {
      view: policyOf((await rest("GET", chatPath(chat.id), { token: tok(MAINTAINER) })).body),
      events: await hub.db.event.count(),
      row: await hub.db.conversation.findFirstOrThrow({
        where: { publicId: chat.id },
        select: {
          replyPolicy: true,
          designatedAgentId: true,
          maxAgentRounds: true,
          maxAgentRoundsAcceptedAt: true,
          maxAgentRoundsAcceptedById: true,
        },
      }),
    };
    const cases: [string, Record<string, unknown>, unknown][] = [
      [MAINTAINER, { reply_policy: "DEDICATED" }, invalid({ designated_agent_id: "required" })],
      [MAINTAINER, { reply_policy: "ORCHESTRATOR" }, invalid({ designated_agent_id: "required" })],
      [
        MAINTAINER,
        { reply_policy: "DEDICATED", designated_agent_id: null },
        invalid({ designated_agent_id: "required" }),
      ],
      [
        MAINTAINER,
        { reply_policy: "DEDICATED", designated_agent_id: GUEST },
        invalid({ designated_agent_id: "not_an_agent_participant" }),
      ],
      [
        MAINTAINER,
        { reply_policy: "ORCHESTRATOR", designated_agent_id: R },
        invalid({ designated_agent_id: "not_an_agent_participant" }),
      ],
      [
        MAINTAINER,
        { reply_policy: "ROUTER", designated_agent_id: "agt-nobody" },
        invalid({ designated_agent_id: "not_an_agent_participant" }),
      ],
      [MAINTAINER, { max_agent_rounds: 21 }, rounds("an integer 0–20")],
      [MAINTAINER, { max_agent_rounds: 21, accept_token_cost: true }, rounds("an integer 0–20")],
      [MAINTAINER, { max_agent_rounds: -1 }, rounds("an integer 0–20")],
      [MAINTAINER, { max_agent_rounds: 2.5 }, rounds("an integer 0–20")],
      [MAINTAINER, { max_agent_rounds: 6 }, rounds("needs_accept_token_cost")],
      [MAINTAINER, { max_agent_rounds: 6, accept_token_cost: false }, rounds("needs_accept_token_cost")],
      [MAINTAINER, { max_agent_rounds: 20 }, rounds("needs_accept_token_cost")],
      [
        MAINTAINER,
        { reply_policy: "ORCHESTRATOR", max_agent_rounds: 9 },
        invalid({ designated_agent_id: "required", max_agent_rounds: "needs_accept_token_cost" }),
      ],
      // Managers only: a participant who neither created the chat nor holds members:admin, and an agent.
      [GUEST, { reply_policy: "OPEN" }, forbidden],
      [GUEST, { reply_policy: "DEDICATED", designated_agent_id: W }, forbidden],
      [D, { reply_policy: "DEDICATED", designated_agent_id: D }, forbidden],
      [W, { max_agent_rounds: 0 }, forbidden],
    ];
    for (const [who, body, answer] of cases) expect([body, await patch(who, chat.id, body)]).toEqual([body, answer]);
    expect({
      view: policyOf((await rest("GET", chatPath(chat.id), { token: tok(MAINTAINER) })).body),
      events: await hub.db.event.count(),
      row: await hub.db.conversation.findFirstOrThrow({
        where: { publicId: chat.id },
        select: {
          replyPolicy: true,
          designatedAgentId: true,
          maxAgentRounds: true,
          maxAgentRoundsAcceptedAt: true,
          maxAgentRoundsAcceptedById: true,
        },
      }),
    }).toEqual(before);
    // An acceptance is for the value accepted: lowered and raised again, or raised further, it is asked again.
    expect((await patch(MAINTAINER, chat.id, { max_agent_rounds: 6, accept_token_cost: true })).status).toBe(200);
    expect(await patch(MAINTAINER, chat.id, { max_agent_rounds: 7 })).toEqual(rounds("needs_accept_token_cost"));
    expect((await patch(MAINTAINER, chat.id, { max_agent_rounds: 4 })).status).toBe(200);
    expect(await patch(MAINTAINER, chat.id, { max_agent_rounds: 6 })).toEqual(rounds("needs_accept_token_cost"));
    expect(policyOf((await rest("GET", chatPath(chat.id), { token: tok(MAINTAINER) })).body)).toEqual({
      reply_policy: "MENTIONS",
      designated_agent_id: null,
      max_agent_rounds: 4,
      custom_rules: null,
    });
  });
});

describe("who should respond, per policy (B-052…B-089)", () => {
  it("B-054 B-060 B-061 B-063 B-064 B-071 B-081 B-086 B-087 B-088 B-089 OQ-B-09 OQ-B-10 MENTIONS: an @mention or a human naming an agent routes to it; an agent's name in an agent's message, a human's @mention and a word inside another word route nowhere", async () => {
    const chat = await openChat("Mentions policy");
    await say(GUEST, chat, "anyone around?");
    await say(GUEST, chat, "@deploy-runner is CI green?");
    await agentSays(D, chat, "green. docs-writer should know");
    await say(GUEST, chat, "@maintainer please look");
    await say(GUEST, chat, "docs-writer, can you update the changelog?");
    await agentSays(W, chat, "@pr-reviewer please check my wording");
    await say(GUEST, chat, "Docs-Writer, status?");
    await say(GUEST, chat, "the dockerfile runners are slow");
    await say(MAINTAINER, chat, "maintainer here: ping me later");
    await agentSays(D, chat, "@deploy-runner note to self");
    expect(await seen(chat)).toEqual([
      ["guest", "anyone around?", to()],
      ["guest", "@deploy-runner is CI green?", to("D")],
      ["D", "green. docs-writer should know", to()], // B-064 B-089: an agent naming another narrates
      ["guest", "@maintainer please look", to()], // B-086: a human @mentioned wakes no agent
      ["guest", "docs-writer, can you update the changelog?", to("W")], // B-061: named without @
      ["W", "@pr-reviewer please check my wording", to("R")], // B-088: an agent's @mention routes
      ["guest", "Docs-Writer, status?", to("W")], // B-081: case-insensitive
      ["guest", "the dockerfile runners are slow", to()], // word-boundary safe
      ["maintainer", "maintainer here: ping me later", to()], // the owner's part of `owner/handle` names the owner
      ["D", "@deploy-runner note to self", to()], // B-071: never to oneself
    ]);
    // B-063: addressedAgents is the names, mentions the literal @-record (agent ids only, B-086 B-087).
    expect((await messageAs(W, chat, "@deploy-runner is CI green?")).mentions).toEqual([D]);
    expect(addressing(await messageAs(W, chat, "green. docs-writer should know"))).toEqual({
      mentions: [],
      metadata: null,
    });
    expect(addressing(await messageAs(W, chat, "@maintainer please look"))).toEqual({ mentions: [], metadata: null });
    expect(addressing(await messageAs(D, chat, "docs-writer, can you update the changelog?"))).toEqual({
      mentions: [],
      metadata: { addressedAgents: [W] },
    });
    expect(addressing(await messageAs(D, chat, "Docs-Writer, status?"))).toEqual({
      mentions: [],
      metadata: { addressedAgents: [W] },
    });
    expect(addressing(await messageAs(W, chat, "the dockerfile runners are slow"))).toEqual({
      mentions: [],
      metadata: null,
    });
    expect(addressing(await messageAs(W, chat, "@deploy-runner note to self"))).toEqual({
      mentions: [D],
      metadata: null,
    });
  });

  it("B-055 B-060 B-061 B-072 OQ-B-09 DEDICATED: the designated agent answers unaddressed human messages only; a mention, a name or a reply addresses another agent and the designated one stays silent", async () => {
    const chat = await openChat("Dedicated policy", { reply_policy: "DEDICATED", designated_agent_id: D });
    await say(GUEST, chat, "what is the plan for today?");
    await say(GUEST, chat, "@docs-writer where is the changelog?");
    await say(GUEST, chat, "pr-reviewer, thoughts on the PR?");
    const drafted = await agentSays(W, chat, "changelog drafted");
    await say(GUEST, chat, "looks good, ship it", seqOf(drafted.id));
    await say(MAINTAINER, chat, "hello again");
    await agentSays(D, chat, "@pr-reviewer double-check the release notes");
    await say(GUEST, chat, "@deploy-runner and the deploy?");
    await agentSays(D, chat, "deploying now");
    expect(await seen(chat)).toEqual([
      ["guest", "what is the plan for today?", to("D")],
      ["guest", "@docs-writer where is the changelog?", to("W")],
      ["guest", "pr-reviewer, thoughts on the PR?", to("R")],
      ["W", "changelog drafted", to()],
      ["guest", "looks good, ship it", to("W")],
      ["maintainer", "hello again", to("D")],
      ["D", "@pr-reviewer double-check the release notes", to("R")],
      ["guest", "@deploy-runner and the deploy?", to("D")],
      ["D", "deploying now", to()],
    ]);
  });

  it("B-056 B-057 B-060 B-063 B-065 B-072 OQ-B-11 ORCHESTRATOR: the orchestrator answers unaddressed human messages; a named specialist stays silent (the name rides in addressedAgents); any @mention and a human's reply route to the specialist", async () => {
    const chat = await openChat("Orchestrator policy", { reply_policy: "ORCHESTRATOR", designated_agent_id: D });
    await say(GUEST, chat, "can someone fix the build?");
    await say(GUEST, chat, "docs-writer, can you update the changelog?");
    await agentSays(D, chat, "@docs-writer please update the changelog");
    await say(GUEST, chat, "@pr-reviewer please review the PR");
    const updated = await agentSays(W, chat, "changelog updated");
    await say(GUEST, chat, "thanks!", seqOf(updated.id));
    await agentSays(R, chat, "@docs-writer one typo left");
    await say(MAINTAINER, chat, "docs-writer and pr-reviewer, sync up");
    await say(MAINTAINER, chat, "deploy-runner, anything else?");
    expect(await seen(chat)).toEqual([
      ["guest", "can someone fix the build?", to("D")],
      ["guest", "docs-writer, can you update the changelog?", to("D")], // B-065: a name is a hint to the orchestrator
      ["D", "@docs-writer please update the changelog", to("W")],
      ["guest", "@pr-reviewer please review the PR", to("R")], // OQ-B-11: any @mention routes
      ["W", "changelog updated", to()],
      ["guest", "thanks!", to("W")], // B-072: a human's reply addresses the agent replied to
      ["R", "@docs-writer one typo left", to("W")], // B-060: for every sender
      ["maintainer", "docs-writer and pr-reviewer, sync up", to("D")],
      ["maintainer", "deploy-runner, anything else?", to("D")],
    ]);
    expect(addressing(await messageAs(D, chat, "docs-writer, can you update the changelog?"))).toEqual({
      mentions: [],
      metadata: { addressedAgents: [W] },
    });
    const two = await messageAs(D, chat, "docs-writer and pr-reviewer, sync up");
    expect({
      mentions: two.mentions,
      addressed: [...((two.metadata?.addressedAgents as string[]) ?? [])].sort(),
    }).toEqual({ mentions: [], addressed: [W, R] });
    expect(addressing(await messageAs(D, chat, "can someone fix the build?"))).toEqual({
      mentions: [],
      metadata: null,
    });
  });

  it("B-058 B-060 B-061 ROUTER: the keyword router picks by what each agent is for, the fallback answers when it picks no one (none without a fallback); a mention or a name skips the router; agent messages are never routed", async () => {
    const chat = await openChat("Router policy", { reply_policy: "ROUTER", designated_agent_id: R });
    await say(GUEST, chat, "please update the changelogs and documentation");
    await say(GUEST, chat, "the release checks failed in CI");
    await say(GUEST, chat, "lunch plans?");
    await say(GUEST, chat, "@docs-writer quick one");
    await say(GUEST, chat, "deploy-runner, lunch?");
    await agentSays(W, chat, "the release checks failed again");
    await say(GUEST, chat, "noted, thanks");
    await agentSays(D, chat, "@pr-reviewer release checks are green");
    expect((await patch(MAINTAINER, chat.id, { designated_agent_id: null })).status).toBe(200);
    await say(GUEST, chat, "any lunch ideas?");
    await say(GUEST, chat, "release checks once more, please");
    expect(await seen(chat)).toEqual([
      ["guest", "please update the changelogs and documentation", to("W")],
      ["guest", "the release checks failed in CI", to("D")],
      ["guest", "lunch plans?", to("R")], // the fallback
      ["guest", "@docs-writer quick one", to("W")],
      ["guest", "deploy-runner, lunch?", to("D")], // named: neither the router nor the fallback
      ["W", "the release checks failed again", to()], // the router reads human messages only
      ["guest", "noted, thanks", to("R")],
      ["D", "@pr-reviewer release checks are green", to("R")],
      ["guest", "any lunch ideas?", to()], // no fallback: nobody
      ["guest", "release checks once more, please", to("D")],
    ]);
  });

  it("B-059 B-060 B-068 B-070 B-089 OPEN: every human message is for every agent; an agent message triggers nobody unless it @mentions them, and every agent reply counts toward the round cap", async () => {
    const chat = await openChat("Open policy", { reply_policy: "OPEN" });
    await say(GUEST, chat, "morning all");
    await agentSays(D, chat, "morning");
    await say(GUEST, chat, "@docs-writer the changelog, please");
    await agentSays(W, chat, "@pr-reviewer over to you");
    await agentSays(R, chat, "@deploy-runner yours now");
    await say(GUEST, chat, "thanks all");
    await agentSays(R, chat, "you're welcome, docs-writer");
    expect(await seen(chat)).toEqual([
      ["guest", "morning all", to("D", "W", "R")],
      ["D", "morning", to()],
      ["guest", "@docs-writer the changelog, please", to("D", "W", "R")],
      ["W", "@pr-reviewer over to you", to("R")],
      ["R", "@deploy-runner yours now", to()], // the second agent message in a row: the cap (2)
      ["guest", "thanks all", to("D", "W", "R")],
      ["R", "you're welcome, docs-writer", to()],
    ]);
  });

  it("B-072 B-073 B-071 a human's reply to an agent's message addresses that agent (with any mention); an agent's reply to an agent, a reply to a human and a reply to one's own message address nobody", async () => {
    const chat = await openChat("Replies");
    await say(GUEST, chat, "@deploy-runner what broke?");
    const answer = await agentSays(D, chat, "the cache key changed");
    const followUp = await say(GUEST, chat, "thanks, and staging?", seqOf(answer.id));
    await agentSays(W, chat, "docs updated for that too", answer.id);
    await say(MAINTAINER, chat, "noted", followUp.seq);
    await say(MAINTAINER, chat, "@docs-writer and please add it to the changelog", seqOf(answer.id));
    const own = await agentSays(D, chat, "staging is fine");
    await agentSays(D, chat, "correction to my last message", own.id);
    expect(await seen(chat)).toEqual([
      ["guest", "@deploy-runner what broke?", to("D")],
      ["D", "the cache key changed", to()],
      ["guest", "thanks, and staging?", to("D")],
      ["W", "docs updated for that too", to()],
      ["maintainer", "noted", to()],
      ["maintainer", "@docs-writer and please add it to the changelog", to("D", "W")],
      ["D", "staging is fine", to()],
      ["D", "correction to my last message", to()],
    ]);
    const preview = { id: answer.id, senderId: D, senderType: "AGENT", preview: "the cache key changed" };
    expect((await messageAs(D, chat, "thanks, and staging?")).replyTo).toEqual(preview);
    expect((await messageAs(D, chat, "docs updated for that too")).replyTo).toEqual(preview);
  });

  it("B-066 B-068 B-069 B-077 OQ-B-08 the round cap: after max_agent_rounds agent messages in a row nobody is routed, mentions included, until a human writes; 0 lets agents answer humans only", async () => {
    for (const [cap, accept] of [
      [0, false],
      [1, false],
      [2, false],
      [3, false],
      [6, true],
    ] as const) {
      const chat = await openChat(
        `Cap ${cap}`,
        cap === 2 ? undefined : { max_agent_rounds: cap, ...(accept ? { accept_token_cost: true } : {}) },
        [D, W],
      );
      await say(GUEST, chat, "@deploy-runner start");
      // D and W hand the turn back and forth, each hop an @mention; hop i is the i-th agent message in a row.
      const hops = Math.max(cap + 1, 2);
      for (let i = 1; i <= hops; i++)
        await agentSays(i % 2 === 1 ? D : W, chat, `${i % 2 === 1 ? "@docs-writer" : "@deploy-runner"} hop ${i}`);
      await say(GUEST, chat, "@docs-writer over to you");
      await agentSays(W, chat, "@deploy-runner after the human");
      const hop = (i: number): [string, string, Partial<Record<Alias, boolean>>] => [
        i % 2 === 1 ? "D" : "W",
        `${i % 2 === 1 ? "@docs-writer" : "@deploy-runner"} hop ${i}`,
        { D: i % 2 === 0 && i < cap, W: i % 2 === 1 && i < cap },
      ];
      expect([cap, await seen(chat)]).toEqual([
        cap,
        [
          ["guest", "@deploy-runner start", { D: true, W: false }],
          ...Array.from({ length: hops }, (_, k) => hop(k + 1)),
          ["guest", "@docs-writer over to you", { D: false, W: true }], // B-069: a human speaking releases the cap
          ["W", "@deploy-runner after the human", { D: 1 < cap, W: false }],
        ],
      ]);
      const envelope = await context(D, chat);
      expect(envelope.policy.maxAgentRounds).toBe(cap);
      expect(lineOf(envelope.instructions, "Round cap:")).toBe(
        cap === 0
          ? "Round cap: 0 — agents do not answer each other; wait for a human."
          : `Round cap: after ${cap} agent messages in a row without a human, no agent answers until a human writes again — mentions included.`,
      );
    }
  });

  it("B-068 the cap holds under DEDICATED and ORCHESTRATOR too, and a human message after it routes by the policy again", async () => {
    for (const policy of ["DEDICATED", "ORCHESTRATOR"] as const) {
      const chat = await openChat(`Cap under ${policy}`, { reply_policy: policy, designated_agent_id: D });
      await say(GUEST, chat, "status?");
      await agentSays(D, chat, "@docs-writer your part?");
      await agentSays(W, chat, "@deploy-runner done, and @pr-reviewer look");
      await agentSays(R, chat, "@deploy-runner looked");
      await say(GUEST, chat, "and now?");
      expect([policy, await seen(chat)]).toEqual([
        policy,
        [
          ["guest", "status?", to("D")],
          ["D", "@docs-writer your part?", to("W")],
          ["W", "@deploy-runner done, and @pr-reviewer look", to()],
          ["R", "@deploy-runner looked", to()],
          ["guest", "and now?", to("D")],
        ],
      ]);
    }
  });

  it("B-063 an agent cannot write metadata.addressedAgents itself; nothing is written", async () => {
    const chat = await openChat("Forged addressing", undefined, [D, W]);
    const events = await hub.db.event.count();
    expect(
      await agentApi("POST", `/conversations/${chat.key}/messages`, tok(D), {
        content: "wake up",
        metadata: { addressedAgents: [W] },
      }),
    ).toEqual({
      status: 400,
      body: {
        error: "metadata.addressedAgents is set by the hub",
        code: "INVALID_REQUEST",
        fields: { "metadata.addressedAgents": "server_set" },
      },
    });
    expect(await hub.db.event.count()).toBe(events);
  });

  it("B-061 B-062 B-063 B-083 a word several agents' names share addresses all of them; a whole name, written or @mentioned, addresses its own agent only, never another agent sharing one of its words", async () => {
    const chat = await openChat("Shared words", undefined, [B, T, W]);
    await say(GUEST, chat, "Runner, status?");
    await say(GUEST, chat, "build-runner, status?");
    await say(GUEST, chat, "@build-runner is the artifact ready?");
    await say(GUEST, chat, "test-runner and docs-writer, sync up");
    expect(await seen(chat)).toEqual([
      ["guest", "Runner, status?", { B: true, T: true, W: false }], // B-062: all the name fits
      ["guest", "build-runner, status?", { B: true, T: false, W: false }],
      ["guest", "@build-runner is the artifact ready?", { B: true, T: false, W: false }],
      ["guest", "test-runner and docs-writer, sync up", { B: false, T: true, W: true }],
    ]);
    const shared = await messageAs(W, chat, "Runner, status?");
    expect({
      mentions: shared.mentions,
      addressed: [...((shared.metadata?.addressedAgents as string[]) ?? [])].sort(),
    }).toEqual({ mentions: [], addressed: [B, T] });
    expect(addressing(await messageAs(W, chat, "build-runner, status?"))).toEqual({
      mentions: [],
      metadata: { addressedAgents: [B] },
    });
    expect(addressing(await messageAs(W, chat, "@build-runner is the artifact ready?"))).toEqual({
      mentions: [B],
      metadata: null,
    });
  });

  it("B-063 B-085 an @mention, by handle or by the exact roster name, is a mention and not a name: addressedAgents stays unset", async () => {
    const chat = await openChat("Mentions are not names", { reply_policy: "ORCHESTRATOR", designated_agent_id: D });
    await say(GUEST, chat, "@guest/docs-writer please fix the typo");
    await say(GUEST, chat, "@docs-writer and the other typo");
    expect(await seen(chat)).toEqual([
      ["guest", "@guest/docs-writer please fix the typo", to("W")],
      ["guest", "@docs-writer and the other typo", to("W")],
    ]);
    // §4: addressedAgents holds the agents a human wrote "with no @"; mentions is the @-record.
    expect(addressing(await messageAs(D, chat, "@guest/docs-writer please fix the typo"))).toEqual({
      mentions: [W],
      metadata: null,
    });
    expect(addressing(await messageAs(D, chat, "@docs-writer and the other typo"))).toEqual({
      mentions: [W],
      metadata: null,
    });
  });
});

describe("direct conversations (B-046 B-047)", () => {
  it("B-046 B-047 B-071 every human message wakes the agent — no policy, no mention gating, no round cap; its own messages never; effectiveRule EVERY_USER_MESSAGE", async () => {
    const rooms = await agentApi("GET", "/conversations", tok(D));
    const key = (
      rooms.body.conversations as { id: string; type: string; maity: { project: string; id: string } }[]
    ).find((r) => r.type === "DM" && r.maity.project === "maintainer/lab" && r.maity.id === D)?.id;
    if (!key) throw new Error("no direct conversation");
    const chat: Chat = {
      id: D,
      key,
      since: new Date(Date.now() - 1000).toISOString(),
      agents: [D],
      cursors: { [D]: (await agentApi("GET", "/updates?wait=0", tok(D))).body.cursor },
    };
    await say(MAINTAINER, chat, "hello there");
    await agentSays(D, chat, "hi");
    await agentSays(D, chat, "anything else?");
    await agentSays(D, chat, "still here");
    await say(MAINTAINER, chat, "@docs-writer is not here, you answer");
    await say(MAINTAINER, chat, "deploy please");
    expect(await seen(chat)).toEqual([
      ["maintainer", "hello there", { D: true }],
      ["D", "hi", { D: false }],
      ["D", "anything else?", { D: false }],
      ["D", "still here", { D: false }],
      ["maintainer", "@docs-writer is not here, you answer", { D: true }],
      ["maintainer", "deploy please", { D: true }],
    ]);
    const envelope = await context(D, chat);
    expect({
      conversation: envelope.conversation,
      policy: envelope.policy,
      you: envelope.you,
      instructions: envelope.instructions,
    }).toEqual({
      conversation: { id: key, type: "DM", title: null },
      policy: { rule: null, effectiveRule: "EVERY_USER_MESSAGE", policyApplies: false, maxAgentRounds: null },
      you: { id: D, name: NAME[D], isOrchestrator: false },
      instructions: `You are "${NAME[D]}", an agent in a direct conversation.\nThere is no reply policy, no orchestrator and no round cap here: answer every human message.`,
    });
    expect((await poll(D, chat)).context).toEqual(envelope);
  });
});

describe("the context envelope agrees with the verdicts (B-044 B-057)", () => {
  const POLICY_LINE: Record<string, (you: string, designated: string | null) => string> = {
    MENTIONS: () =>
      "Reply policy MENTIONS: Reply only when a message @mentions you, when a person names you, or when a person replies to one of your messages. Otherwise stay silent.",
    DEDICATED: (you, designated) =>
      you === designated
        ? "Reply policy DEDICATED: You are the designated agent: answer every human message that does not address another agent. Other agents reply only when addressed."
        : `Reply policy DEDICATED: ${NAME[designated ?? ""]} is the designated agent and answers unaddressed human messages. Reply only when a message @mentions you, when a person names you, or when a person replies to one of your messages.`,
    ORCHESTRATOR: (you, designated) =>
      you === designated
        ? "Reply policy ORCHESTRATOR: You are the orchestrator: answer unaddressed human messages yourself or delegate to a specialist by @mentioning it. A name written without @ is a hint for you, not a delegation."
        : `Reply policy ORCHESTRATOR: You are a specialist: reply only when a message @mentions you (${NAME[designated ?? ""]} delegates that way) or a person replies to one of your messages. Being named without @ does not authorize you to reply.`,
    ROUTER: (you, designated) =>
      `Reply policy ROUTER: An automatic router picks which agents answer each human message. Reply when the router selects you, or when a message @mentions you, when a person names you, or when a person replies to one of your messages.${you === designated ? " You are the fallback: you answer when the router picks no one." : ""}`,
    OPEN: () =>
      "Reply policy OPEN: Every human message is open to every agent: that is permission, not obligation. Answer only when the message is genuinely yours; do not agree with, acknowledge or restate another agent. Keep to one message per turn.",
  };
  const ROLE: Record<string, string> = { ORCHESTRATOR: "orchestrator", DEDICATED: "designated", ROUTER: "fallback" };

  it("B-044 B-057 B-037 per policy: rule, effectiveRule, you.isOrchestrator, roles and the policy, orchestrator, delegation and round-cap lines match who an unaddressed human message routes to", async () => {
    const chat = await openChat("Envelope per policy");
    const expectedRouting: Record<string, Alias[]> = {
      MENTIONS: [],
      DEDICATED: ["W"],
      ORCHESTRATOR: ["W"],
      ROUTER: ["W"],
      OPEN: ["D", "W", "R"],
    };
    for (const [policy, designated] of [
      ["MENTIONS", null],
      ["DEDICATED", W],
      ["ORCHESTRATOR", W],
      ["ROUTER", W],
      ["OPEN", null],
    ] as const) {
      expect(
        (
          await patch(MAINTAINER, chat.id, {
            reply_policy: policy,
            ...(designated ? { designated_agent_id: designated } : {}),
          })
        ).status,
      ).toBe(200);
      const content = `unaddressed question under ${policy.toLowerCase()}`;
      await say(GUEST, chat, content);
      const routed: Alias[] = [];
      for (const agent of chat.agents) {
        const { messages, context: embedded } = await poll(agent, chat);
        const envelope = await context(agent, chat);
        expect(embedded).toEqual(envelope); // B-037: the poll embeds the same envelope
        if (messages.find((m) => m.content === content)?.shouldRespond) routed.push(ALIAS[agent] as Alias);
        const orchestrator = policy === "ORCHESTRATOR" && agent === designated;
        const delegates = agent === designated && (policy === "ORCHESTRATOR" || policy === "DEDICATED");
        expect([policy, agent, envelope.policy, envelope.you]).toEqual([
          policy,
          agent,
          { rule: policy, effectiveRule: policy, policyApplies: true, maxAgentRounds: 2 },
          { id: agent, name: NAME[agent], isOrchestrator: orchestrator },
        ]);
        expect(Object.fromEntries(envelope.participants.map((p) => [p.id, p.role]))).toEqual({
          [MAINTAINER]: "creator",
          [GUEST]: "member",
          [D]: "member",
          [W]: designated === W ? (ROLE[policy] ?? "member") : "member",
          [R]: "member",
        });
        const text = envelope.instructions;
        expect([
          lineOf(text, "The orchestrator is") ?? lineOf(text, "There is no orchestrator"),
          lineOf(text, "Reply policy "),
          lineOf(text, "You can call:"),
          lineOf(text, "Round cap:"),
        ]).toEqual([
          policy === "ORCHESTRATOR" ? `The orchestrator is ${NAME[W]}.` : "There is no orchestrator in this chat.",
          POLICY_LINE[policy]?.(agent, designated),
          delegates
            ? `You can call: @${NAME[D]}, @${NAME[R]}. Write the @mention with the exact name; the mentioned agent is woken and answers.`
            : undefined,
          "Round cap: after 2 agent messages in a row without a human, no agent answers until a human writes again — mentions included.",
        ]);
        expect(text.includes(`- ${NAME[W]} (agent, orchestrator`)).toBe(policy === "ORCHESTRATOR");
      }
      // The agent the envelope names (orchestrator, designated, fallback) is the one the hub routes to.
      expect([policy, routed]).toEqual([policy, expectedRouting[policy]]);
    }
  });

  it.each([
    {
      policy: "MENTIONS",
      designated: null,
      body: "docs-writer, is the changelog done?",
      agent: W,
      silencing: "Reply only when a message @mentions you.",
    },
    {
      policy: "MENTIONS",
      designated: null,
      body: "thanks for the changelog",
      agent: W,
      silencing: "Reply only when a message @mentions you.",
    },
    {
      policy: "DEDICATED",
      designated: D,
      body: "pr-reviewer, thoughts on the PR?",
      agent: R,
      silencing: "Reply only when a message @mentions you.",
    },
    {
      policy: "ORCHESTRATOR",
      designated: D,
      body: "@pr-reviewer please review the PR",
      agent: R,
      silencing: `stay silent unless ${NAME[D]} @mentions you`,
    },
    {
      policy: "ORCHESTRATOR",
      designated: D,
      body: "thanks for the review",
      agent: R,
      silencing: `stay silent unless ${NAME[D]} @mentions you`,
    },
  ] as const)(
    "B-044 B-054 B-072 OQ-B-09 OQ-B-11 $policy: an agent the hub routes $body to is not told by its instructions to stay silent",
    async ({ policy, designated, body, agent, silencing }) => {
      const chat = await openChat(`Contradiction ${policy} ${body}`, {
        reply_policy: policy,
        ...(designated ? { designated_agent_id: designated } : {}),
      });
      // "thanks for …" is a human's reply to that agent's earlier message (B-072).
      const earlier = body.startsWith("thanks") ? await agentSays(agent, chat, "here is my part") : null;
      await say(GUEST, chat, body, earlier ? seqOf(earlier.id) : undefined);
      expect((await messageAs(agent, chat, body)).shouldRespond).toBe(true);
      const policyLine = lineOf((await context(agent, chat)).instructions, "Reply policy ") ?? "";
      expect(policyLine).not.toContain(silencing);
    },
  );
});
