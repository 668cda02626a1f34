import { HubError, isHubError } from "@maity/domain";

// Request bodies are read chunk by chunk and never past their route family's limit (a
// chunked body without Content-Length could otherwise be buffered whole before any size check). REST,
// tRPC and the agent API all read through `limitBody`; the Node dispatch (node.ts) closes the
// connection after an answer that left the rest of a body unread, so nothing more is taken in.

/** A small limit for what anyone may send without a credential: login and agent pairing. */
export const PREAUTH_BODY_MAX_BYTES = 16 * 1024;

/** The refusal of a body over `limit` bytes: 413, the limit named (`details.limit`, `fields.body`). */
export const bodyTooLarge = (limit: number): HubError =>
  new HubError("too_large", `the request body is larger than ${limit} bytes`, { fields: { body: "too_large" }, limit });

/** Whether an error is a body's refusal for its size (`bodyTooLarge`). */
export const isBodyTooLarge = (error: unknown): error is HubError =>
  isHubError(error) && error.code === "too_large" && error.details.fields?.body === "too_large";

/**
 * The request with its body limited to `limit` bytes: a declared Content-Length over it fails at
 * once, and a body without one fails as soon as more than `limit` bytes came — the reader gets
 * `refusal()` and the source is cancelled, so no more is read. Whoever reads the body (our own
 * readers below, or tRPC's fetch adapter) thus never holds more than `limit` bytes.
 */
export function limitBody(req: Request, limit: number, refusal: () => unknown = () => bodyTooLarge(limit)): Request {
  const source = req.body;
  if (!source) return req;
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  let seen = 0;
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (declared > limit) {
        controller.error(refusal());
        void reader.cancel().catch(() => {});
      }
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen > limit) {
        controller.error(refusal());
        await reader.cancel().catch(() => {});
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const init = { method: req.method, headers: req.headers, signal: req.signal, body, duplex: "half" };
  return new Request(req.url, init as RequestInit);
}

/** The whole body, read through `limitBody`: at most `limit` bytes, else `bodyTooLarge(limit)` is thrown. */
export async function readBody(req: Request, limit: number): Promise<Uint8Array> {
  const limited = limitBody(req, limit);
  if (!limited.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = limited.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
