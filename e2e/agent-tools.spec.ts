import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { connect } from "../packages/client/src/index.ts";
import { maity } from "./clients";
import { admin, as } from "./helpers";

// The agent's tools on the shipped server (`pnpm start`, as README says): the real `maity` binary
// pairs, sends and watches; the SDK's event iterator reads over /ws; the MCP endpoint answers a
// stock client. What users run, after the other specs' traffic.

const root = path.resolve(import.meta.dirname, "..");
const M = "/api/projects/maintainer/maity";

test("the maity CLI pairs with the shipped hub, sends, watches; the SDK's events() hears a human over /ws", async ({
  request,
  baseURL,
}) => {
  const url = baseURL as string;
  await admin(request, "POST", "/agents", { owner: "maintainer", handle: "toolbox", description: "Tries the tools." });
  await admin(request, "POST", "/projects/maintainer/maity/members", { member_id: "agt-toolbox" });
  const { token: human } = await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" });
  const minted = await as(request, human, "POST", "/api/agents/agt-toolbox/pairing-codes");
  expect(minted.status).toBe(201);

  // B-017: pair writes the credentials 0600 in a 0700 folder and never prints the token.
  const home = mkdtempSync(path.join(tmpdir(), "maity-e2e-cli-"));
  const env = { HOME: home, MAITY_CONFIG_DIR: path.join(home, ".maity"), TZ: "UTC" };
  const paired = await maity(["pair", minted.body.code, "--url", url], env);
  expect(paired.code, paired.stderr).toBe(0);
  const file = path.join(home, ".maity", "credentials.json");
  const credential = JSON.parse(readFileSync(file, "utf8")) as {
    baseUrl: string;
    token: string;
    agent: { id: string };
  };
  expect(credential).toMatchObject({ baseUrl: url, agent: { id: "agt-toolbox" } });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  expect(paired.stdout + paired.stderr).not.toContain(credential.token);

  // The agent's direct conversation with its owner (every agent has one per project).
  const rooms = (await maity(["conversations", "--json"], env)).stdout;
  const dm = (
    JSON.parse(rooms) as { conversations: { id: string; type: string; maity: { project: string } }[] }
  ).conversations.find((r) => r.type === "DM" && r.maity.project === "maintainer/maity")?.id as string;
  expect(dm).toBeTruthy();

  // The SDK over /ws on the shipped server (the upgrade goes through apps/web/server.ts).
  const agent = connect({ baseUrl: url, token: credential.token });
  const stop = new AbortController();
  const heard: string[] = [];
  const listening = (async () => {
    for await (const event of agent.events({ signal: stop.signal, transport: "ws" })) {
      heard.push(event.message.content);
      if (heard.length === 2) break;
    }
  })();

  // B-093, B-092: the first watch anchors at now (no history) and times out quietly: exit 2.
  const quiet = await maity(["watch", dm, "--interval", "1", "--timeout", "2"], env);
  expect(quiet).toMatchObject({ code: 2, stdout: "" });
  const said = `A human line ${Date.now()}`;
  expect((await as(request, human, "POST", `${M}/conversations/agt-toolbox/messages`, { body: said })).status).toBe(
    201,
  );
  const woke = await maity(["watch", dm, "--interval", "1", "--timeout", "30"], env);
  expect(woke.code, woke.stderr).toBe(0);
  expect(woke.stdout).toMatch(
    new RegExp(`^\\[\\d\\d:\\d\\d\\] Maintainer \\(\\w+\\): ${said} → you should respond\\n$`),
  );

  // B-115: send; the human reads it back over REST.
  const reply = `Answered from the CLI ${Date.now()}`;
  const sent = await maity(["send", dm, reply], env);
  expect(sent.code, sent.stderr).toBe(0);
  const read = await as(request, human, "GET", `${M}/conversations/agt-toolbox/messages?limit=5`);
  expect(read.body.items.map((m: { body: string }) => m.body)).toContain(reply);

  await listening;
  stop.abort();
  expect(heard).toEqual([said, reply]);
});

test("MCP on the shipped server: the SDK client over POST /api/mcp and over `maity mcp` (stdio) lists the tools and sends", async ({
  request,
  baseURL,
}) => {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const url = baseURL as string;
  await admin(request, "POST", "/agents", { owner: "maintainer", handle: "mcp-e2e", description: "Speaks MCP." });
  await admin(request, "POST", "/projects/maintainer/maity/members", { member_id: "agt-mcp-e2e" });
  const { token } = await admin(request, "POST", "/tokens", { member_id: "agt-mcp-e2e" });
  const { token: human } = await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" });
  // Files, polls and reactions on both; uploading and downloading local files only over stdio (B-212).
  const tools = [
    "contact_agent",
    "create_note",
    "create_poll",
    "get_conversation_summary",
    "get_file",
    "get_messages",
    "get_note",
    "get_project",
    "get_room_context",
    "join_session_group",
    "list_agents",
    "list_conversations",
    "list_files",
    "list_notes",
    "react_to_message",
    "remove_reaction",
    "search_messages",
    "send_message",
    "set_typing",
    "update_note",
    "vote_in_poll",
  ];
  const localOnly = ["download_attachment", "upload_file"];

  const remote = new Client({ name: "e2e", version: "1" });
  await remote.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  expect(remote.getServerVersion()?.version).toBe("1.23"); // B-030
  expect((await remote.listTools()).tools.map((t) => t.name).sort()).toEqual(tools);
  const said = `Sent over /api/mcp ${Date.now()}`;
  const sent = await remote.callTool({
    name: "send_message",
    arguments: { conversationId: await dmOf(remote), content: said },
  });
  expect(sent.isError ?? false).toBe(false);
  await remote.close();

  const home = mkdtempSync(path.join(tmpdir(), "maity-e2e-mcp-"));
  const local = new Client({ name: "e2e-stdio", version: "1" });
  await local.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [path.join(root, "packages/cli/bin/maity.mjs"), "mcp"],
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: home, MAITY_TOKEN: token, MAITY_API_URL: url },
      stderr: "ignore",
    }),
  );
  expect((await local.listTools()).tools.map((t) => t.name).sort()).toEqual([...tools, ...localOnly].sort());
  const protocol = await local.readResource({ uri: "maity://protocol" });
  expect(JSON.stringify(protocol.contents[0])).toContain("Protocol v1.23");
  const also = `Sent over maity mcp ${Date.now()}`;
  expect(
    (await local.callTool({ name: "send_message", arguments: { conversationId: await dmOf(local), content: also } }))
      .isError ?? false,
  ).toBe(false);
  await local.close();

  // A human reads both over REST.
  const read = await as(request, human, "GET", `${M}/conversations/agt-mcp-e2e/messages?limit=5`);
  expect(read.body.items.map((m: { body: string }) => m.body)).toEqual(expect.arrayContaining([said, also]));
});

/** The agent's direct conversation in maintainer/maity, through the list_conversations tool. */
async function dmOf(client: {
  callTool(p: { name: string; arguments: object }): Promise<{ structuredContent?: unknown }>;
}): Promise<string> {
  const listed = await client.callTool({ name: "list_conversations", arguments: {} });
  const rooms = (
    listed.structuredContent as { conversations: { id: string; type: string; maity: { project: string } }[] }
  ).conversations;
  return rooms.find((r) => r.type === "DM" && r.maity.project === "maintainer/maity")?.id as string;
}
