import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { toRequest, writeResponse } from "../src/node.ts";

// The Node side of the API's dispatch (serveApi, used by the app server and the bare test server):
// a fetch Response is streamed, not buffered — the dashboard's SSE and held long-polls depend on it.

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

function bounded<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)),
  ]);
}

describe("writeResponse", () => {
  it("sends the head and each chunk as it is produced, before the body ends", async () => {
    const body = new TransformStream<Uint8Array, Uint8Array>();
    const writer = body.writable.getWriter();
    const push = (text: string) => void writer.write(new TextEncoder().encode(text));
    const url = await serve((_req, res) => {
      void writeResponse(
        new Response(body.readable, { status: 200, headers: { "content-type": "text/event-stream" } }),
        res,
      );
    });
    const res = await bounded(fetch(url), "head");
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    push("data: one\n\n");
    expect(decoder.decode((await bounded(reader.read(), "first chunk")).value)).toBe("data: one\n\n");
    push("data: two\n\n");
    expect(decoder.decode((await bounded(reader.read(), "second chunk")).value)).toBe("data: two\n\n");
    void writer.close();
    expect((await bounded(reader.read(), "end")).done).toBe(true);
  });

  it("stops reading the body — cancels it — when the client goes away, and the request's signal aborts", async () => {
    let cancelled: (reason: unknown) => void = () => {};
    const cancel = new Promise<unknown>((resolve) => (cancelled = resolve));
    let aborted: () => void = () => {};
    const abort = new Promise<void>((resolve) => (aborted = resolve));
    const url = await serve((req, res) => {
      const request = toRequest(req, res);
      request.signal.addEventListener("abort", () => aborted());
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("held"));
        },
        cancel: (reason) => cancelled(reason),
      });
      void writeResponse(new Response(body), res);
    });
    const client = new AbortController();
    const res = await bounded(fetch(url, { signal: client.signal }), "head");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await bounded(reader.read(), "first chunk");
    client.abort();
    await bounded(cancel, "cancel of the body");
    await bounded(abort, "abort of the request's signal");
  });

  it("keeps every Set-Cookie, and a body-less answer ends at once", async () => {
    const url = await serve((_req, res) => {
      const headers = new Headers();
      headers.append("set-cookie", "a=1; Path=/");
      headers.append("set-cookie", "b=2; Path=/");
      void writeResponse(new Response(null, { status: 204, headers }), res);
    });
    const res = await bounded(fetch(url), "answer");
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
  });
});

describe("toRequest", () => {
  it("takes the client's address from the socket, never from the client's x-maity-remote header", async () => {
    const url = await serve((req, res) => {
      const request = toRequest(req, res);
      void writeResponse(Response.json({ remote: request.headers.get("x-maity-remote"), method: request.method }), res);
    });
    const res = await bounded(fetch(url, { headers: { "x-maity-remote": "203.0.113.7" } }), "answer");
    expect(await res.json()).toEqual({ remote: "127.0.0.1", method: "GET" });
  });

  it("a Host header that is no host name still makes a request (and does not throw in the listener)", async () => {
    const url = new URL(
      await serve((req, res) => {
        const request = toRequest(req, res);
        void writeResponse(Response.json({ path: new URL(request.url).pathname }), res);
      }),
    );
    const answer = await bounded(
      new Promise<string>((resolve, reject) => {
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: "/api/x", headers: { host: "a b" } },
          (res) => {
            let text = "";
            res.on("data", (chunk) => {
              text += chunk;
            });
            res.on("end", () => resolve(text));
          },
        );
        req.on("error", reject);
        req.end();
      }),
      "answer",
    );
    expect(JSON.parse(answer)).toEqual({ path: "/api/x" });
  });
});
