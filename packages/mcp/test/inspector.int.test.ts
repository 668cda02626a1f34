import { execFile } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, startHub, type TestHub } from "./hub.ts";
import { REMOTE_TOOLS } from "./tools.ts";

// A stock client, not ours: @modelcontextprotocol/inspector-cli (the MCP Inspector's CLI mode,
// from npm, no binaries downloaded) against POST /api/mcp with the bearer header, as
//   mcp-inspector-cli --cli <url>/api/mcp --transport http --header "Authorization: Bearer bay_…"
//     --method tools/list | --method tools/call --tool-name send_message --tool-arg k=v …

const run = promisify(execFile);
const modules = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../node_modules");
const bin = path.join(modules, ".bin/mcp-inspector-cli");
// inspector-cli 1.0.3 checks for its own package.json relative to the working directory but
// imports it relative to its module: run it from its build folder so the two agree.
const cwd = path.join(realpathSync(path.join(modules, "@modelcontextprotocol/inspector-cli")), "build");

let t: TestHub;
beforeAll(async () => {
  t = await startHub();
});
afterAll(() => t.close());

async function inspector(...args: string[]) {
  const auth = `Authorization: Bearer ${t.tokens.agent}`;
  const base = ["--cli", `${t.api.url}/api/mcp`, "--transport", "http", "--header", auth];
  const { stdout } = await run(bin, [...base, ...args], { cwd, timeout: 60_000 });
  return JSON.parse(stdout);
}

describe("the MCP Inspector CLI against /api/mcp (B-348)", () => {
  it("B-348 B-212 tools/list lists the remote endpoint's tools with their input schemas", async () => {
    const listed = await inspector("--method", "tools/list");
    const names = (listed.tools as { name: string }[]).map((tool) => tool.name).sort();
    expect(names).toEqual(REMOTE_TOOLS);
    const tools = listed.tools as { name: string; inputSchema: { required: string[] } }[];
    const send = tools.find((x) => x.name === "send_message");
    expect(send?.inputSchema.required).toEqual(expect.arrayContaining(["conversationId", "content"]));
  });

  it("B-348 tools/call send_message posts a message a person reads in Maity", async () => {
    const rooms = await inspector("--method", "tools/call", "--tool-name", "list_conversations");
    const group = rooms.structuredContent.conversations.find((r: { type: string }) => r.type === "GROUP");
    const content = `sent by the inspector ${Date.now()}`;
    const sent = await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "send_message",
      "--tool-arg",
      `conversationId=${group.id}`,
      `content=${content}`,
    );
    expect(sent.isError).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ content, senderId: "agt-a" });
    const human = await t.rest("GET", `${PROJECT}/conversations/${group.maity.id}/messages`, { token: t.tokens.human });
    expect(human.body.items).toContainEqual(expect.objectContaining({ from: "agt-a", body: content }));
  });
});
