import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { type Hub, MONITOR_PATH } from "@maity/hub";
import { type AgentSocketOptions, agentSocketServer } from "./agent/ws.ts";
import { monitorServer } from "./agent/monitor.ts";
import { handleTrpc } from "./fetch.ts";
import { handleRest } from "./rest/index.ts";
import type { ApiOptions } from "./session.ts";

// The hub's API on Node's HTTP server — REST, tRPC, the agent API and its WebSocket. One dispatch,
// `serveApi`, answers them all; the app server (apps/web/server.ts) hands it every /api/* request
// and the socket upgrade (Next serves only the dashboard's pages and assets), and the bare test
// server `startApiServer` (tests, benches, real clients on 127.0.0.1) is the same dispatch without
// the dashboard. So the shipped server and the tested server run the same code in one module graph.

/** The agent protocol's WebSocket path (004 §11). */
export const AGENT_SOCKET_PATH = "/api/agent-api/ws";

/** The remote MCP endpoint (004 §2), served by @maity/mcp's handler (ServeOptions.mcp). */
export const MCP_PATH = "/api/mcp";

/** Whether a request path is the hub's API (`/api` and everything under it). */
export function isApiPath(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}

/** The path of a Node request, without its query. */
export function pathOf(req: IncomingMessage): string {
  // Read as toRequest reads it, so routing here and in the handlers agree.
  try {
    return new URL(`http://localhost${req.url ?? "/"}`).pathname;
  } catch {
    return req.url ?? "/";
  }
}

/** The request's URL on its own Host; a Host that is no host name is not the handlers' problem. */
function requestUrl(req: IncomingMessage): string {
  const path = req.url ?? "/";
  try {
    return new URL(`http://${req.headers.host ?? "127.0.0.1"}${path}`).href;
  } catch {
    return new URL(`http://127.0.0.1${path}`).href;
  }
}

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
  return new Request(requestUrl(req), {
    method: req.method ?? "GET",
    headers,
    signal: aborted.signal,
    ...(hasBody ? { body: bodyOf(req), duplex: "half" } : {}),
  } as RequestInit);
}

/**
 * Node's request body as a stream read only as fast as it is taken (the socket pauses in between).
 * Cancelling it — a reader that stops at its limit (body.ts) — only stops reading: unlike
 * `Readable.toWeb`, it does not destroy the socket, so the 413 can still be written; `serveApi`
 * then closes the connection, so an oversized body is never read whole.
 */
/** How to detach `bodyOf`'s stream from its request (a lingering close reads no more). */
const stoppers = new WeakMap<IncomingMessage, () => void>();

/** How long a lingering close waits for the client to take its answer and go. */
const LINGER_MS = 2_000;

/**
 * Closes the connection after an answer that left a body unread, gracefully: Node
 * ends a `connection: close` answer with `socket.destroySoon()` — FIN, then destroy at once, which
 * resets a client still writing its body, and the client may lose the answer (seen with 20 clients
 * at once: EPIPE before the 413). So: FIN after the answer, read nothing more (the client's writes
 * stall on a full window), and destroy when the client closes or after LINGER_MS — a lingering
 * close (RFC 9112 §9.6) that takes in nothing.
 */
function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("connection", "close");
  const socket = req.socket;
  const lingering = socket as typeof socket & { destroySoon?: () => void };
  lingering.destroySoon = () => {
    stoppers.get(req)?.();
    req.pause();
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
}

function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let stop = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onData = (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => {
          stop();
          controller.close();
        };
        const onError = (error: Error) => {
          stop();
          controller.error(error);
        };
        const onAborted = () => onError(new Error("the client went away before the body ended"));
        stop = () => {
          stoppers.delete(req);
          req.off("data", onData);
          req.off("end", onEnd);
          req.off("error", onError);
          req.off("aborted", onAborted);
          req.pause();
        };
        stoppers.set(req, stop);
        req.on("data", onData);
        req.on("end", onEnd);
        req.on("error", onError);
        req.on("aborted", onAborted);
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/**
 * Writes a fetch Response to Node's response as it is produced: the head first, then the body
 * chunk by chunk (an SSE subscription or a held long-poll streams; nothing is buffered whole), and
 * stops reading — cancelling the body — when the client goes away.
 */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  res.statusCode = response.status;
  // Each Set-Cookie is its own header; every other name comes once (Headers joins repeats).
  const cookies = response.headers.getSetCookie();
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  if (cookies.length) res.setHeader("set-cookie", cookies);
  const body = response.body;
  if (!body || res.req.method === "HEAD") {
    await body?.cancel().catch(() => {});
    res.end();
    return;
  }
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    // A JSON answer is built in memory (REST, the agent API, tRPC's batch link): sent whole with its
    // length, headers and body in one write, not streamed in chunks behind flushed headers.
    const bytes = Buffer.from(await response.arrayBuffer());
    res.setHeader("content-length", bytes.length);
    res.end(bytes);
    return;
  }
  res.flushHeaders();
  const reader = body.getReader();
  const gone = () => {
    reader.cancel().catch(() => {});
  };
  res.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) {
        // Back-pressure: wait until the client has taken it (or has gone away).
        await new Promise<void>((resolve) => {
          const on = () => {
            res.off("drain", on);
            res.off("close", on);
            resolve();
          };
          res.on("drain", on);
          res.on("close", on);
        });
      }
    }
    if (!res.destroyed) res.end();
  } catch (error) {
    // A body that fails half-way cannot change the status any more: cut the connection.
    if (!res.destroyed) res.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    res.off("close", gone);
  }
}

/** The API's dispatch on Node: `request` answers any HTTP request it is given, `upgrade` the agent socket. */
export interface ApiListener {
  /** REST, tRPC (incl. its SSE subscriptions) and the agent API, by path. */
  request(req: IncomingMessage, res: ServerResponse): void;
  /** Takes an upgrade of /api/agent-api/ws and answers true; any other path is left to the caller (false). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** B-156: closes every open agent socket with 4003 (the server is going away). */
  closeAll(): void;
  /** Open agent sockets. */
  readonly sockets: number;
}

export interface ServeOptions extends ApiOptions {
  sockets?: AgentSocketOptions;
  /**
   * POST /api/mcp: @maity/mcp's handler, handed in by the app server (and the tests that use it).
   * The MCP server is a client of this API (it calls the agent API in process), so this package
   * cannot import it; without it the path answers like any unknown route.
   */
  mcp?: (hub: Hub, req: Request) => Promise<Response>;
}

export function serveApi(hub: Hub, options: ServeOptions = {}): ApiListener {
  const edge: ApiOptions = { adminToken: options.adminToken };
  const mcp = options.mcp;
  const sockets = agentSocketServer(hub, options.sockets);
  const monitors = monitorServer(hub);
  return {
    request(req, res) {
      Promise.resolve()
        .then(() => {
          const request = toRequest(req, res);
          const path = new URL(request.url).pathname;
          const handler: (hub: Hub, req: Request, options: ApiOptions) => Promise<Response> =
            path === MCP_PATH && mcp ? mcp : path.startsWith("/api/trpc/") ? handleTrpc : handleRest;
          return handler(hub, request, edge);
        })
        .then((response) => {
          // An answer given before the body was all read (a 413, or a refusal that never read it):
          // close the connection after it: at most a bounded rest is taken in and dropped.
          if (!req.complete) closeAfterAnswer(req, res);
          return writeResponse(response, res);
        })
        .catch((error: unknown) => {
          console.error(error);
          if (res.headersSent) {
            res.destroy();
            return;
          }
          res.statusCode = 500;
          res.setHeader("content-type", "application/json; charset=utf-8");
          res.end(JSON.stringify({ error: "internal error", code: "INTERNAL" }));
        });
    },
    upgrade(req, socket, head) {
      const path = pathOf(req);
      if (path === MONITOR_PATH) {
        // A session's monitor (DESIGN §4e, B-332): the ticket of listen_messages, once.
        monitors.upgrade(req, socket, head).catch((error: unknown) => {
          console.error(error);
          socket.destroy();
        });
        return true;
      }
      if (path !== AGENT_SOCKET_PATH) return false;
      sockets.upgrade(req, socket, head).catch((error: unknown) => {
        console.error(error);
        socket.destroy();
      });
      return true;
    },
    closeAll: () => {
      sockets.closeAll();
      monitors.closeAll();
    },
    get sockets() {
      return sockets.size;
    },
  };
}

/**
 * Node's HTTP parser refuses a head it cannot read (431 past 16 KiB of headers and URL, 400 for
 * bad syntax) before any handler runs, with an empty body. Answer in the API's own shape, with a
 * code (every 4xx carries one), and close.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const large = error.code === "HPE_HEADER_OVERFLOW";
  const body = JSON.stringify(
    large
      ? { error: "the request's head (URL and headers) is over 16 KiB", code: "HEADERS_TOO_LARGE" }
      : { error: "malformed HTTP request", code: "BAD_REQUEST" },
  );
  const status = large ? "431 Request Header Fields Too Large" : "400 Bad Request";
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export interface ApiServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port unless given) and stops, with its sockets, on close(). */
export async function startApiServer(hub: Hub, options: ServeOptions & { port?: number } = {}): Promise<ApiServer> {
  const api = serveApi(hub, options);
  const server = createServer(api.request);
  server.on("clientError", answerClientError);
  server.on("upgrade", (req, socket, head) => {
    if (!api.upgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      api.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
