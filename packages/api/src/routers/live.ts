import { HubError, type LiveEvent, liveEventSchema } from "@maity/domain";
import { type BusMessage, type LogEvent, reaches } from "@maity/hub";
import { tracked } from "@trpc/server";
import { z } from "zod";
import { authedProcedure, router, toTRPCError } from "../trpc.ts";

// The dashboard's live feed (SSE): the bus followed in log order, a resume backfilled from the log.

/** Every item of the feed, in one shape: a LiveEvent tracked at the feed's position (its resume point). */
const at = (position: number, item: LiveEvent) => tracked(String(position), item);

export const liveRouter = router({
  /**
   * The dashboard's live feed over SSE: listen to the bus first, then backfill from the log after
   * `lastEventId`, and yield `tracked(seq)` so a dropped connection resumes where it stopped.
   * Items say where something happened; the client reloads what it shows (no message is doubled).
   */
  feed: authedProcedure
    .input(z.object({ lastEventId: z.string().nullish() }).optional())
    .subscription(async function* ({ ctx, input, signal }) {
      const caller = ctx.caller;
      // The stream ends when its session is logged out or expires, or its token is
      // revoked — on whichever app instance that happens (the bus); the client hears UNAUTHORIZED.
      const watch = await ctx.hub.auth.watch(caller, ctx.credential ?? (ctx.session ? { session: ctx.session } : null));
      // Follow the ordered log first (events after the process's head, each once, in seq order),
      // then catch up from the log only for a resume; side messages (typing, redactions, reads) come unordered.
      await ctx.hub.bus.ready();
      const queue: (LogEvent | BusMessage)[] = [];
      let wake: (() => void) | null = null;
      const push = (message: LogEvent | BusMessage) => {
        if (!reaches(message, caller.id)) return;
        queue.push(message);
        wake?.();
      };
      const follower = ctx.hub.bus.follow(push, caller.id);
      const stopSide = ctx.hub.bus.subscribe((m) => m.type !== "event" && push(m));
      // Side messages lost with a dropped LISTEN connection (PostgreSQL): say `listening` again.
      let resync = false;
      const stopResync = ctx.hub.bus.onResync(() => {
        resync = true;
        wake?.();
      });
      const ended = signal ? AbortSignal.any([signal, watch.ended]) : watch.ended;
      const aborted = new Promise<void>((resolve) => ended.addEventListener("abort", () => resolve(), { once: true }));
      try {
        const resumeFrom = Number(input?.lastEventId);
        const resuming = Number.isInteger(resumeFrom) && resumeFrom >= 0;
        let last = resuming ? Math.max(resumeFrom, follower.head) : follower.head;
        if (resuming && resumeFrom < follower.head) {
          for (let after = resumeFrom; ; ) {
            const batch = await ctx.hub.messages.feedSince(caller, after, follower.head);
            for (const item of batch) yield at(item.seq, liveEventSchema.parse(item));
            after = batch.at(-1)?.seq ?? after;
            if (batch.length < 100) break;
          }
        }
        // The first item of every connection, once the bus is followed and any resume backfilled:
        // "live from here". tRPC's own `connected` comes before this generator runs, so it cannot
        // say that; a client that loaded its page before this item reads what came between.
        yield at(last, { seq: last, kind: "listening", conversation_id: null, project: null });
        while (!ended.aborted) {
          if (queue.length === 0 && !resync)
            await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
          wake = null;
          if (watch.ended.aborted) throw toTRPCError(HubError.unauthenticated());
          for (const m of queue.splice(0)) {
            if (m.type === "event") {
              if (m.seq <= last) continue;
              last = m.seq;
              const item = {
                seq: m.seq,
                kind: m.kind,
                conversation_id: m.conversationId,
                project: m.project,
                ...(m.maity ? { message: m.maity } : {}),
              };
              yield at(m.seq, item);
            } else if (m.type === "typing") {
              // Someone writing (an agent's POST …/typing): shown for a moment. Every item is tracked at
              // the feed's position, so the browser receives one shape and a resume starts from here.
              yield at(last, {
                seq: 0,
                kind: "typing",
                conversation_id: m.conversationId,
                project: m.project,
                member_id: m.memberId,
              });
            } else if (m.type === "redaction" || m.type === "read") {
              const place = m.project
                ? { conversation_id: m.conversationId, project: m.project }
                : await ctx.hub.messages.eventPlace(m.seq);
              // A redaction or a moved read marker changes no seq of the log: the feed's position stays.
              if (place) yield at(last, { seq: m.seq, kind: m.type, ...place });
            } else if (m.type === "message_changed") {
              // A vote or a reaction changed message `seq`; the client reloads it.
              yield at(last, {
                seq: m.seq,
                kind: m.type,
                conversation_id: m.conversationId,
                project: m.project,
                what: m.what,
              });
            }
          }
          if (resync) {
            resync = false;
            yield at(last, { seq: last, kind: "listening", conversation_id: null, project: null });
          }
        }
        if (watch.ended.aborted) throw toTRPCError(HubError.unauthenticated());
      } finally {
        follower.stop();
        stopSide();
        stopResync();
        watch.stop();
      }
    }),
});
