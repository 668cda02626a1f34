import { connect, connectDevice } from "@maity/client";
import { parseBearer, REQUEST_BODY_MAX_BYTES } from "@maity/domain";
import type { Hub } from "@maity/hub";
import { createMcpServer, createSessionMcpServer } from "./server.ts";
import { WebStandardStreamableHTTPServerTransport as Transport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isBodyTooLarge, readBody } from "@maity/api/body";
import { handleRest } from "@maity/api/rest";
import { callerFromRequest, SESSION_HEADER } from "@maity/api/session";

// The remote MCP endpoint (004 §2, B-028's POST /api/mcp) for a bay_ agent token — the same MCP
// server as `maity mcp` (@maity/mcp), over the SDK's Web-standard Streamable HTTP transport,
// stateless (a new server and transport per request). Its AgentClient calls the agent API in
// process — through the same handler, auth, rate budgets and errors as over the network — so MCP
// is one more client of the agent API, never a way around it. A person's bay_u_ device credential
// gets the session surface (DESIGN §4e): each base tool acts as the session it names (X-Maity-Session
// on the in-process call), and the session tools are the device API's routes.

/** The agent API's dispatch, which the in-process client calls (one line to change when it moves). */
const agentApi = (hub: Hub, req: Request): Promise<Response> => handleRest(hub, req);

/** The agent protocol's refusal shape, `{error, code}` (004 §11). */
const refuse = (
  status: number,
  code: string,
  error: string,
  extra: object = {},
  headers: Record<string, string> = {},
) => Response.json({ error, code, ...extra }, { status, headers });

const unauthorized = (): Response =>
  // RFC 6750 §3: a 401 names the scheme, so an MCP client knows to ask for a bearer token.
  refuse(401, "UNAUTHORIZED", "missing or invalid agent token", {}, { "www-authenticate": 'Bearer realm="maity"' });

/** The MCP request as authenticated: a session is an argument of each tool call, never a header here. */
function stripSession(req: Request): Request {
  if (!req.headers.has(SESSION_HEADER)) return req;
  const headers = new Headers(req.headers);
  headers.delete(SESSION_HEADER);
  return new Request(req.url, { method: req.method, headers });
}

export async function handleMcp(hub: Hub, req: Request): Promise<Response> {
  // Stateless: there is no server-initiated stream (GET) and no session to end (DELETE), so per the
  // MCP spec (Streamable HTTP) both answer 405.
  if (req.method !== "POST")
    return refuse(405, "METHOD_NOT_ALLOWED", `${req.method} is not allowed here; POST JSON-RPC`, {}, { allow: "POST" });
  // B-010/B-011 as on the agent API: a bay_ agent token, or (DESIGN §4e) a person's bay_u_ device
  // credential; missing, unknown or revoked answer the same 401. A session is named per call, never here.
  const { caller, device } = await callerFromRequest(hub, stripSession(req));
  const token = parseBearer(req.headers.get("authorization"));
  if (!token || (caller?.kind !== "agent" && !device)) return unauthorized();

  // The body is read up to the agent API's own limit (256 KiB), no further.
  let body: string;
  try {
    body = new TextDecoder().decode(await readBody(req, REQUEST_BODY_MAX_BYTES));
  } catch (error) {
    if (!isBodyTooLarge(error)) throw error;
    const limit = REQUEST_BODY_MAX_BYTES;
    return refuse(413, "BODY_TOO_LARGE", `the body is over ${limit} bytes`, { limit });
  }

  const instanceId = req.headers.get("x-agent-instance");
  const inProcess = {
    baseUrl: new URL(req.url).origin,
    token,
    fetch: (url: string | URL | Request, init?: RequestInit) => agentApi(hub, new Request(url, init)),
  };
  const server = device
    ? createSessionMcpServer(connectDevice(inProcess))
    : createMcpServer(connect({ ...inProcess, ...(instanceId ? { instanceId } : {}) }));
  // JSON answers, not an SSE stream: a stateless request is over when its answer is written.
  const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const headers = new Headers(req.headers);
    headers.delete("content-length");
    return await transport.handleRequest(new Request(req.url, { method: "POST", headers, body, signal: req.signal }));
  } finally {
    await server.close();
  }
}
