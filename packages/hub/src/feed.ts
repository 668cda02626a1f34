import { decodeUpdatesCursor, encodeUpdatesCursor, HubError, parseInput, type UpdatesAnswer, type UpdatesEvent, updatesQuery } from "@maity/domain";
import type { Db } from "@maity/db";
import { agentMessageSelect, renderForAgent, toUpdatesEvent } from "./agents.ts";
import { type LiveBus, reaches } from "./bus.ts";
import type { AgentCaller } from "./caller.ts";
import type { MessagesService } from "./messages.ts";

// The agent's event stream (004 §11): one view of the event log for /updates and /ws alike, so
// their cursors are interchangeable (B-144). A position is a seq; an event is a message whose
// audience (fixed at write time) holds the agent. Listen first, then read the log, so nothing
// published between the read and the wait is missed.

/** B-137, B-364: how long a cursor stays good after the first event it has not seen. */
export const DEFAULT_REPLAY_WINDOW_MS = 15 * 60 * 1000;
/** At most this many events per /updates answer or /ws batch; the rest follow at once. */
export const FEED_BATCH_MAX = 100;

export interface FeedOptions {
  replayWindowMs?: number;
}

export type Position = { seq: number; expired: false } | { seq: number; expired: true };

export class CursorExpired extends Error {}

export function agentFeed(db: Db, bus: LiveBus, messages: MessagesService, options: FeedOptions = {}) {
  const replayWindowMs = options.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
  /** The one held /updates call per agent instance (B-140): a new call aborts the one before. */
  const holders = new Map<string, AbortController>();

  /** The newest seq of the log (an index lookup; Prisma's aggregate scans the table). */
  const head = async (): Promise<number> => (await db.event.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }))?.seq ?? 0;

  /** The agent's message seqs after `after`: a range of the audience's (member_id, event_seq) key. */
  async function seqsAfter(agentId: string, after: number, limit: number): Promise<{ seq: number; sent_at: Date }[]> {
    const rows = await db.$queryRawUnsafe<{ seq: number; sent_at: Date | string }[]>(
      `SELECT a.event_seq AS seq, e.sent_at FROM event_audience a JOIN events e ON e.seq = a.event_seq
       WHERE a.member_id = $1 AND a.event_seq > $2 AND e.kind = 'message' ORDER BY a.event_seq LIMIT $3`,
      agentId,
      after,
      limit,
    );
    return rows.map((r) => ({ seq: Number(r.seq), sent_at: r.sent_at instanceof Date ? r.sent_at : new Date(r.sent_at) }));
  }

  /**
   * Where a cursor points. No cursor: now (B-139, no back-dump). A cursor whose first unseen event
   * is older than the replay window, or that is ahead of this log (another deployment's, a reset
   * database), is expired (B-138): the client catches up over REST and starts again.
   */
  async function resolve(agentId: string, cursor: string | null | undefined): Promise<Position> {
    if (cursor === null || cursor === undefined || cursor === "") return { seq: await head(), expired: false };
    const seq = decodeUpdatesCursor(cursor);
    if (seq === null) throw HubError.invalid({ cursor: "bad_cursor" }, "the cursor is not one /updates or /ws gave out");
    const now = await head();
    if (seq > now) return { seq: now, expired: true };
    const [first] = await seqsAfter(agentId, seq, 1);
    if (first && first.sent_at.getTime() < Date.now() - replayWindowMs) return { seq: now, expired: true };
    return { seq, expired: false };
  }

  /** The agent's events after `after`, rendered for it; `seq` is where the batch ends. */
  async function read(agentId: string, after: number, limit = FEED_BATCH_MAX): Promise<{ events: UpdatesEvent[]; seq: number }> {
    const seqs = await seqsAfter(agentId, after, limit);
    if (seqs.length === 0) return { events: [], seq: after };
    const rows = await db.event.findMany({ where: { seq: { in: seqs.map((s) => s.seq) } }, orderBy: { seq: "asc" }, select: agentMessageSelect });
    const rendered = await renderForAgent(db, agentId, rows);
    return { events: rendered.map(toUpdatesEvent), seq: rows.at(-1)?.seq ?? after };
  }

  /** §9.1 / v1.23: handing a message to the agent's own token sets delivered_at, once. */
  async function delivered(agentId: string, events: UpdatesEvent[]): Promise<void> {
    await messages.markDeliveredTo(agentId, events.map((e) => Number(e.message.id.slice(4))));
  }

  /** Subscribe before reading: `next` resolves on the next event for `agentId`, a timeout or an abort. */
  function listen(agentId: string) {
    let pending = false;
    let wake: (() => void) | null = null;
    const stop = bus.subscribe((message) => {
      if (message.type !== "event" || !reaches(message, agentId)) return;
      pending = true;
      wake?.();
    });
    return {
      async next(timeoutMs: number, signal?: AbortSignal): Promise<"event" | "timeout" | "aborted"> {
        if (pending) {
          pending = false;
          return "event";
        }
        if (signal?.aborted) return "aborted";
        return new Promise((resolve) => {
          const done = (how: "event" | "timeout" | "aborted") => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            wake = null;
            pending = false;
            resolve(how);
          };
          const onAbort = () => done("aborted");
          const timer = setTimeout(() => done("timeout"), Math.max(0, timeoutMs));
          signal?.addEventListener("abort", onAbort, { once: true });
          wake = () => done("event");
        });
      },
      stop,
    };
  }

  return {
    head,
    resolve,
    read,
    delivered,
    listen,

    /**
     * GET /updates (B-127…B-140): holds until the agent's next event or `wait` seconds, and answers
     * `{cursor, events}` either way. A second call for the same agent instance displaces this one,
     * which answers at once with its own cursor and no events (B-140, OQ-B-17).
     */
    async updates(agent: AgentCaller, query: unknown, signal?: AbortSignal): Promise<UpdatesAnswer> {
      const q = parseInput(updatesQuery, query);
      const key = `${agent.id} ${agent.instanceId ?? ""}`;
      holders.get(key)?.abort();
      const mine = new AbortController();
      holders.set(key, mine);
      const stopped = signal ? AbortSignal.any([signal, mine.signal]) : mine.signal;
      const listener = listen(agent.id);
      try {
        const position = await resolve(agent.id, q.cursor);
        if (position.expired) throw new CursorExpired();
        const deadline = Date.now() + q.wait * 1000;
        const given = encodeUpdatesCursor(position.seq);
        for (;;) {
          if (stopped.aborted) return { cursor: given, events: [] };
          const batch = await read(agent.id, position.seq);
          if (batch.events.length > 0) {
            if (!signal?.aborted) await delivered(agent.id, batch.events);
            return { cursor: encodeUpdatesCursor(batch.seq), events: batch.events };
          }
          const left = deadline - Date.now();
          if (left <= 0) return { cursor: given, events: [] };
          // Only an event is worth reading the log again for; a timeout or a displacement answers as it is.
          if ((await listener.next(left, stopped)) !== "event") return { cursor: given, events: [] };
        }
      } finally {
        listener.stop();
        if (holders.get(key) === mine) holders.delete(key);
      }
    },
  };
}
export type AgentFeed = ReturnType<typeof agentFeed>;
