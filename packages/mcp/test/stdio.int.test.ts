import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentMessage } from "@maity/domain";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub, type TestHub } from "./hub.ts";
import { call, checkAgentTools, checkFileTools, checkPollAndReactionTools, checkServer, checkTools } from "./tools.ts";

// The local stdio server (`maity mcp`, 004 §2) as a client spawns it: the official SDK Client with
// StdioClientTransport running src/stdio-main.ts (tsx) against a real hub on 127.0.0.1. Any byte
// on stdout that is not a protocol frame would surface as a transport error here.

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsx = path.resolve(pkg, "../../node_modules/.bin/tsx");

let t: TestHub;
beforeAll(async () => {
  t = await startHub();
});
afterAll(() => t.close());

async function spawnServer(token: string) {
  const transport = new StdioClientTransport({
    command: tsx,
    args: ["src/stdio-main.ts"],
    cwd: pkg,
    env: { ...getDefaultEnvironment(), MAITY_TOKEN: token, MAITY_API_URL: t.api.url },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const errors: Error[] = [];
  const mcp = new Client({ name: "maity-test", version: "0" });
  mcp.onerror = (error) => errors.push(error);
  await mcp.connect(transport);
  return { mcp, errors, stderr: () => stderr };
}

describe("maity mcp over stdio (B-348; B-027: the token from MAITY_TOKEN)", () => {
  it("B-030 B-050 B-003 initialize: the protocol version, the instructions; maity://protocol reads back", async () => {
    const { mcp, errors } = await spawnServer(t.tokens.agent);
    await checkServer(mcp, true);
    await mcp.close();
    expect(errors).toEqual([]);
  });

  it("B-348 B-051 B-271 B-263 B-243 lists and calls every tool (get_project's brief as people's room text, the note tools); the message sent is read back by a person over REST", async () => {
    const { mcp, errors, stderr } = await spawnServer(t.tokens.agent);
    await checkTools(mcp, t);
    await mcp.close();
    expect(errors, stderr()).toEqual([]);
  });

  it("B-356 B-079 B-075 list_agents and contact_agent: peers listed, the contacted agent addressed, spent rounds refused in words", async () => {
    const { mcp, errors, stderr } = await spawnServer(t.tokens.agent);
    await checkAgentTools(mcp, t);
    await mcp.close();
    expect(errors, stderr()).toEqual([]);
  });

  it("B-226 B-228 B-235 create_poll, vote_in_poll, react_to_message over stdio", async () => {
    const { mcp, errors, stderr } = await spawnServer(t.tokens.agent);
    await checkPollAndReactionTools(mcp, t);
    await mcp.close();
    expect(errors, stderr()).toEqual([]);
  });

  it("B-211 B-213 B-214 B-215 B-216 upload_file, send_message files, download_attachment to a folder, suffixed", async () => {
    const { mcp, errors, stderr } = await spawnServer(t.tokens.agent);
    const { url, roomId } = await checkFileTools(mcp, t);
    const dir = mkdtempSync(path.join(tmpdir(), "maity-stdio-"));
    const notes = path.join(dir, "plan.txt");
    writeFileSync(notes, "the plan");
    const uploaded = await call(mcp, "upload_file", { path: notes });
    expect(uploaded.result.isError, uploaded.text).toBeFalsy();
    expect(uploaded.text).toMatch(/Uploaded "plan\.txt" \(text\/plain, 8 B\): attachmentId att-/);
    const exe = await call(mcp, "upload_file", { path: path.join(dir, "tool.exe") });
    expect(exe.result.isError).toBe(true);
    const attachmentId = (uploaded.json as { attachmentId: string }).attachmentId;
    const sent = await call(mcp, "send_message", {
      conversationId: roomId,
      content: "plan and notes",
      attachmentIds: [attachmentId],
      files: [notes],
    });
    expect(sent.result.isError, sent.text).toBeFalsy();
    expect((sent.json as AgentMessage).metadata?.attachments).toHaveLength(2);
    const saveDir = path.join(dir, "downloads");
    const first = await call(mcp, "download_attachment", { url, saveDir });
    const second = await call(mcp, "download_attachment", { url, saveDir });
    expect(first.result.isError, first.text).toBeFalsy();
    expect(first.text).toContain(`to ${path.join(saveDir, "notes.txt")}`);
    expect(second.text).toContain(`to ${path.join(saveDir, "notes (1).txt")}`);
    const off = await call(mcp, "download_attachment", { url: "https://example.org/api/files/x", saveDir });
    expect(off.result.isError).toBe(true);
    expect(off.text).toContain("an attack, not a request");
    await mcp.close();
    expect(errors, stderr()).toEqual([]);
  });

  it("B-011 a revoked token: the tool answers isError in words (run maity pair)", async () => {
    const token = await t.mint("agt-a");
    const { mcp } = await spawnServer(token);
    await t.revoke(token);
    const listed = await call(mcp, "list_conversations");
    expect(listed.result.isError).toBe(true);
    expect(listed.text).toContain("UNAUTHORIZED (HTTP 401): missing or invalid agent token");
    expect(listed.text).toContain("run maity pair");
    await mcp.close();
  });
});
