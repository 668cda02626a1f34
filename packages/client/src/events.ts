import { agentEventMessageSchema, type UpdatesEvent } from "@maity/domain";
import { AgentApiError, type AgentClientOptions, assertSecureTransport, callAgentOperation } from "./call.ts";

// The agent's event stream (004 §11) as one AsyncIterable: GET /ws when a socket can be opened with
// the Authorization header (B-146, v1.22: never ?token=), else the held GET /updates (B-127…B-140).
// The two cursors are interchangeable (B-144), so switching transport after a drop loses nothing.
// The hub delivers at least once (a resume, a reset's REST catch-up); this iterator dedupes by
// message id, so the caller sees each message once, in order per room.

export interface EventsOptions {
  /** Ends the iterator (cleanly: the loop just stops) and closes its socket or held request. */
  signal?: AbortSignal;
  /** Where to resume: a cursor a previous run persisted through `onCursor` (/ws and /updates alike). */
  cursor?: string | null;
  /**
   * "auto" (default): /ws where the runtime can send the Authorization header on a socket (Node),
   * /updates otherwise (browsers) or when the upgrade is refused or the socket keeps dropping.
   */
  transport?: "auto" | "ws" | "updates";
  /** Opt-in event extras (hello `features` on /ws, `features=` on /updates): "brief", "notes". */
  features?: string[];
  /**
   * Called with each cursor once every event before it has been handed to the caller (the /ws cursor
   * frame after a batch, B-152; the /updates answer): persist it and pass it back as `cursor`.
   */
  onCursor?(cursor: string): void | Promise<void>;
  /**
   * After a reset (409 CURSOR_EXPIRED or a `reset` frame, B-138 B-154) rooms are caught up over REST
   * from the last message seen in each; a room with none seen yet from this time (ISO 8601).
   * Default: when the iterator started — set it when resuming a persisted `cursor`.
   */
  since?: string;
  /** Reconnect backoff after a drop or a restart: doubles from `minMs` up to `maxMs` (250 ms, 10 s). */
  reconnect?: { minMs?: number; maxMs?: number };
  /** How long /updates holds each request, in seconds (default 25, the hub's maximum). */
  wait?: number;
}

/** How many message ids are remembered for dedupe (a reset's catch-up overlaps the stream by a little). */
const SEEN_MAX = 5_000;
/** A socket that answers nothing (no frame, no ping) for this long is dead (pings every 20 s, B-157). */
const SILENCE_MS = 75_000;
/** Sockets in a row that dropped before their first cursor frame before "auto" falls back to /updates. */
const DROPS_BEFORE_FALLBACK = 3;
/** After a fallback, "auto" tries the socket again this much later (§11 negotiation: ~15 minutes). */
const REPROBE_MS = 15 * 60_000;
/** Catch-up pages per room at most (200 messages each): bounded whatever the hub answers. */
const CATCH_UP_PAGES = 1_000;

type Frame = ({ t: "event" } & UpdatesEvent) | { t: "cursor"; cursor: string } | { t: "reset" } | { t: string };
type SocketItem =
  | { kind: "frame"; frame: Frame }
  | { kind: "closed"; code: number; reason: string }
  | { kind: "refused"; status: number; retryAfter: number | null; body: Record<string, unknown> }
  | { kind: "unreachable"; error: Error }
  | { kind: "silent" };

/** What the `ws` package's constructor looks like, as far as this file uses it. */
type NodeSocket = {
  readyState: number;
  send(data: string): void;
  terminate(): void;
  close(code?: number, reason?: string): void;
  on(event: string, listener: (...args: never[]) => void): void;
};
type NodeSocketCtor = new (url: string, options: { headers: Record<string, string> }) => NodeSocket;

/** A socket implementation that can send headers: the `ws` package, in Node only. Browsers cannot (§11). */
async function socketImplementation(): Promise<NodeSocketCtor | null> {
  const g = globalThis as { process?: { versions?: { node?: string } }; window?: unknown };
  if (g.window !== undefined || !g.process?.versions?.node) return null;
  try {
    // Dynamic, so a browser bundle never needs it (Node 20 has no global WebSocket either).
    const mod = (await import("ws")) as unknown as { default?: NodeSocketCtor; WebSocket?: NodeSocketCtor };
    return mod.WebSocket ?? mod.default ?? null;
  } catch {
    return null;
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

/** One socket's items, in order, taken one at a time. */
function openSocket(Ctor: NodeSocketCtor, url: string, headers: Record<string, string>, hello: object) {
  const items: SocketItem[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  let lastHeard = Date.now();
  const push = (item: SocketItem) => {
    if (ended) return;
    if (item.kind !== "frame") ended = true;
    items.push(item);
    wake?.();
  };
  const ws = new Ctor(url, { headers });
  let failure: Error | null = null;
  let opened = false;
  ws.on("open", () => {
    opened = true;
    lastHeard = Date.now();
    ws.send(JSON.stringify(hello));
  });
  ws.on("message", (data: unknown) => {
    lastHeard = Date.now();
    try {
      push({ kind: "frame", frame: JSON.parse(String(data)) as Frame });
    } catch {
      // §11: ignore what cannot be read; the server never sends it.
    }
  });
  ws.on("ping", () => {
    lastHeard = Date.now();
  });
  ws.on("unexpected-response", (req: { destroy(): void }, res: AsyncIterable<Buffer> & ResponseLike) => {
    void (async () => {
      let text = "";
      try {
        for await (const chunk of res) text += String(chunk);
      } catch {
        // the body is only a courtesy
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = {};
      }
      const retry = Number(res.headers["retry-after"]);
      const retryAfter = Number.isFinite(retry) && res.headers["retry-after"] ? retry : null;
      push({ kind: "refused", status: res.statusCode ?? 0, retryAfter, body });
      req.destroy();
    })();
  });
  ws.on("error", (error: Error) => {
    failure = error;
  });
  ws.on("close", (code: number, reason: Buffer) => {
    // A socket that never opened (refused connection, reset) closes 1006 after its error.
    if (failure && code === 1006 && !opened) push({ kind: "unreachable", error: failure });
    else push({ kind: "closed", code, reason: String(reason) });
  });

  return {
    /** The next item, or `null` when `signal` fired first. */
    async next(signal: AbortSignal): Promise<SocketItem | null> {
      for (;;) {
        const item = items.shift();
        if (item) return item;
        if (signal.aborted) return null;
        if (Date.now() - lastHeard > SILENCE_MS) {
          ws.terminate();
          return { kind: "silent" };
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            wake = null;
            resolve();
          };
          const timer = setTimeout(done, SILENCE_MS / 3);
          signal.addEventListener("abort", done, { once: true });
          wake = done;
        });
      }
    },
    close(): void {
      ended = true;
      // 1000: the client is done; terminate a socket still connecting (close() would throw there).
      if (ws.readyState === 1) ws.close(1000, "done");
      else if (ws.readyState === 0) ws.terminate();
    },
  };
}
type ResponseLike = { statusCode?: number; headers: Record<string, string | string[] | undefined> };

/** The REST message (full shape, B-099) as the event /updates would have carried (B-131, B-132). */
function eventOf(
  message: Record<string, unknown>,
  conversationId: string,
  context: { conversation: UpdatesEvent["conversation"]; project: UpdatesEvent["project"] },
): UpdatesEvent {
  return {
    type: "message",
    conversationId,
    message: agentEventMessageSchema.parse(message),
    conversation: context.conversation,
    project: context.project,
  };
}

/**
 * The agent's message events across all its rooms, exactly once each (dedupe by message id), resuming
 * after drops and server restarts, until `signal` fires or the caller breaks out of `for await`.
 * A revoked credential (401, close 4001) ends it with AgentApiError; so does a socket displaced by a
 * newer one on the same token (close 4000, code DISPLACED): two readers on one token would displace
 * each other forever (§11 "one connection per token").
 */
export async function* agentEvents(
  client: AgentClientOptions & { token: string },
  options: EventsOptions = {},
): AsyncGenerator<UpdatesEvent, void, undefined> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const minMs = options.reconnect?.minMs ?? 250;
  const maxMs = Math.max(minMs, options.reconnect?.maxMs ?? 10_000);
  const wait = Math.max(0, Math.min(options.wait ?? 25, 25));
  const startedAt = options.since ?? new Date().toISOString();
  const base = client.baseUrl.replace(/\/+$/, "");
  assertSecureTransport(client); // B-161: the socket carries the token too

  let cursor: string | null = options.cursor ?? null;
  let transport: "ws" | "updates" = options.transport === "updates" ? "updates" : "ws";
  let fellBackAt = 0;
  let attempt = 0;
  /** A reset whose REST catch-up has not completed yet (it failed: the hub went away meanwhile). */
  let catchUpDue = false;
  const seen = new Set<string>();
  /** The newest createdAt seen per room: the `since` watermarks a catch-up reads from (§11). */
  const watermarks = new Map<string, string>();

  const backoff = async (retryAfter: number | null = null) => {
    const exp = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 16));
    attempt += 1;
    // Jitter, so many agents reconnecting after one restart do not arrive together.
    const ms = retryAfter !== null ? retryAfter * 1000 : exp / 2 + Math.random() * (exp / 2);
    await sleep(ms, signal);
  };
  const fresh = (event: UpdatesEvent): boolean => {
    const id = event.message.id;
    const at = event.message.createdAt;
    const mark = watermarks.get(event.conversationId);
    if (!mark || Date.parse(at) > Date.parse(mark)) watermarks.set(event.conversationId, at);
    if (seen.has(id)) return false;
    seen.add(id);
    if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value as string);
    return true;
  };
  let announced = false;
  const setCursor = async (next: string) => {
    const changed = next !== cursor || !announced;
    cursor = next;
    attempt = 0;
    announced = true;
    // An idle cursor frame repeats the position (B-153): the caller hears only of a new one.
    if (changed) await options.onCursor?.(next);
  };

  /**
   * B-138 B-154 recovery: every room's messages since its watermark over REST (GET …/messages?since,
   * ascending). `since` goes one millisecond back, so a message sharing the watermark's millisecond is
   * not skipped; the dedupe drops the ones already seen.
   */
  async function* catchUp(): AsyncGenerator<UpdatesEvent> {
    const rooms = (await callAgentOperation(client, "conversations", {}, { signal })).conversations;
    for (const room of rooms) {
      let since = watermarks.get(room.id) ?? startedAt;
      for (let page = 0; page < CATCH_UP_PAGES && !signal.aborted; page++) {
        const from = new Date(Date.parse(since) - 1).toISOString();
        const input = { conversationId: room.id, since: from, limit: 200 };
        const answer = await callAgentOperation(client, "messages", input, { signal }).catch((error: unknown) => {
          // Left (or removed from) the room since the list was read: nothing of it is the agent's now.
          if (error instanceof AgentApiError && (error.status === 403 || error.status === 404)) return null;
          throw error;
        });
        if (!answer) break;
        for (const message of answer.messages) {
          const event = eventOf(message, room.id, answer.context);
          if (fresh(event)) yield event;
        }
        const last = answer.messages.at(-1)?.createdAt;
        if (answer.messages.length < 200 || !last || last === since) break;
        since = last;
      }
    }
    catchUpDue = false;
  }

  /** GET /updates until stopped, or until "auto" should try the socket again. */
  async function* longPoll(): AsyncGenerator<UpdatesEvent, "ws" | "stopped"> {
    while (!signal.aborted) {
      if (options.transport !== "updates" && fellBackAt && Date.now() - fellBackAt > REPROBE_MS) return "ws";
      try {
        if (catchUpDue && cursor !== null) yield* catchUp();
        // No cursor yet: take one at once (wait=0), so the stream has a position before it holds.
        const query = {
          wait: cursor === null ? 0 : wait,
          ...(cursor === null ? {} : { cursor }),
          ...(options.features?.length ? { features: options.features.join(",") } : {}),
        };
        const answer = await callAgentOperation(client, "updates", query, { signal });
        for (const event of answer.events) if (fresh(event)) yield event;
        await setCursor(answer.cursor);
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof AgentApiError) {
          if (error.status === 401) throw error;
          if (error.status === 409 && error.code === "CURSOR_EXPIRED") {
            // A fresh position first, then the REST catch-up: nothing falls between the two.
            cursor = null;
            catchUpDue = true;
            continue;
          }
          if (error.status === 429) {
            await backoff(error.retryAfter ?? 5);
            continue;
          }
          if (error.status < 500) throw error;
        }
        // The hub did not answer (restarting) or failed: the same cursor again, later.
        await backoff();
      }
    }
    return "stopped";
  }

  /** GET /ws until stopped, or until "auto" should fall back to /updates. */
  async function* socket(Ctor: NodeSocketCtor): AsyncGenerator<UpdatesEvent, "updates" | "stopped"> {
    let drops = 0;
    while (!signal.aborted) {
      const headers: Record<string, string> = { authorization: `Bearer ${client.token}` };
      if (client.instanceId) headers["x-agent-instance"] = client.instanceId;
      const hello = { t: "hello", resume: cursor, ...(options.features?.length ? { features: options.features } : {}) };
      const conn = openSocket(Ctor, `${base.replace(/^http/, "ws")}/api/agent-api/ws`, headers, hello);
      let healthy = false;
      let retryAfter: number | null = null;
      try {
        for (;;) {
          const item = await conn.next(signal);
          if (item === null) return "stopped";
          if (item.kind === "frame") {
            const frame = item.frame;
            if (frame.t === "event" && "message" in frame) {
              const { t: _t, ...event } = frame as { t: "event" } & UpdatesEvent;
              if (fresh(event)) yield event;
            } else if (frame.t === "cursor" && "cursor" in frame && typeof frame.cursor === "string") {
              // B-152: the cursor frame after a batch says the whole batch is ours; store this, not events.
              healthy = true;
              drops = 0;
              await setCursor(frame.cursor);
              if (catchUpDue) yield* catchUp();
            } else if (frame.t === "reset") {
              // B-154: the stream runs on from now while the rooms catch up over REST.
              catchUpDue = true;
              yield* catchUp();
            }
            // §11: frame types this client does not know are ignored.
            continue;
          }
          if (item.kind === "refused") {
            const refusal = new AgentApiError(
              item.status,
              typeof item.body.code === "string" ? item.body.code : `HTTP_${item.status}`,
              typeof item.body.error === "string" ? item.body.error : `the socket upgrade was answered ${item.status}`,
              item.body,
              item.retryAfter,
            );
            // B-158: 401 is the credential (falling back will not help); 429 is reconnecting too fast.
            if (item.status === 401) throw refusal;
            if (item.status === 429) {
              retryAfter = item.retryAfter ?? 5;
              break;
            }
            // 404 (no /ws here) or a proxy that will not upgrade: /updates serves the same events.
            if (options.transport === "ws") throw refusal;
            return "updates";
          }
          if (item.kind === "closed") {
            const why = (fallback: string) => item.reason || fallback;
            if (item.code === 4001) throw new AgentApiError(401, "UNAUTHORIZED", why("credential expired or revoked"));
            if (item.code === 4000) throw new AgentApiError(409, "DISPLACED", why("displaced by a newer connection"));
            if (item.code === 4002) throw new AgentApiError(400, "FRAMING", why("framing refused"));
            // 4003 (going away), 1006 (dropped) and the rest: reconnect from the cursor.
            if (!healthy) drops += 1;
            break;
          }
          // Unreachable (a restart under way) or silent: reconnect, counted as neither drop nor refusal.
          break;
        }
      } catch (error) {
        // A catch-up that could not reach the hub (or a 5xx, a 429): reconnect; the next reset retries it.
        const final = error instanceof AgentApiError && error.status < 500 && error.status !== 429;
        if (signal.aborted || final) throw error;
      } finally {
        conn.close();
      }
      if (signal.aborted) break;
      if (options.transport !== "ws" && drops >= DROPS_BEFORE_FALLBACK) return "updates";
      await backoff(retryAfter);
    }
    return "stopped";
  }

  try {
    const Ctor = transport === "ws" ? await socketImplementation() : null;
    if (transport === "ws" && !Ctor) {
      if (options.transport === "ws") throw new Error("no WebSocket here can send headers: use 'updates'");
      transport = "updates";
    }
    while (!signal.aborted) {
      if (transport === "ws" && Ctor) {
        const next = yield* socket(Ctor);
        if (next === "stopped") break;
        transport = "updates";
        fellBackAt = Date.now();
      } else {
        const next = yield* longPoll();
        if (next === "stopped") break;
        transport = "ws";
      }
    }
  } catch (error) {
    // Stopping while a request was under way is the end the caller asked for, not a failure.
    if (!(signal.aborted && !(error instanceof AgentApiError))) throw error;
  } finally {
    stop.abort();
  }
}
