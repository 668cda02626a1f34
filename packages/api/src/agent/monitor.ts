import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { encodeUpdatesCursor, MONITOR_CLOSE_REPLACED, MONITOR_PROTOCOL_PREFIX, type MonitorFrame } from "@maity/domain";
import { type Hub, isRelayCommand, type OpenedListener } from "@maity/hub";
import { type WebSocket, WebSocketServer } from "ws";

// The session monitor (004 v1.10, v1.21; B-332…B-343): the WebSocket a native Monitor (Claude
// Code's Monitor.ws, Maity's relay channel) opens with the single-use ticket of listen_messages, as
// its subprotocol. Outbound only: `ready`, then a `messages` frame per batch with the actionable
// messages (shouldRespond for the session) and the replay cursor; `reset` when the cursor had
// expired. A newer listener, stop_listening or end_session closes it with 4000 (do not reconnect);
// a revoked device or an ended session with 4001; anything else needs a fresh ticket (B-337).

export const MONITOR_CLOSE = { replaced: MONITOR_CLOSE_REPLACED, credential: 4001, goingAway: 4003 } as const;

export interface MonitorOptions {
  /** A ping this often; two unanswered and the connection is dropped. */
  pingIntervalMs?: number;
  /** How long a batch waits on an idle feed before it looks again (no frame is sent for nothing). */
  idleMs?: number;
}

function refuse(socket: Duplex, status: number, reason: string, code: string, message: string): void {
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The ticket from the subprotocols offered (`maity.monitor.<ticket>`), never from the URL. */
function ticketOf(req: IncomingMessage): string | null {
  const offered = String(req.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim());
  const protocol = offered.find((p) => p.startsWith(MONITOR_PROTOCOL_PREFIX));
  return protocol ? protocol.slice(MONITOR_PROTOCOL_PREFIX.length) : null;
}

export function monitorServer(hub: Hub, options: MonitorOptions = {}) {
  const pingIntervalMs = options.pingIntervalMs ?? 20_000;
  const idleMs = options.idleMs ?? 30_000;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 4 * 1024,
    // The client offered the ticket as its subprotocol: the server accepts that one.
    handleProtocols: (protocols) => [...protocols].find((p) => p.startsWith(MONITOR_PROTOCOL_PREFIX)) ?? false,
  });
  const all = new Set<{ close(code: number, reason: string): void }>();

  function serve(ws: WebSocket, listener: OpenedListener): void {
    const { session, generation } = listener;
    let done = false;
    let missed = 0;
    let cursor: string | null = null;
    const stopped = new AbortController();
    const handle = { close };
    all.add(handle);

    function close(code: number, reason: string): void {
      if (done) return;
      done = true;
      stopped.abort();
      clearInterval(pinger);
      stopBus();
      stopCredentials();
      all.delete(handle);
      if (code !== MONITOR_CLOSE.replaced)
        void hub.listen.closed(session.id, generation, cursor).catch(() => undefined);
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    }
    const send = (frame: MonitorFrame): Promise<void> =>
      new Promise((resolve, reject) => ws.send(JSON.stringify(frame), (error) => (error ? reject(error) : resolve())));

    const pinger = setInterval(() => {
      if (missed >= 2) {
        ws.terminate();
        close(MONITOR_CLOSE.goingAway, "missed two pongs");
        return;
      }
      missed += 1;
      ws.ping();
    }, pingIntervalMs);
    ws.on("pong", () => {
      missed = 0;
    });
    ws.on("close", () => close(1000, "closed"));
    ws.on("error", () => close(1011, "socket error"));
    // B-340: inbound-only; the tools stay on Streamable HTTP.
    ws.on("message", () => close(1008, "the monitor is outbound only: use the MCP tools"));

    // B-336: a newer listener of the session (any instance), stop_listening or end_session: 4000.
    const stopBus = hub.bus.subscribe((message) => {
      if (message.type === "listener" && message.sessionId === session.id && message.generation !== generation)
        close(MONITOR_CLOSE.replaced, "replaced or stopped: do not reconnect");
    }, "listener");
    // A revoked device or an ended session ends the feed at once (read from the database).
    let recheck: Promise<boolean> | null = null;
    const verify = () => {
      const check = hub.listen.still(session.id, listener.deviceId).then(
        (ok) => {
          if (!ok) close(MONITOR_CLOSE.credential, "the device was signed out or the session ended");
          return ok;
        },
        () => true, // a failed read is not a revocation; the next message checks again.
      );
      recheck = check;
      // Settled, it is forgotten (unless a newer check replaced it): the stream waits on none then.
      void check.finally(() => {
        if (recheck === check) recheck = null;
      });
    };
    const stopCredentialsBus = hub.bus.subscribe((message) => {
      if (message.type !== "credentials") return;
      if (message.agentId === session.id || message.humanId === session.ownerId) verify();
    }, "credentials");
    const stopResync = hub.bus.onResync(verify);
    const stopCredentials = () => {
      stopCredentialsBus();
      stopResync();
    };

    void (async () => {
      // The cursor was checked when the ticket was issued (listen.ts): a stream that will not open is ours.
      const stream = await hub.feed.open(session.id, listener.cursor);
      try {
        cursor = encodeUpdatesCursor(stream.start.seq);
        if (stream.start.expired) await send({ type: "reset", cursor });
        await send({ type: "ready", session: session.session?.name ?? session.handle, cursor });
        while (!done) {
          const batch = await stream.next(idleMs, stopped.signal);
          if (done) break;
          if (!batch) continue;
          // A credential check on its way is waited for before anything is handed (a revocation wins).
          const pending = recheck;
          if (pending && !(await pending)) break;
          if (done) break;
          // B-335: the actionable messages only; B-342: the relay's own commands are not announced.
          const items = batch.events
            .filter((e) => e.message.shouldRespond && !(listener.relay && isRelayCommand(e, session)))
            .map((e) => ({ conversationId: e.conversationId, messageId: e.message.id }));
          cursor = encodeUpdatesCursor(batch.seq);
          // v1.23: hand-over to a listener is not a read (nothing is marked); the session's own get_messages is.
          if (items.length) await send({ type: "messages", items, cursor });
        }
      } catch (error) {
        if (!done && ws.readyState === ws.OPEN) {
          console.error("maity: session monitor", error);
          close(1011, "internal error");
        }
      } finally {
        stream.stop();
      }
    })().catch((error: unknown) => {
      console.error("maity: session monitor", error);
      close(1011, "internal error");
    });
  }

  return {
    /** Hands an upgrade of /api/device-api/monitor over: 401 for a ticket not (or no longer) good. */
    async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      const ticket = ticketOf(req);
      const listener = ticket ? await hub.listen.open(ticket) : null;
      if (!listener)
        return refuse(
          socket,
          401,
          "Unauthorized",
          "UNAUTHORIZED",
          "the listen ticket is unknown, used, expired or void: call listen_messages for a new one",
        );
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, listener));
    },
    closeAll(): void {
      for (const handle of [...all]) handle.close(MONITOR_CLOSE.goingAway, "server going away");
      wss.close();
    },
    get size(): number {
      return all.size;
    },
  };
}
