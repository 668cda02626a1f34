import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT, startHub, type TestHub } from "./hub.ts";
import {
  call,
  checkAgentTools,
  checkFileTools,
  checkPollAndReactionTools,
  checkServer,
  checkTools,
  REMOTE_TOOLS,
} from "./tools.ts";

// The remote MCP endpoint, POST /api/mcp (004 §2), on a real server: the official SDK client over
// Streamable HTTP with an agent's bearer token (B-010), stateless.

let t: TestHub;
let url: URL;
beforeAll(async () => {
  t = await startHub();
  url = new URL(`${t.api.url}/api/mcp`);
});
afterAll(() => t.close());

async function client(token: string): Promise<Client> {
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  const transport = new StreamableHTTPClientTransport(url, { requestInit });
  const mcp = new Client({ name: "maity-test", version: "0" });
  await mcp.connect(transport);
  return mcp;
}

const post = (headers: Record<string, string>, body: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" }) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });

describe("POST /api/mcp — the remote MCP endpoint (B-348, B-352, B-340)", () => {
  it("B-351 get_room_context and get_messages always ask for the brief: handed once per version, again when it changes", async () => {
    const mcp = await client(t.tokens.agent);
    const rooms = (await call(mcp, "list_conversations")).json.conversations as {
      id: string;
      type: string;
      title: string;
    }[];
    const group = rooms.find((r) => r.type === "GROUP" && r.title === "Release 0.2 go/no-go") ?? rooms[0];
    const brief = `Ship from main only (${Date.now()}).`;
    await t.rest("PUT", `${PROJECT}/brief`, { token: t.tokens.human, body: { brief } });
    const first = await call(mcp, "get_room_context", { conversationId: group?.id });
    expect(first.json.brief).toBe(brief);
    const second = await call(mcp, "get_room_context", { conversationId: group?.id });
    expect(second.json.brief).toBeUndefined();
    const next = `${brief} Tag on Fridays.`;
    await t.rest("PUT", `${PROJECT}/brief`, { token: t.tokens.human, body: { brief: next } });
    const page = await call(mcp, "get_messages", { conversationId: group?.id, limit: 1 });
    expect((page.json.context as { brief?: string }).brief).toBe(next);
    await mcp.close();
  });

  it("B-030 B-050 B-003 initialize: the protocol version, the instructions; maity://protocol reads back", async () => {
    const mcp = await client(t.tokens.agent);
    await checkServer(mcp);
    await mcp.close();
  });

  it("B-348 B-051 B-271 B-263 B-243 lists and calls every tool (get_project's brief as people's room text, the note tools); the message sent is read back by a person over REST", async () => {
    const mcp = await client(t.tokens.agent);
    await checkTools(mcp, t);
    await mcp.close();
  });

  it("B-356 B-079 B-075 list_agents and contact_agent: peers listed, the contacted agent addressed, spent rounds refused in words", async () => {
    const mcp = await client(t.tokens.agent);
    await checkAgentTools(mcp, t);
    await mcp.close();
  });

  it("B-226 B-228 B-235 create_poll, vote_in_poll (from 0), the tally under the message; react_to_message and back", async () => {
    const mcp = await client(t.tokens.agent);
    await checkPollAndReactionTools(mcp, t);
    await mcp.close();
  });

  it("B-211 B-212 B-216 B-203 B-204 over REST upload, send_message attachmentIds, the attachment line, list_files, get_file", async () => {
    const mcp = await client(t.tokens.agent);
    await checkFileTools(mcp, t);
    await mcp.close();
  });

  it("B-010 no token, an unknown one or a person's answers 401 with WWW-Authenticate: Bearer", async () => {
    const unauthorized = { error: "missing or invalid agent token", code: "UNAUTHORIZED" };
    const bearers = ["", "Bearer bay_not-a-token", `Bearer ${t.tokens.human}`];
    for (const headers of bearers.map((b): Record<string, string> => (b ? { authorization: b } : {}))) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      expect(await res.json()).toEqual(unauthorized);
    }
    // The SDK client reports the refusal too.
    await expect(client("bay_not-a-token")).rejects.toThrow();
  });

  it("B-011 a token revoked between calls is refused at once", async () => {
    const token = await t.mint("agt-a");
    const mcp = await client(token);
    await t.revoke(token);
    await expect(mcp.listTools()).rejects.toThrow(/401|Unauthorized/i);
    await mcp.close().catch(() => {});
  });

  it("stateless: GET and DELETE answer 405; a body over the agent API's limit 413", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(url, { method, headers: { authorization: `Bearer ${t.tokens.agent}` } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect((await res.json()).code).toBe("METHOD_NOT_ALLOWED");
    }
    const big = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(300 * 1024) } };
    const res = await post({ authorization: `Bearer ${t.tokens.agent}` }, big);
    expect(res.status).toBe(413);
    expect((await res.json()).code).toBe("BODY_TOO_LARGE");
  });

  it("a raw tools/list without initialize answers JSON (stateless)", async () => {
    const res = await post({ authorization: `Bearer ${t.tokens.agent}`, "mcp-protocol-version": "2025-06-18" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.result.tools.length).toBe(REMOTE_TOOLS.length);
  });
});
