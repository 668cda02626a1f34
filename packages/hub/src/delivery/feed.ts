import {
  decodeUpdatesCursor,
  encodeUpdatesCursor,
  type Features,
  featuresOf,
  HubError,
  seqOfMessageId,
  shouldRespondFor,
  type UpdatesAnswer,
  type UpdatesEvent,
  type updatesQuery,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { z } from "zod";
import { readAgentMessageRows, renderForAgent, toUpdatesEvent } from "../messages/agentView.ts";
import { logHead } from "./append.ts";
import type { LiveBus, LogEvent } from "./bus.ts";
import { Subscription } from "./subscription.ts";
import type { CredentialWatch } from "../auth/service.ts";
import type { AgentCaller } from "../access/caller.ts";
import type { MessagesService } from "../messages/service.ts";
import type { HandedStore } from "../knowledge/handed.ts";
import type { ContextService } from "../knowledge/context.ts";

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

export class CursorExpired extends Error {
  override name = "CursorExpired";
}

/** A batch of the agent's events; `seq` is the position after it (the cursor to give out). */
export type FeedBatch = { events: UpdatesEvent[]; seq: number };

/** The agent's copy of a logged message: the rendered event with its own verdict (DESIGN §1). */
export function forAgent(event: LogEvent, agentId: string): UpdatesEvent | null {
  if (event.kind !== "message" || !event.agent || !event.audience.includes(agentId)) return null;
  const e = event.agent.event;
  return {
    ...e,
    message: { ...e.message, shouldRespond: shouldRespondFor(e.message.senderId, event.agent.respond, agentId) },
  };
}

export function agentFeed(
  db: Db,
  bus: LiveBus,
  messages: MessagesService,
  handed: HandedStore,
  memory: Pick<ContextService, "takeNotice">,
  options: FeedOptions = {},
) {
  const replayWindowMs = options.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
  /** The one held /updates call per agent instance (B-140): a new call aborts the one before. */
  const holders = new Map<string, AbortController>();

  /** The agent's message seqs in (after, upTo]: a range of the audience's (member_id, event_seq) key. */
  async function seqsAfter(
    agentId: string,
    after: number,
    upTo: number,
    limit: number,
  ): Promise<{ seq: number; sent_at: Date }[]> {
    const rows = await db.$queryRawUnsafe<{ seq: number; sent_at: Date | string }[]>(
      `SELECT a.event_seq AS seq, e.sent_at FROM event_audience a JOIN events e ON e.seq = a.event_seq
       WHERE a.member_id = $1 AND a.event_seq > $2 AND a.event_seq <= $3 AND e.kind = 'message' ORDER BY a.event_seq LIMIT $4`,
      agentId,
      after,
      upTo,
      limit,
    );
    return rows.map((r) => ({
      seq: Number(r.seq),
      sent_at: r.sent_at instanceof Date ? r.sent_at : new Date(r.sent_at),
    }));
  }

  /** The agent's events in (after, upTo] from the log, rendered for it (catching up from a cursor). */
  async function readLog(
    agentId: string,
    after: number,
    upTo: number,
    limit = FEED_BATCH_MAX,
  ): Promise<FeedBatch & { more: boolean; first: Date | null }> {
    const seqs = await seqsAfter(agentId, after, upTo, limit);
    if (seqs.length === 0) return { events: [], seq: upTo, more: false, first: null };
    const rows = await readAgentMessageRows(
      db,
      seqs.map((s) => s.seq),
    );
    const rendered = await renderForAgent(db, agentId, rows);
    const more = seqs.length === limit;
    return {
      events: rendered.map(toUpdatesEvent),
      seq: more ? (rows.at(-1)?.seq ?? after) : upTo,
      more,
      first: seqs[0]?.sent_at ?? null,
    };
  }

  /**
   * B-284…B-287: the 90 % notice rides the first event of a batch that shows it — only for a client
   * that asked (features=notice), so one that did not never spends it.
   */
  async function withNotice(agentId: string, features: Features, events: UpdatesEvent[]): Promise<UpdatesEvent[]> {
    if (!features.has("notice") || events.length === 0) return events;
    const notice = await memory.takeNotice(agentId);
    if (!notice) return events;
    const [first, ...rest] = events as [UpdatesEvent, ...UpdatesEvent[]];
    return [{ ...first, notice }, ...rest];
  }

  /** §9.1 / v1.23: handing a direct message to the agent's own token sets delivered_at, once. */
  async function delivered(agentId: string, events: UpdatesEvent[]): Promise<void> {
    const seqs = events
      .filter((e) => e.conversation.type === "DM" && e.message.senderId !== agentId)
      .map((e) => seqOfMessageId(e.message.id) ?? 0);
    await messages.markDeliveredTo(agentId, seqs);
  }

  /**
   * The agent's stream from a cursor (/updates and /ws alike, B-144). It follows the ordered bus
   * first, then catches up on (cursor, head] — from the process's recent events, or the log when
   * the cursor is older than those — and then hands on what the bus brings, rendered once by the
   * write: an agent that keeps up costs no SQL statement per message.
   * No cursor: now (B-139, no back-dump). A cursor whose first unseen event is older than the
   * replay window, or that is ahead of this log (another deployment's, a reset database), is
   * expired (B-138): the client catches up over REST and starts again from now.
   */
  async function open(agentId: string, cursor: string | null | undefined) {
    let asked: number | null = null;
    if (cursor !== null && cursor !== undefined && cursor !== "") {
      asked = decodeUpdatesCursor(cursor);
      if (asked === null)
        throw HubError.invalid({ cursor: "bad_cursor" }, "the cursor is not one /updates or /ws gave out");
    }
    // Listen first (the bus hands on this agent's events from its head on), then read up to the head.
    const subscription = await Subscription.open<UpdatesEvent>(bus, {
      memberId: agentId,
      event: (event) => forAgent(event, agentId),
    });
    const head = subscription.head;
    // `position` is where the stream stands: the subscription drops the bus's events at or before it.
    let expired = false;
    let catchUp: number | null = null;
    let first: FeedBatch | null = null;
    try {
      // No cursor: now, as the log says — this process may not have sequenced the newest event yet.
      let position = asked ?? Math.max(head, await logHead(db));
      // A cursor ahead of this process may come from an instance whose bus is a moment ahead: the log decides.
      if (position > head && position > (await logHead(db))) {
        expired = true;
        position = head;
      } else if (position < head) {
        catchUp = head;
        const recent = bus.recent(position, head);
        const mine = recent?.filter((e) => e.kind === "message" && e.audience.includes(agentId));
        if (mine && mine.length <= FEED_BATCH_MAX && mine.every((e) => e.agent)) {
          // The process still holds these events, rendered: no statement.
          first = {
            events: mine.map((e) => forAgent(e, agentId)).filter((e): e is UpdatesEvent => e !== null),
            seq: head,
          };
          catchUp = null;
          const oldest = mine[0]?.sentAt;
          if (oldest && Date.parse(oldest) < Date.now() - replayWindowMs) expired = true;
        } else {
          const batch = await readLog(agentId, position, head);
          first = batch;
          if (!batch.more) catchUp = null;
          if (batch.first && batch.first.getTime() < Date.now() - replayWindowMs) expired = true;
        }
        if (expired) {
          first = null;
          catchUp = null;
          position = head;
        }
      }
      subscription.position = position;
    } catch (error) {
      subscription.stop();
      throw error;
    }
    const since = subscription.position;

    return {
      /** Where the stream starts (the cursor to give when nothing comes), and whether the cursor had expired. */
      start: { seq: since, expired },
      /** The next batch of the agent's events, or null on a timeout or an abort. */
      async next(timeoutMs: number, signal?: AbortSignal): Promise<FeedBatch | null> {
        if (first) {
          const batch = first;
          first = null;
          subscription.position = batch.seq;
          if (batch.events.length > 0) return batch;
        }
        if (catchUp !== null) {
          const batch = await readLog(agentId, subscription.position, catchUp);
          if (!batch.more) catchUp = null;
          subscription.position = batch.seq;
          if (batch.events.length > 0) return batch;
        }
        for (;;) {
          // Events the bus brought that the catch-up already covered are dropped by the subscription.
          const taken = await subscription.take(FEED_BATCH_MAX);
          if (taken.length > 0) return { events: taken.map((t) => t.item), seq: subscription.position };
          // A resync concerns side messages; this stream's events come from the log's chain.
          subscription.takeResync();
          if (signal?.aborted) return null;
          if ((await subscription.wait(timeoutMs, signal)) !== "pending") return null;
        }
      },
      stop: () => subscription.stop(),
    };
  }

  return {
    open,
    delivered,
    withNotice,

    /**
     * GET /updates (B-127…B-140): holds until the agent's next event or `wait` seconds, and answers
     * `{cursor, events}` either way. A second call for the same agent instance displaces this one,
     * which answers at once with its own cursor and no events (B-140, OQ-B-17).
     */
    async updates(
      agent: AgentCaller,
      q: z.output<typeof updatesQuery>,
      signal?: AbortSignal,
      credential?: Pick<CredentialWatch, "ended" | "still">,
    ): Promise<UpdatesAnswer> {
      const key = `${agent.id} ${agent.instanceId ?? ""}`;
      holders.get(key)?.abort();
      const mine = new AbortController();
      holders.set(key, mine);
      const ends = [mine.signal, ...(signal ? [signal] : []), ...(credential ? [credential.ended] : [])];
      const stopped = AbortSignal.any(ends);
      try {
        const stream = await open(agent.id, q.cursor);
        try {
          if (stream.start.expired) throw new CursorExpired();
          const batch = stopped.aborted ? null : await stream.next(q.wait * 1000, stopped);
          // A held call whose token was revoked answers as the revoked token would (B-011
          // 401), and events are handed only while the token still holds — read from the database,
          // since the revocation's bus message may arrive after an event written after it.
          const revoked = credential?.ended.aborted || (batch && credential && !(await credential.still()));
          if (revoked) throw HubError.unauthenticated();
          if (!batch) return { cursor: encodeUpdatesCursor(stream.start.seq), events: [] };
          // B-264, B-249: what this instance was not handed yet rides its events, recorded before the
          // answer goes; the batch follows the cursor it asked from (or now), which confirms what came before.
          const at = { confirmed: stream.start.seq, position: stream.start.seq };
          const features = featuresOf(q.features);
          const events = await withNotice(agent.id, features, await handed.feed(agent, features, at, batch.events));
          if (!signal?.aborted) await delivered(agent.id, events);
          return { cursor: encodeUpdatesCursor(batch.seq), events };
        } finally {
          stream.stop();
        }
      } finally {
        if (holders.get(key) === mine) holders.delete(key);
      }
    },
  };
}
export type AgentFeed = ReturnType<typeof agentFeed>;
