import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ApiServer, startApiServer } from "@maity/api/node";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, createWithVisitors, testHub, trpcBrowser } from "../../api/test/helpers.ts";
import { BIN, run, start, tempDir } from "./helpers.ts";

// The `maity` agent CLI (004 §2, §4–§5, §7), run as the real binary against a real hub on
// 127.0.0.1: credentials and environment, pairing and reverse linking, reading the room (anchor,
// cursor, line format, markers), watch's exit codes, send, listen, the Claude Code hook, errors.

const hub = await testHub({ limits: { agent: 10_000, updates: 10_000, ws: 10_000, preauth: 10_000 } });
let api: ApiServer;
const P = "/api/projects/maintainer/maity";
const T: Record<string, string> = {};

async function http(method: string, route: string, options: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${api.url}${route}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
async function mintToken(memberId: string): Promise<string> {
  const minted = await http("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: memberId } });
  expect(minted.status).toBe(201);
  return minted.body.token;
}
async function newAgent(handle: string): Promise<{ id: string; name: string }> {
  const created = await http("POST", "/api/admin/agents", { token: ADMIN, body: { owner: "maintainer", handle } });
  expect(created.status).toBe(201);
  return { id: created.body.id, name: created.body.name };
}
/** A group chat of the maintainer with agent-a and agent-x; its id for agents (the key) and for Maity. */
async function newChat(title: string, patch?: Record<string, unknown>): Promise<{ id: string; key: string }> {
  // guest places its agent-x, a visitor here (B-300).
  const created = await createWithVisitors(http, P, (id) => T[id] as string, "hum-maintainer", {
    title,
    participants: ["agt-a", "agt-x"],
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  if (patch)
    expect((await http("PATCH", `${P}/conversations/${id}`, { token: T.maintainer, body: patch })).status).toBe(200);
  const rooms = await http("GET", "/api/agent-api/conversations", { token: T["agt-a"] });
  const key = (rooms.body.conversations as { id: string; maity: { id: string } }[]).find((r) => r.maity.id === id)?.id;
  if (!key) throw new Error(`${title} is not a room of agt-a`);
  return { id, key };
}
async function humanSays(chat: { id: string }, body: string): Promise<{ seq: number }> {
  const res = await http("POST", `${P}/conversations/${chat.id}/messages`, { token: T.maintainer, body: { body } });
  expect(res.status).toBe(201);
  return res.body;
}
async function agentSays(
  agent: string,
  chat: { key: string },
  content: string,
): Promise<{ id: string; createdAt: string }> {
  const res = await http("POST", `/api/agent-api/conversations/${chat.key}/messages`, {
    token: T[agent],
    body: { content },
  });
  expect(res.status).toBe(201);
  return res.body;
}
/** agt-a's history of the room (newest first; marks nothing read), to know each message's time and id. */
async function history(chat: { key: string }): Promise<{ id: string; content: string; createdAt: string }[]> {
  const res = await http("GET", `/api/agent-api/conversations/${chat.key}/messages?limit=50`, { token: T["agt-a"] });
  expect(res.status).toBe(200);
  return res.body.messages;
}
const hhmm = (iso: string) => new Date(iso).toISOString().slice(11, 16);
const modeOf = (file: string) => statSync(file).mode & 0o777;
/** An environment that reaches the hub with a bare token (B-022) and its own config folder. */
const tokenEnv = (agent: string, dir = tempDir("token")) => ({
  HOME: dir,
  MAITY_CONFIG_DIR: path.join(dir, "cfg"),
  MAITY_TOKEN: T[agent] ?? "",
  MAITY_API_URL: api.url,
});

beforeAll(async () => {
  await seedDemo(hub);
  api = await startApiServer(hub, { adminToken: ADMIN });
  for (const id of ["hum-maintainer", "hum-guest", "agt-a", "agt-x"]) T[id] = await mintToken(id);
  T.maintainer = T["hum-maintainer"] ?? "";
});
afterAll(async () => {
  await api?.close();
  await hub.close();
});

describe("credentials and environment (004 §2)", () => {
  it("B-017 B-020 B-021 maity pair writes {baseUrl, token, agent} with mode 0600 in a 0700 folder and never prints the token", async () => {
    const agent = await newAgent("cli-pair");
    const minted = await http("POST", `/api/agents/${agent.id}/pairing-codes`, { token: T.maintainer });
    expect(minted.status).toBe(201);
    const home = tempDir("pair");
    const dir = path.join(home, "nested", "cfg");
    const paired = await run(["pair", minted.body.code, "--url", api.url], { HOME: home, MAITY_CONFIG_DIR: dir });
    expect(paired.code).toBe(0);
    const file = path.join(dir, "credentials.json");
    const credentials = JSON.parse(readFileSync(file, "utf8"));
    expect(credentials).toEqual({ baseUrl: api.url, token: expect.stringMatching(/^bay_/), agent });
    expect(Object.keys(credentials)).toEqual(["baseUrl", "token", "agent"]);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(dir)).toBe(0o700);
    expect(paired.stdout).toBe(`paired as ${agent.name} (${agent.id}) on ${api.url}; credentials in ${file}\n`);
    expect(paired.stdout + paired.stderr).not.toContain(credentials.token);

    // The file is what every later command uses; whoami (text and --json) shows who, never the token.
    for (const args of [["whoami"], ["whoami", "--json"]]) {
      const who = await run(args, { HOME: home, MAITY_CONFIG_DIR: dir });
      expect(who.code).toBe(0);
      expect(who.stdout).toContain(agent.id);
      expect(who.stdout + who.stderr).not.toContain(credentials.token);
    }
  });

  it("B-017 without MAITY_CONFIG_DIR the credentials go to ~/.maity (0700)", async () => {
    const agent = await newAgent("cli-home");
    const minted = await http("POST", `/api/agents/${agent.id}/pairing-codes`, { token: T.maintainer });
    const home = tempDir("home");
    const paired = await run(["pair", minted.body.code], { HOME: home, MAITY_API_URL: api.url });
    expect(paired.code).toBe(0);
    expect(modeOf(path.join(home, ".maity"))).toBe(0o700);
    expect(modeOf(path.join(home, ".maity", "credentials.json"))).toBe(0o600);
  });

  it("B-022 B-023 B-024 MAITY_TOKEN short-circuits the credentials file: a broken file there is not read", async () => {
    const env = tokenEnv("agt-a");
    const broken = tempDir("broken");
    writeFileSync(path.join(broken, "credentials.json"), "{ this is not json");
    const who = await run(["whoami", "--json"], { ...env, MAITY_CONFIG_DIR: broken });
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ id: "agt-a", baseUrl: api.url, credentials: "env" });
    // Without the token the same folder is read, and its fault is one line.
    const refused = await run(["whoami"], { HOME: broken, MAITY_CONFIG_DIR: broken, MAITY_API_URL: api.url });
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: ${path.join(broken, "credentials.json")} is not valid JSON: run maity pair <code> or maity link again\n`,
    });
  });

  it("B-021 B-022 B-023 B-025 BAYCHAT_TOKEN, BAYCHAT_API_URL and BAYCHAT_CONFIG_DIR are accepted; MAITY_* wins", async () => {
    const dir = tempDir("baychat");
    const who = await run(["whoami", "--json"], {
      HOME: dir,
      BAYCHAT_CONFIG_DIR: dir,
      BAYCHAT_TOKEN: T["agt-x"] ?? "",
      BAYCHAT_API_URL: api.url,
    });
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ id: "agt-x", baseUrl: api.url });
    const both = await run(["whoami", "--json"], {
      HOME: dir,
      MAITY_TOKEN: T["agt-a"] ?? "",
      BAYCHAT_TOKEN: "bay_wrong",
      MAITY_API_URL: api.url,
      BAYCHAT_API_URL: "http://127.0.0.1:1",
    });
    expect(JSON.parse(both.stdout)).toMatchObject({ id: "agt-a", baseUrl: api.url });
  });

  it("B-025 MAITY_API_URL overrides the credentials file's baseUrl", async () => {
    const dir = tempDir("override");
    writeFileSync(
      path.join(dir, "credentials.json"),
      JSON.stringify({ baseUrl: "http://127.0.0.1:1", token: T["agt-a"], agent: { id: "agt-a", name: "agent-a" } }),
    );
    const unreachable = await run(["whoami"], { HOME: dir, MAITY_CONFIG_DIR: dir });
    expect(unreachable).toEqual({ code: 1, stdout: "", stderr: "error: cannot reach the hub at http://127.0.0.1:1\n" });
    const who = await run(["whoami", "--json"], { HOME: dir, MAITY_CONFIG_DIR: dir, MAITY_API_URL: api.url });
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ id: "agt-a", baseUrl: api.url, credentials: "file" });
  });

  it("B-035 whoami compares protocolVersion with the last one seen: minor → a quiet line, major → a loud warning, never a refusal", async () => {
    const env = tokenEnv("agt-a");
    const state = (version: string) =>
      writeFileSync(
        path.join(env.MAITY_CONFIG_DIR, "state.json"),
        JSON.stringify({ agents: { [`agt-a@${api.url}`]: { protocolVersion: version, cursors: {} } } }),
      );
    const first = await run(["whoami"], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("");
    expect(
      JSON.parse(readFileSync(path.join(env.MAITY_CONFIG_DIR, "state.json"), "utf8")).agents[`agt-a@${api.url}`]
        .protocolVersion,
    ).toBe("1.23");
    state("1.22");
    const minor = await run(["whoami"], env);
    expect(minor.code).toBe(0);
    expect(minor.stderr).toBe(
      "note: the hub speaks agent protocol 1.23 (last seen 1.22); its changelog says what is new\n",
    );
    state("0.9");
    const major = await run(["whoami"], env);
    expect(major.code).toBe(0);
    expect(major.stdout).toContain("agent-a (agt-a)");
    expect(major.stderr).toContain("WARNING: the hub's agent protocol changed MAJOR version: 0.9 → 1.23.");
    expect((await run(["whoami"], env)).stderr).toBe("");
  });
});

describe("reading the room (004 §4–§5)", () => {
  it("B-090 maity conversations prints one line per room: <id> [<type>] <title>", async () => {
    const listed = await run(["conversations"], tokenEnv("agt-x"));
    expect(listed.code).toBe(0);
    const rooms = (await http("GET", "/api/agent-api/conversations", { token: T["agt-x"] })).body.conversations as {
      id: string;
      type: string;
      title: string | null;
    }[];
    expect(listed.stdout).toBe(`${rooms.map((r) => `${r.id} [${r.type}] ${r.title ?? "(direct)"}`).join("\n")}\n`);
    expect(listed.stdout).toMatch(/^\S+ \[GROUP\] Release 0\.2 go\/no-go$/m);
    expect(listed.stdout).toMatch(/^\S+ \[DM\] \(direct\)$/m);
  });

  it("B-093 B-094 B-101 B-074 B-071 check anchors at now, then prints only what is new in the exact line format, without own or redacted messages", async () => {
    const chat = await newChat("CLI check", { max_agent_rounds: 0 });
    const env = tokenEnv("agt-a");
    await humanSays(chat, "history before the first check");
    const first = await run(["check", chat.key], env);
    expect(first).toEqual({
      code: 0,
      stdout: "",
      stderr: "cursor anchored at now: from here on, check prints what is new\n",
    });

    await humanSays(chat, "@agent-a please look at the build");
    await humanSays(chat, "plain hello to the room");
    const redacted = await humanSays(chat, "a message taken back");
    expect(
      (
        await http("POST", `${P}/conversations/${chat.id}/messages/${redacted.seq}/redact`, {
          token: T.maintainer,
          body: {},
        })
      ).status,
    ).toBe(200);
    // With no agent rounds left, agent-x's @mention of agent-a is recorded but not routed (B-074).
    await agentSays("agt-x", chat, "@agent-a over to you");
    const sent = await run(["send", chat.key, "my own words"], env);
    expect(sent.code).toBe(0);

    const second = await run(["check", chat.key], env);
    expect(second.code).toBe(0);
    const at = new Map((await history(chat)).map((m) => [m.content, hhmm(m.createdAt)]));
    expect(second.stdout).toBe(
      [
        `[${at.get("@agent-a please look at the build")}] Maintainer (creator): @agent-a please look at the build → you should respond`,
        `[${at.get("plain hello to the room")}] Maintainer (creator): plain hello to the room`,
        `[${at.get("@agent-a over to you")}] guest/agent-x (member): @agent-a over to you → you were mentioned`,
        "",
      ].join("\n"),
    );
    // The cursor moved: nothing twice; then only the newer message.
    expect(await run(["check", chat.key], env)).toEqual({ code: 0, stdout: "", stderr: "" });
    await humanSays(chat, "one more");
    const third = await run(["check", chat.key, "--json"], env);
    const answer = JSON.parse(third.stdout);
    expect(answer).toMatchObject({ conversationId: chat.key, anchored: false });
    expect(answer.messages.map((m: { content: string }) => m.content)).toEqual(["one more"]);
  });

  it("B-091 B-092 B-093 watch: a quiet timeout exits 2 (the first watch anchors: no history), a new message exits 0 with its line", async () => {
    const chat = await newChat("CLI watch");
    const env = tokenEnv("agt-a");
    await humanSays(chat, "old news");
    const quiet = await run(["watch", chat.key, "--interval", "0.2", "--timeout", "0.6"], env);
    expect(quiet).toEqual({ code: 2, stdout: "", stderr: "" });

    const watching = start(["watch", chat.key, "--interval", "0.2", "--timeout", "20"], env);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await humanSays(chat, "@agent-a are you there?");
    const done = await watching.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      /^\[\d\d:\d\d\] Maintainer \(creator\): @agent-a are you there\? → you should respond\n$/,
    );
  });

  it("B-115 send posts (with --reply-to) and a human reads it back over REST", async () => {
    const chat = await newChat("CLI send");
    await humanSays(chat, "question for the agent");
    const question = (await history(chat)).find((m) => m.content === "question for the agent");
    const sent = await run(
      ["send", chat.key, "the answer, from the CLI", "--reply-to", question?.id ?? ""],
      tokenEnv("agt-a"),
    );
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^sent evt-\d+ at \d\d:\d\d\n$/);
    const read = await http("GET", `${P}/conversations/${chat.id}/messages?after=0`, { token: T.maintainer });
    expect(read.status).toBe(200);
    const items = read.body.items as { body: string; sender_id?: string; reply_to?: unknown }[];
    const answer = items.find((m) => m.body === "the answer, from the CLI");
    expect(answer).toBeDefined();
    expect(JSON.stringify(answer)).toContain("agt-a");
  });

  it("listen prints every room's new messages, one line each with the conversation id, until Ctrl-C", async () => {
    const chat = await newChat("CLI listen");
    const listening = start(["listen"], tokenEnv("agt-a"));
    await listening.waitFor("stderr", /listening as maintainer\/agent-a \(agt-a\)/);
    // /updates without a cursor starts at the call: give the first one a moment to be held.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await humanSays(chat, "@agent-a hello, listener");
    await listening.waitFor("stdout", /hello, listener/);
    listening.child.kill("SIGINT");
    const done = await listening.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      new RegExp(
        `^${chat.key} \\[\\d\\d:\\d\\d\\] Maintainer \\(creator\\): @agent-a hello, listener → you should respond\\n$`,
      ),
    );
  });
});

describe("maity link: reverse QR linking (004 §2)", () => {
  it("B-017 B-020 link shows a QR code and the approve URL, polls until the owner approves over tRPC, writes the credentials; no token shown", async () => {
    const agent = await newAgent("cli-link");
    const home = tempDir("link");
    const dir = path.join(home, "cfg");
    const linking = start(["link", "--label", "cli test", "--url", api.url], { HOME: home, MAITY_CONFIG_DIR: dir });
    const [, approveUrl, code] = await linking.waitFor("stdout", /open (\S+) \(code (\S+)\)/);
    expect(approveUrl).toBe(`${api.url}/link/${code}`);
    expect(linking.stdout()).toMatch(/[▄▀█]{10}/);
    await linking.waitFor("stderr", /waiting for approval/);
    const browser = trpcBrowser(hub);
    expect((await browser.mutation("auth.login", { handle: "maintainer", password: "maintainer-demo" })).status).toBe(
      200,
    );
    expect((await browser.mutation("links.approve", { code, agent_id: agent.id })).status).toBe(200);
    const done = await linking.done;
    expect(done.code).toBe(0);
    const file = path.join(dir, "credentials.json");
    const credentials = JSON.parse(readFileSync(file, "utf8"));
    expect(credentials).toEqual({ baseUrl: api.url, token: expect.stringMatching(/^bay_/), agent });
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(dir)).toBe(0o700);
    expect(done.stdout).toContain(`paired as ${agent.name} (${agent.id})`);
    expect(done.stdout + done.stderr).not.toContain(credentials.token);
    const who = await run(["whoami", "--json"], { HOME: home, MAITY_CONFIG_DIR: dir });
    expect(JSON.parse(who.stdout)).toMatchObject({ id: agent.id });
  });
});

describe("maity hook: the wake contract for Claude Code", () => {
  it("B-071 prints nothing when nothing waits; the Stop JSON naming each routed message; no block when stop_hook_active; PostToolUse context", async () => {
    const chat = await newChat("CLI hook");
    const env = { ...tokenEnv("agt-a"), MAITY_HOOK_INTERVAL: "0" };
    const stop = JSON.stringify({ hook_event_name: "Stop", stop_hook_active: false, session_id: "s" });
    // The first run anchors at now: older messages are not handed over.
    await humanSays(chat, "@agent-a from before the hook");
    expect(await run(["hook"], env, { stdin: stop })).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await run(["hook"], env, { stdin: stop })).toEqual({ code: 0, stdout: "", stderr: "" });

    await humanSays(chat, "not for any agent in particular");
    await humanSays(chat, "@agent-a please answer this");
    const blocked = await run(["hook"], env, { stdin: stop });
    expect(blocked.code).toBe(0);
    const answer = JSON.parse(blocked.stdout);
    const message = (await history(chat)).find((m) => m.content === "@agent-a please answer this");
    expect(Object.keys(answer)).toEqual(["decision", "reason"]);
    expect(answer.decision).toBe("block");
    expect(answer.reason).toContain(
      `- [${hhmm(message?.createdAt ?? "")}] Maintainer (creator): @agent-a please answer this → you should respond`,
    );
    expect(answer.reason).toContain(`conversation ${chat.key} ("CLI hook"), message ${message?.id}`);
    expect(answer.reason).toContain("send_message");
    expect(answer.reason).not.toContain("not for any agent");
    expect(answer.reason).not.toContain("from before the hook");
    // Handed over once.
    expect(await run(["hook"], env, { stdin: stop })).toEqual({ code: 0, stdout: "", stderr: "" });

    // A stop that follows a blocked stop is never blocked again; the message waits for the next hook.
    await humanSays(chat, "@agent-a and this too");
    const again = JSON.stringify({ hook_event_name: "Stop", stop_hook_active: true });
    expect(await run(["hook"], env, { stdin: again })).toEqual({ code: 0, stdout: "", stderr: "" });
    const post = await run(["hook"], env, {
      stdin: JSON.stringify({ hook_event_name: "PostToolUse", tool_name: "Bash" }),
    });
    expect(post.code).toBe(0);
    const context = JSON.parse(post.stdout);
    expect(context).toEqual({
      hookSpecificOutput: {
        hookEventName: "PostToolUse",
        additionalContext: expect.stringContaining("@agent-a and this too → you should respond"),
      },
    });
  });

  it("B-275 B-276 B-277 B-278 the hook reports from the transcript: ring, throttle, tidy, fresh start", async () => {
    const chat = await newChat("CLI memory");
    const env = { ...tokenEnv("agt-a"), MAITY_HOOK_INTERVAL: "0" };
    const transcript = path.join(tempDir("transcript"), "session.jsonl");
    const lines: string[] = [];
    const write = (...entries: Record<string, unknown>[]) => {
      lines.push(...entries.map((e) => JSON.stringify(e)));
      writeFileSync(transcript, `${lines.join("\n")}\n`);
    };
    const turn = (cacheRead: number, extra: Record<string, unknown> = {}) => ({
      type: "assistant",
      isSidechain: false,
      message: {
        model: "claude-sonnet-4-5-20250929",
        usage: { input_tokens: 10, cache_creation_input_tokens: 990, cache_read_input_tokens: cacheRead },
      },
      ...extra,
    });
    const hookRun = (input: Record<string, unknown>) =>
      run(["hook"], env, {
        stdin: JSON.stringify({ session_id: "cc-1", transcript_path: transcript, cwd: "/w", ...input }),
      });
    const row = () => hub.db.agentContext.findUnique({ where: { agentId: "agt-a" } });
    const ring = async () => {
      const view = await http("GET", `${P}/conversations/${chat.id}`, { token: T.maintainer });
      return view.body.participants.find((p: { member_id: string }) => p.member_id === "agt-a").context;
    };
    const tidies = async () =>
      (
        await http("GET", `${P}/conversations/${chat.id}/messages?after=0&limit=200`, { token: T.maintainer })
      ).body.items
        .filter((m: { quiet?: { type: string } }) => m.quiet?.type === "context.compacted")
        .map((m: { body: string }) => m.body);
    const tidiesBefore = (await tidies()).length;

    // The latest main-chain call: 10 + 990 + 83,000 = 84,000 of 200,000 (a subagent's bigger call is not it).
    write(turn(50_000), turn(83_000), turn(170_000, { isSidechain: true }));
    expect(await hookRun({ hook_event_name: "PostToolUse", tool_name: "Bash" })).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
    expect(await ring()).toMatchObject({ percent: 42, source: "exact", runtime: "claude-code" });
    expect(Number((await row())?.used)).toBe(84_000);
    expect(Number((await row())?.size)).toBe(200_000);

    // B-278: the same whole percent within 15 s sends nothing; a whole point more sends at once.
    write(turn(83_500));
    expect((await hookRun({ hook_event_name: "PostToolUse" })).code).toBe(0);
    expect(Number((await row())?.used)).toBe(84_000);
    write(turn(85_000));
    expect((await hookRun({ hook_event_name: "Stop", stop_hook_active: false })).code).toBe(0);
    expect(Number((await row())?.used)).toBe(86_000);
    expect((await ring()).percent).toBe(43);

    // PreCompact: compact_start, and nothing printed (it takes no decision) even with a message waiting.
    await humanSays(chat, "@agent-a are you there?");
    expect(await hookRun({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "" })).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
    expect((await row())?.compactingSince).not.toBeNull();

    // SessionStart compact: compact_end from the boundary (188k) to the first call after it (12k): the tidy line;
    // the message that waited is handed over as context.
    write(
      {
        type: "system",
        subtype: "compact_boundary",
        uuid: "bnd-1",
        compactMetadata: { trigger: "manual", preTokens: 188_000 },
      },
      { type: "user", isCompactSummary: true, message: { role: "user", content: "summary" } },
      turn(11_000),
    );
    const compacted = await hookRun({ hook_event_name: "SessionStart", source: "compact" });
    expect(compacted.code).toBe(0);
    expect(compacted.stderr).toBe("");
    expect(JSON.parse(compacted.stdout).hookSpecificOutput).toMatchObject({
      hookEventName: "SessionStart",
      additionalContext: expect.stringContaining("@agent-a are you there? → you should respond"),
    });
    expect((await tidies()).slice(tidiesBefore)).toEqual(["agent-a tidied its memory · 188k → 12k"]);
    expect(await row()).toMatchObject({ compactingSince: null, percent: 6 });
    const compactions = (await row())?.compactions ?? 0;
    // The same compaction seen again (a second hook for it) is no second tidy.
    expect((await hookRun({ hook_event_name: "SessionStart", source: "compact" })).code).toBe(0);
    expect((await tidies()).slice(tidiesBefore)).toHaveLength(1);
    expect((await row())?.compactions).toBe(compactions);

    // SessionStart startup: session_start resets the count; resume reports no event.
    expect((await hookRun({ hook_event_name: "SessionStart", source: "startup" })).code).toBe(0);
    expect((await row())?.compactions).toBe(0);
  });

  it("maity hook --help: the settings.json naming this binary; --help elsewhere: the usage", async () => {
    const help = await run(["hook", "--help"], { HOME: tempDir("help") });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: maity hook /);
    expect(help.stdout).toContain(
      `"PreCompact": [{ "hooks": [{ "type": "command", "command": "node ${BIN} hook" }] }]`,
    );
    expect((await run(["help", "hook"], { HOME: tempDir("help") })).stdout).toBe(help.stdout);
    expect((await run(["whoami", "--help"], { HOME: tempDir("help") })).stdout).toMatch(/^usage: maity <command>/);
  });

  it("B-276 a report that fails is one stderr line, exit 0; the waiting messages are still handed over", async () => {
    const chat = await newChat("CLI memory errors");
    const env = { ...tokenEnv("agt-a"), MAITY_HOOK_INTERVAL: "0" };
    const dir = tempDir("transcript-bad");
    const stop = (transcript_path: string) => ({
      stdin: JSON.stringify({ hook_event_name: "Stop", stop_hook_active: false, transcript_path }),
    });
    expect((await run(["hook"], env, stop(dir))).code).toBe(0); // anchors; a folder is no transcript
    await humanSays(chat, "@agent-a still there?");
    // The transcript cannot be read (a folder): one line, and the messages are still handed over.
    const unreadable = await run(["hook"], env, stop(dir));
    expect(unreadable.code).toBe(0);
    expect(unreadable.stderr).toMatch(/^maity hook: context not reported: .*EISDIR.*\n$/);
    expect(JSON.parse(unreadable.stdout)).toMatchObject({
      decision: "block",
      reason: expect.stringContaining("@agent-a still there? → you should respond"),
    });
    // More than 1.5 × the window (MAITY_CONTEXT_SIZE too small): not sent, said once, not at every hook.
    const transcript = path.join(dir, "t.jsonl");
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: "assistant", message: { model: "m", usage: { input_tokens: 5_000 } } })}\n`,
    );
    const small = { ...env, MAITY_CONTEXT_SIZE: "1000" };
    const said = await run(["hook"], small, stop(transcript));
    expect(said).toEqual({
      code: 0,
      stdout: "",
      stderr:
        "maity hook: 5000 tokens used is over 1.5 × the window of 1000 (set MAITY_CONTEXT_SIZE?): " +
        "usage not reported\n",
    });
    expect(await run(["hook"], small, stop(transcript))).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});

describe("errors: one line on stderr, exit 1, never a stack", () => {
  it("B-161 a plain-http hub on another machine is refused before anything is sent; MAITY_ALLOW_INSECURE_HTTP=1 allows it", async () => {
    const dir = tempDir("insecure");
    const env = { HOME: dir, MAITY_CONFIG_DIR: path.join(dir, "cfg") };
    const refused = await run(["pair", "K7QM-2XHP-9RTA", "--url", "http://hub.invalid"], env);
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "error: refusing to send credentials over plain http to hub.invalid: use https (or allow it for a trusted network)\n",
    });
    const tokenOnly = await run(["conversations"], {
      ...env,
      MAITY_TOKEN: "bay_x",
      MAITY_API_URL: "http://hub.invalid",
    });
    expect(tokenOnly.code).toBe(1);
    expect(tokenOnly.stderr).toMatch(/^error: refusing to send credentials over plain http to hub.invalid/);
    // Allowed, it tries: the name does not resolve.
    const allowed = await run(["pair", "K7QM-2XHP-9RTA", "--url", "http://hub.invalid"], {
      ...env,
      MAITY_ALLOW_INSECURE_HTTP: "1",
    });
    expect(allowed).toEqual({ code: 1, stdout: "", stderr: "error: cannot reach the hub at http://hub.invalid\n" });
  });

  it("401 → token revoked or wrong; 403 NOT_PARTICIPANT; 404; an unreachable hub; a usage error exits 2 with the usage", async () => {
    const wrong = await run(["conversations"], { ...tokenEnv("agt-a"), MAITY_TOKEN: "bay_not_a_real_token" });
    expect(wrong).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: token revoked or wrong: check MAITY_TOKEN or run maity pair (401 UNAUTHORIZED)\n",
    });

    const xRooms = (await http("GET", "/api/agent-api/conversations", { token: T["agt-x"] })).body.conversations as {
      id: string;
      type: string;
    }[];
    const dmOfX = xRooms.find((r) => r.type === "DM")?.id ?? "";
    const notHers = await run(["context", dmOfX], tokenEnv("agt-a"));
    expect(notHers.code).toBe(1);
    expect(notHers.stderr).toBe(`error: you are not a participant of conversation ${dmOfX} (403 NOT_PARTICIPANT)\n`);

    const nowhere = await run(["send", "no-such-room", "hello"], tokenEnv("agt-a"));
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/^error: no conversation no-such-room that you are in .*\(404 NOT_FOUND\)\n$/);

    const unreachable = await run(["conversations"], { ...tokenEnv("agt-a"), MAITY_API_URL: "http://127.0.0.1:1" });
    expect(unreachable).toEqual({ code: 1, stdout: "", stderr: "error: cannot reach the hub at http://127.0.0.1:1\n" });

    const usage = await run(["watch"], tokenEnv("agt-a"));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^error: missing <conversation_id>\n\nusage: maity <command>/);

    for (const r of [wrong, notHers, nowhere, unreachable]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("B-017 a revoked token in the credentials file says to pair again", async () => {
    const dir = tempDir("revoked");
    const token = await mintToken("agt-x");
    writeFileSync(
      path.join(dir, "credentials.json"),
      JSON.stringify({ baseUrl: api.url, token, agent: { id: "agt-x", name: "agent-x" } }),
    );
    expect((await http("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } })).status).toBeLessThan(
      300,
    );
    const revoked = await run(["whoami"], { HOME: dir, MAITY_CONFIG_DIR: dir });
    expect(revoked).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: token revoked or wrong: run maity pair (401 UNAUTHORIZED)\n",
    });
  });

  it("B-027 B-030 maity mcp serves MCP on stdio with the CLI's credentials: stdout carries protocol frames only", async () => {
    const frames = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const r = await run(["mcp"], tokenEnv("agt-a"), { stdin: `${frames.map((f) => JSON.stringify(f)).join("\n")}\n` });
    const answers = r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[0].result.serverInfo.version).toBe("1.23");
    expect(answers[1].result.tools.map((t: { name: string }) => t.name)).toContain("send_message");
  });
});
