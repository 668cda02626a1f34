import { openDatabase } from "@maity/db";
import { freshDatabase } from "@maity/db/testing";
import { createHub, type Hub, type HubOptions } from "@maity/hub";
import { handleTrpc } from "../src/fetch.ts";
import { type ApiServer, startApiServer } from "../src/node.ts";
import { ADMIN, restClient } from "./helpers.ts";

// What the load tests (delivery-concurrency, changes-concurrency) share: the app instances, the
// admin's setup calls, and the dashboard's live feed read as the SSE bytes a browser gets.

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * Instance A on a fresh database; on PostgreSQL a second app instance B on the same database
 * (agent-bus.int.test.ts: their live buses meet through LISTEN/NOTIFY). On PGlite B is A.
 */
export async function startInstances(options: HubOptions) {
  const database = await freshDatabase();
  const a = createHub(database, options);
  await a.start();
  let b: Hub | null = null;
  if (onPostgres) {
    b = createHub(await openDatabase({ databaseUrl: database.url as string, migrate: false }), options);
    await b.start();
  }
  const apiA: ApiServer = await startApiServer(a);
  const apiB: ApiServer = b ? await startApiServer(b) : apiA;
  return {
    a,
    b,
    apiA,
    apiB,
    async close() {
      if (apiB !== apiA) await apiB.close();
      await apiA.close();
      await b?.close();
      await a.close();
    },
  };
}

/** POST as the admin; anything but 200 or 201 throws, naming the path: a broken setup says what broke. */
export function adminPoster(hub: Hub) {
  const rest = restClient(hub);
  return async (path: string, body: unknown) => {
    const res = await rest("POST", path, { token: ADMIN, body });
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`${path} answered ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
}

/** One server-sent event: its fields (`data` lines joined by newlines). */
export type SseFrame = { event?: string; id?: string; data?: string };

/**
 * A human's dashboard feed: GET /api/trpc/live.feed?input=… as text/event-stream with a Bearer
 * token. Over HTTP on the API server when its answer streams; when it does not (writeResponse
 * reading the whole body before writing a byte would keep an endless stream's headers back), the
 * same Request through handleTrpc in this process: the same SSE bytes. `transport` says which ran.
 * Every frame goes to `onFrame` as it is parsed; `pump` ends with the stream, `stop` ends it.
 */
export async function openLiveFeed(
  hub: Hub,
  url: string,
  token: string,
  input: { lastEventId?: string },
  onFrame: (frame: SseFrame) => void,
) {
  const path = `/api/trpc/live.feed?input=${encodeURIComponent(JSON.stringify(input))}`;
  const headers = { authorization: `Bearer ${token}`, accept: "text/event-stream" };
  let controller = new AbortController();
  let response = await Promise.race([
    fetch(`${url}${path}`, { headers, signal: controller.signal }).catch(() => null),
    new Promise<null>((r) => setTimeout(() => r(null), 1_500)),
  ]);
  let transport = "HTTP (startApiServer)";
  if (!response) {
    controller.abort();
    controller = new AbortController();
    transport = "handleTrpc in process (startApiServer's writeResponse buffers the whole answer: no SSE over HTTP)";
    response = await handleTrpc(hub, new Request(`http://127.0.0.1${path}`, { headers, signal: controller.signal }));
  }
  if (!response.ok || !response.body) throw new Error(`live.feed answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const pump = (async () => {
    let buffer = "";
    for (let i = 0; i < 10_000_000; i++) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const fields: Record<string, string> = {};
        for (const line of buffer.slice(0, end).split("\n")) {
          const colon = line.indexOf(":");
          if (colon <= 0) continue;
          const name = line.slice(0, colon);
          fields[name] =
            (fields[name] === undefined ? "" : `${fields[name]}\n`) + line.slice(colon + 1).replace(/^ /, "");
        }
        buffer = buffer.slice(end + 2);
        onFrame(fields);
      }
    }
  })();
  return {
    transport,
    pump,
    async stop() {
      controller.abort();
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}
