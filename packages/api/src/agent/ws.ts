import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  encodeUpdatesCursor,
  type Features,
  featuresOf,
  isHubError,
  parseBearer,
  type UpdatesEvent,
  wsHelloSchema,
} from "@maity/domain";
import { type AgentCaller, type Hub, type Signer, signAgentMessage, signerOf } from "@maity/hub";
import { type WebSocket, WebSocketServer } from "ws";

// 004 §11 GET /ws: the /updates events over a WebSocket (B-146…B-159). The client says hello
// first; the server answers with the catch-up since `resume` (or a reset), then a cursor frame
// after every batch and when idle. Event frames carry no cursor: the cursor frame after a batch
// says the whole batch is the client's. One socket per agent instance; the hub's feed is the
// same view of the log as /updates, so the two cursors are interchangeable (B-144).

export const WS_CLOSE = { displaced: 4000, credential: 4001, framing: 4002, goingAway: 4003 } as const;

export interface AgentSocketOptions {
  /** B-149: the hello must arrive within this (10 s). */
  helloTimeoutMs?: number;
  /** B-157: a ping this often; two unanswered and the connection is dropped. */
  pingIntervalMs?: number;
  /** B-153, OQ-B-18: a cursor frame when nothing happened for this long (30 s). */
  idleCursorMs?: number;
}

type Frame = ({ t: "event" } & UpdatesEvent) | { t: "cursor"; cursor: string } | { t: "reset" };

/** An HTTP answer on a socket that will not be upgraded (401, 429), in the protocol's error shape. */
function refuseUpgrade(
  socket: Duplex,
  status: number,
  reason: string,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: message, code });
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
  ];
  for (const [k, v] of Object.entries(headers)) head.push(`${k}: ${v}`);
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}

/** The origin an upgrade came to (behind a proxy, its forwarded one), as edge.ts baseUrlOf reads a request's. */
function socketOrigin(req: IncomingMessage): string {
  const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h)?.split(",")[0]?.trim();
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const proto = first(req.headers["x-forwarded-proto"]) || (encrypted ? "https" : "http");
  return `${proto}://${first(req.headers["x-forwarded-host"]) || req.headers.host || "localhost"}`;
}

export function agentSocketServer(hub: Hub, options: AgentSocketOptions = {}) {
  const helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
  const pingIntervalMs = options.pingIntervalMs ?? 20_000;
  const idleCursorMs = options.idleCursorMs ?? 30_000;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  /** The open socket of each agent instance (B-155). */
  const open = new Map<string, { close(code: number, reason: string): void }>();
  const all = new Set<{ close(code: number, reason: string): void }>();

  function serve(ws: WebSocket, token: string, first: AgentCaller, sign: Signer): void {
    let agent = first;
    let key: string | null = null;
    let done = false;
    let missed = 0;
    const stopped = new AbortController();
    const session = { close };
    all.add(session);

    function close(code: number, reason: string): void {
      if (done) return;
      done = true;
      stopped.abort();
      clearTimeout(helloTimer);
      clearInterval(pinger);
      unsubscribe();
      all.delete(session);
      if (key && open.get(key) === session) open.delete(key);
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    }
    // A write that fails means the peer went away, even while readyState still reads OPEN (a socket
    // cut mid-batch answers ERR_STREAM_DESTROYED before its close event): the stream then ends quietly.
    let peerGone = false;
    const send = (frame: Frame): Promise<void> =>
      new Promise((resolve, reject) =>
        ws.send(JSON.stringify(frame), (error) => {
          if (!error) return resolve();
          peerGone = true;
          reject(error);
        }),
      );

    const helloTimer = setTimeout(() => close(WS_CLOSE.framing, "hello expected within 10 seconds"), helloTimeoutMs);
    const pinger = setInterval(() => {
      if (missed >= 2) {
        // B-157: two pings unanswered — the peer is gone.
        ws.terminate();
        close(WS_CLOSE.goingAway, "missed two pongs");
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
    // B-156 4001: a revoked or rotated credential ends the socket at once. The check reads the
    // database (not the credential cache); until it answers, no batch is sent: a message posted
    // right after the revocation must not reach the revoked token while the check is on its way.
    // It runs too when the bus's LISTEN connection is back: a revocation published meanwhile never arrives.
    let recheck: Promise<boolean> | null = null;
    const verify = () => {
      const check = hub.auth.fromToken(token, agent.instanceId, true).then(
        (still) => {
          if (!still) close(WS_CLOSE.credential, "credential revoked");
          return Boolean(still);
        },
        () => true, // a failed read is not a revocation; the next message checks again.
      );
      recheck = check;
      void check.finally(() => {
        if (recheck === check) recheck = null;
      });
    };
    const stopCredentials = hub.bus.subscribe((message) => {
      if (message.type === "credentials" && message.agentId === agent.id) verify();
    }, "credentials");
    const stopResync = hub.bus.onResync(verify);
    const unsubscribe = () => {
      stopCredentials();
      stopResync();
    };

    let greeted = false;
    ws.on("message", (data, isBinary) => {
      // B-148, OQ-B-20: one JSON hello; the socket is inbound-only after it (sends go over REST).
      if (greeted) return close(WS_CLOSE.framing, "the socket is inbound-only: send over REST");
      greeted = true;
      clearTimeout(helloTimer);
      if (isBinary) return close(WS_CLOSE.framing, "frames are JSON text");
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(data));
      } catch {
        return close(WS_CLOSE.framing, "a frame is not JSON");
      }
      const hello = wsHelloSchema.safeParse(parsed);
      if (!hello.success) return close(WS_CLOSE.framing, "the first frame must be hello");
      void start(hello.data.resume ?? null, hello.data.instance, featuresOf(hello.data.features)).catch(
        (error: unknown) => {
          if (isHubError(error) && error.code === "invalid")
            return close(WS_CLOSE.framing, "resume is not a cursor this hub gave out");
          console.error("maity: agent socket", error);
          close(1011, "internal error");
        },
      );
    });

    async function start(resume: string | null, instance: string | undefined, features: Features): Promise<void> {
      if (instance !== undefined && instance !== agent.instanceId) {
        const named = await hub.auth.fromToken(token, instance);
        if (named?.kind !== "agent") return close(WS_CLOSE.credential, "no such instance for this credential");
        agent = named;
      }
      if (done) return;
      key = `${agent.id} ${agent.instanceId ?? ""}`;
      // B-155: a new connection displaces the old one, closed with 4000.
      open.get(key)?.close(WS_CLOSE.displaced, "displaced by a newer connection");
      open.set(key, session);
      const stream = await hub.feed.open(agent.id, resume);
      try {
        // B-154: the same recovery as 409 CURSOR_EXPIRED; the stream goes on from now.
        if (stream.start.expired) await send({ t: "reset" });
        let seq = stream.start.seq;
        const resumed = stream.start.seq;
        let announce = true;
        while (!done) {
          if (announce) await send({ t: "cursor", cursor: encodeUpdatesCursor(seq) });
          const batch = await stream.next(idleCursorMs, stopped.signal);
          if (done) break;
          if (!batch) {
            // B-153: an idle socket keeps a position, without reading the log.
            announce = true;
            continue;
          }
          while (recheck && !done) await recheck;
          if (done) break;
          // B-264, B-249: the brief and the notes this instance was not handed yet, recorded before they
          // go. A socket confirms nothing after its hello: what it sent stays pending until a resume.
          const handedOut = await hub.handed.feed(agent, features, { confirmed: resumed, position: seq }, batch.events);
          const events = await hub.feed.withNotice(agent.id, features, handedOut);
          // B-181, B-185: each event's files signed at delivery, on the base URL this socket uses.
          for (const event of events)
            void send({ t: "event", ...event, message: signAgentMessage(event.message, sign) }).catch(() => {});
          await send({ t: "cursor", cursor: encodeUpdatesCursor(batch.seq) });
          // The cursor frame is written: the batch is the client's (v1.23: its own token marks delivery).
          await hub.feed.delivered(agent.id, batch.events);
          seq = batch.seq;
          announce = false;
        }
      } catch (error) {
        // A send that failed because the peer went away ends the stream; anything else is ours.
        if (!done && !peerGone && ws.readyState === ws.OPEN) throw error;
      } finally {
        stream.stop();
      }
    }
  }

  return {
    /** Hands an upgrade of /api/agent-api/ws over: 401 for a wrong credential, 429 when reconnecting too fast (B-158). */
    async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      const url = new URL(req.url ?? "/", "http://localhost");
      // B-146/B-147: the Authorization header; ?token= is deprecated but still accepted.
      const token = parseBearer(req.headers.authorization) ?? url.searchParams.get("token");
      const instance = req.headers["x-agent-instance"];
      const caller = token ? await hub.auth.fromToken(token, typeof instance === "string" ? instance : null) : null;
      if (!token || caller?.kind !== "agent")
        return refuseUpgrade(socket, 401, "Unauthorized", "UNAUTHORIZED", "missing or invalid agent token");
      const wait = hub.limits.take("ws", caller.id);
      if (wait !== null)
        return refuseUpgrade(socket, 429, "Too Many Requests", "RATE_LIMITED", "reconnecting too fast; back off", {
          "Retry-After": String(wait),
        });
      const sign = signerOf(hub.fileKeys, hub.publicUrl ?? socketOrigin(req));
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, token, caller, sign));
    },
    /** B-156 4003: the server is going away. */
    closeAll(): void {
      for (const session of [...all]) session.close(WS_CLOSE.goingAway, "server going away");
      wss.close();
    },
    get size(): number {
      return all.size;
    },
  };
}
export type AgentSocketServer = ReturnType<typeof agentSocketServer>;
