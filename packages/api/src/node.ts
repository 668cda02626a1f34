import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { Hub } from "@maity/hub";
import { handleAgentApi } from "./agent/index.ts";
import { type AgentSocketOptions, agentSocketServer } from "./agent/ws.ts";
import { handleTrpc } from "./fetch.ts";
import { handleRest } from "./rest/index.ts";

// The hub's API on a bare Node HTTP server — REST, tRPC, the agent API and its WebSocket — without
// the dashboard. Tests, benches and real clients (curl, Python) talk to it on 127.0.0.1; the app
// server (apps/web/server.ts) serves the same handlers through Next.

/** Node's request as a fetch Request; the signal aborts when the client goes away. */
export function toRequest(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "x-maity-remote") continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // The client's address for pre-auth limits, set here so a client cannot choose it.
  headers.set("x-maity-remote", req.socket.remoteAddress ?? "unknown");
  const aborted = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborted.abort();
  });
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    signal: aborted.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: "half" } : {}),
  } as RequestInit);
}

export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.end(Buffer.from(await response.arrayBuffer()));
}

export interface ApiServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port unless given) and stops, with its sockets, on close(). */
export async function startApiServer(hub: Hub, options: { port?: number; sockets?: AgentSocketOptions } = {}): Promise<ApiServer> {
  const sockets = agentSocketServer(hub, options.sockets);
  const server = createServer((req, res) => {
    const request = toRequest(req, res);
    const path = new URL(request.url).pathname;
    const handler = path.startsWith("/api/agent-api/") ? handleAgentApi : path.startsWith("/api/trpc/") ? handleTrpc : handleRest;
    handler(hub, request)
      .then((response) => writeResponse(response, res))
      .catch((error: unknown) => {
        console.error(error);
        res.statusCode = 500;
        res.end();
      });
  });
  server.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://localhost").pathname === "/api/agent-api/ws") void sockets.upgrade(req, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      sockets.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
