import { randomBytes } from "node:crypto";
import {
  type DeliveryStatus,
  isSessionCommand,
  LISTEN_TICKET_PREFIX,
  LISTEN_TICKET_TTL_MS,
  MONITOR_PROTOCOL_PREFIX,
  type AgentMessage,
  decodeUpdatesCursor,
  HubError,
  type UpdatesEvent,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import { sha256 } from "../auth/credentials.ts";
import type { LiveBus } from "../delivery/bus.ts";

// Listening (004 v1.10, v1.21; B-332…B-343): a session's one listener. listen_messages issues a
// single-use ticket (five minutes unopened); the monitor socket opens with it once; a newer
// listener of the session — or stop_listening, end_session — closes the older with 4000 on every
// instance (the bus's `listener` message names the generation that stays). The row keeps where the
// listener stands for get_delivery_status.

export const MONITOR_PATH = "/api/device-api/monitor";

/** The listener a ticket opened: whose, which generation, and what it asked for. */
export interface OpenedListener {
  session: AgentCaller;
  generation: number;
  relay: boolean;
  cursor: string | null;
  deviceId: string;
}

export function listenService(db: Db, bus: LiveBus) {
  return {
    /** listen_messages: a fresh ticket for the session's monitor; pending tickets of it are void. */
    async issue(
      session: AgentCaller,
      input: { commands?: "relay" | undefined; cursor?: string | undefined },
      baseUrl: string,
    ) {
      const deviceId = session.session?.deviceId ?? "";
      // A cursor the stream cannot resume from is refused now, not after the ticket is spent.
      if (input.cursor !== undefined && decodeUpdatesCursor(input.cursor) === null)
        throw HubError.invalid({ cursor: "bad_cursor" }, "the cursor is not one a monitor frame gave out");
      const ticket = `${LISTEN_TICKET_PREFIX}${randomBytes(32).toString("base64url")}`;
      const expiresAt = new Date(Date.now() + LISTEN_TICKET_TTL_MS);
      const data = {
        deviceId,
        ticketHash: sha256(ticket),
        expiresAt,
        relay: input.commands === "relay",
        cursor: input.cursor ?? null,
        state: "awaiting_connection",
        connectedAt: null,
        updatedAt: new Date(),
      };
      await db.sessionListener.upsert({
        where: { sessionId: session.id },
        create: { sessionId: session.id, ...data },
        update: { ...data, generation: { increment: 1 } },
      });
      const ws = baseUrl.replace(/^http/, "ws").replace(/\/+$/, "");
      return {
        monitor: {
          url: `${ws}${MONITOR_PATH}`,
          protocol: `${MONITOR_PROTOCOL_PREFIX}${ticket}`,
          ticket,
          expiresAt: expiresAt.toISOString(),
        },
        status: "awaiting_connection" as const,
      };
    },

    /**
     * The monitor opens with a ticket (B-333, B-337): once, before it expires; the session must still
     * be live and its device signed in. The listeners of other generations close (B-336).
     */
    async open(ticket: string): Promise<OpenedListener | null> {
      // Spent and connected in one statement, and only while its session is live and its device signed in.
      const [row] = await db.$queryRawUnsafe<
        { session_id: string; generation: number; relay: boolean; cursor: string | null; device_id: string }[]
      >(
        `UPDATE session_listeners l SET ticket_hash = NULL, state = 'connected', connected_at = $2::timestamp,
           updated_at = $2::timestamp
         WHERE l.ticket_hash = $1 AND l.state = 'awaiting_connection' AND l.expires_at > $2::timestamp
           AND EXISTS (SELECT 1 FROM agent_sessions s JOIN devices d ON d.id = l.device_id
                       WHERE s.agent_id = l.session_id AND s.ended_at IS NULL AND d.revoked_at IS NULL)
         RETURNING l.session_id, l.generation, l.relay, l.cursor, l.device_id`,
        sha256(ticket),
        new Date().toISOString(),
      );
      if (!row) return null;
      const [live] = await db.$queryRawUnsafe<{ handle: string; human_id: string; name: string; bay_id: string }[]>(
        `SELECT a.handle, s.human_id, s.name, s.bay_id FROM agent_sessions s
         JOIN agents a ON a.id = s.agent_id JOIN devices d ON d.id = $2
         WHERE s.agent_id = $1 AND s.ended_at IS NULL AND d.revoked_at IS NULL`,
        row.session_id,
        row.device_id,
      );
      if (!live) return null;
      const generation = Number(row.generation);
      bus.publish({ type: "listener", sessionId: row.session_id, generation });
      return {
        session: {
          kind: "agent",
          id: row.session_id,
          handle: live.handle,
          ownerId: live.human_id,
          instanceId: null,
          session: { name: live.name, deviceId: row.device_id, bayId: live.bay_id },
        },
        generation,
        relay: row.relay,
        cursor: row.cursor,
        deviceId: row.device_id,
      };
    },

    /** Whether the listener may go on: its session live, its device signed in (read from the database). */
    async still(sessionId: string, deviceId: string): Promise<boolean> {
      const rows = await db.$queryRawUnsafe<{ ok: number }[]>(
        `SELECT 1 AS ok FROM agent_sessions s JOIN devices d ON d.id = $2
         WHERE s.agent_id = $1 AND s.ended_at IS NULL AND d.revoked_at IS NULL`,
        sessionId,
        deviceId,
      );
      return rows.length > 0;
    },

    /** The socket of `generation` went away (not replaced): the status says closed. */
    async closed(sessionId: string, generation: number, cursor: string | null): Promise<void> {
      await db.sessionListener.updateMany({
        where: { sessionId, generation, state: "connected" },
        data: { state: "closed", updatedAt: new Date(), ...(cursor ? { cursor } : {}) },
      });
    },

    /** get_delivery_status (B-334): where the session's listener stands. */
    async status(session: AgentCaller): Promise<DeliveryStatus> {
      const row = await db.sessionListener.findUnique({
        where: { sessionId: session.id },
        select: { state: true, connectedAt: true, expiresAt: true, relay: true },
      });
      const name = session.session?.name ?? session.handle;
      if (!row) return { session: name, status: "none", connectedAt: null, expiresAt: null, commands: null };
      const expired = row.state === "awaiting_connection" && row.expiresAt !== null && row.expiresAt <= new Date();
      return {
        session: name,
        status: expired ? "expired" : (row.state as DeliveryStatus["status"]),
        connectedAt: row.connectedAt?.toISOString() ?? null,
        expiresAt: row.state === "awaiting_connection" ? (row.expiresAt?.toISOString() ?? null) : null,
        commands: row.relay ? "relay" : null,
      };
    },

    /** stop_listening (B-339): the feed closes (4000) and pending tickets are void. */
    async stop(session: AgentCaller): Promise<{ stopped: true }> {
      const rows = await db.$queryRawUnsafe<{ generation: number }[]>(
        `UPDATE session_listeners SET state = 'stopped', ticket_hash = NULL, generation = generation + 1,
           updated_at = $2::timestamp WHERE session_id = $1 RETURNING generation`,
        session.id,
        new Date().toISOString(),
      );
      const [row] = rows;
      if (row) bus.publish({ type: "listener", sessionId: session.id, generation: Number(row.generation) });
      return { stopped: true };
    },
  };
}
export type ListenService = ReturnType<typeof listenService>;

/**
 * B-342, B-343: a message the relay runs for the session — wholly a session command, from the
 * session's person, in a room the session is in — is not announced on a `commands: "relay"` feed.
 */
export function isRelayCommand(event: Pick<UpdatesEvent, "message">, session: AgentCaller): boolean {
  return event.message.senderId === session.ownerId && isSessionCommand(event.message.content, session.handle);
}

/**
 * B-342: for a session whose relay runs its commands, a command from its person reads shouldRespond
 * false — the relay types it; the session must not answer it. One read, only for a page holding one.
 */
export async function relayVerdicts(db: Db, agent: AgentCaller, page: AgentMessage[]): Promise<AgentMessage[]> {
  // Read the listener only for a page that holds a command of the person's (the pure check first).
  if (!agent.session || !page.some((m) => m.shouldRespond && isRelayCommand({ message: m }, agent))) return page;
  const listener = await db.sessionListener.findUnique({
    where: { sessionId: agent.id },
    select: { relay: true, state: true },
  });
  if (!listener?.relay || listener.state === "stopped") return page;
  return page.map((m) => (isRelayCommand({ message: m }, agent) ? { ...m, shouldRespond: false } : m));
}
