import type { LiveEvent, ProjectRef } from "@maity/domain";
import type { Db } from "@maity/db";
import { refuseClosed, refuseObserver, resolveConversation } from "../access/resolve.ts";
import { logHead } from "../delivery/append.ts";
import type { BusMessage, LiveBus, LogEvent } from "../delivery/bus.ts";
import type { Caller } from "../access/caller.ts";
import { type Delivered, subscribe } from "../delivery/subscription.ts";
import { publishTyping } from "../delivery/typing.ts";

// The dashboard's live feed: where something happened, as typed LiveEvents at their log position;
// its backfill, where it starts, where an event happened, and a person typing.

/** The backfill's page: a resume reads the log in pages of this many events. */
const FEED_PAGE = 100;

/** A log event as the dashboard's item: where it happened, and a message as every Maity reader sees it. */
function liveEventOf(event: LogEvent): LiveEvent {
  return {
    seq: event.seq,
    kind: event.kind,
    conversation_id: event.conversationId,
    project: event.project,
    ...(event.maity ? { message: event.maity } : {}),
  };
}

export function messageLive(db: Db, bus: LiveBus) {
  const live = {
    /**
     * The dashboard's live feed (SSE): listens first, then backfills (after, head] when resuming,
     * says `listening` (the feed is live from there: what a page loaded before may have missed, it
     * reads again), then hands on what the bus brings for the caller until `signal` aborts.
     * Side items (typing, a read, a redaction, a change) change no position of the log: they are
     * tracked at the feed's current position, so a resume starts after the last log event seen.
     */
    feed(caller: Caller, after: number | null, signal: AbortSignal): AsyncGenerator<Delivered<LiveEvent>> {
      return subscribe<LiveEvent>(bus, {
        memberId: caller.id,
        after,
        page: FEED_PAGE,
        signal,
        event: liveEventOf,
        side: (m) => sideItem(m),
        backfill: async (from, upTo) =>
          (await live.feedSince(caller, from, upTo, FEED_PAGE)).map((item) => ({ position: item.seq, item })),
      });
    },

    /**
     * The live feed's backfill (dashboard): events addressed to the caller after `after`, oldest
     * first, with the project and conversation they belong to. Ids and seqs only: readers reload.
     */
    async feedSince(caller: Caller, after: number, upTo: number, limit = FEED_PAGE): Promise<LiveEvent[]> {
      const rows = await db.event.findMany({
        where: { seq: { gt: after, lte: upTo }, audience: { some: { memberId: caller.id } } },
        orderBy: { seq: "asc" },
        take: limit,
        select: {
          seq: true,
          kind: true,
          conversation: {
            select: { publicId: true, project: { select: { slug: true, bay: { select: { handle: true } } } } },
          },
        },
      });
      return rows.map((r) => ({
        seq: r.seq,
        kind: r.kind,
        conversation_id: r.conversation?.publicId ?? null,
        project: r.conversation
          ? { owner: r.conversation.project.bay.handle, slug: r.conversation.project.slug }
          : null,
      }));
    },

    /** The newest seq of the log (where a fresh live feed starts). */
    async lastSeq(): Promise<number> {
      return logHead(db);
    },

    /** A person writing in the dashboard's composer; observers only read, a closed chat takes nothing. */
    async typing(caller: Caller, ref: ProjectRef, conversationId: string): Promise<void> {
      const row = await resolveConversation(db, caller, ref, conversationId, { lean: true });
      refuseObserver(row);
      refuseClosed(row);
      await publishTyping(db, bus, row, caller.id);
    },

    /** Where a redaction happened, for the live feed. */
    async eventPlace(seq: number) {
      const e = await db.event.findUnique({
        where: { seq },
        select: {
          conversation: {
            select: { publicId: true, project: { select: { slug: true, bay: { select: { handle: true } } } } },
          },
        },
      });
      return e?.conversation
        ? {
            conversation_id: e.conversation.publicId,
            project: { owner: e.conversation.project.bay.handle, slug: e.conversation.project.slug },
          }
        : null;
    },
  };

  /** A side message as the dashboard's item; a redaction or read without its place looks it up. */
  async function sideItem(m: Exclude<BusMessage, { type: "event" }>): Promise<LiveEvent | null> {
    if (m.type === "typing")
      // Someone writing (an agent's POST …/typing, a person's composer): shown for a moment.
      return { seq: 0, kind: "typing", conversation_id: m.conversationId, project: m.project, member_id: m.memberId };
    if (m.type === "redaction" || m.type === "read") {
      const place = m.project
        ? { conversation_id: m.conversationId, project: m.project }
        : await live.eventPlace(m.seq);
      return place ? { seq: m.seq, kind: m.type, ...place } : null;
    }
    if (m.type === "agent_context")
      // An agent's ring moved: the lists and the open chat read its participants again.
      return { seq: 0, kind: "agent_context", conversation_id: null, project: null, member_id: m.agentId };
    if (m.type === "message_changed")
      // A vote or a reaction changed message `seq`; the client reloads it.
      return { seq: m.seq, kind: m.type, conversation_id: m.conversationId, project: m.project, what: m.what };
    return null;
  }

  return live;
}
