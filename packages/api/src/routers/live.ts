import { HubError, type LiveEvent } from "@maity/domain";
import { tracked } from "@trpc/server";
import { z } from "zod";
import { authedProcedure, router, toTRPCError } from "../trpc.ts";

// The dashboard's live feed (SSE): the hub's subscription (listen first, backfill, tracked
// positions; hub/src/delivery/subscription.ts) mapped onto tRPC's `tracked`.

export const liveRouter = router({
  /**
   * Every item is a LiveEvent tracked at the feed's position (its resume point): a dropped
   * connection resumes after `lastEventId`. Items say where something happened; the client reloads
   * what it shows (no message is doubled). The first item of every connection is `listening`:
   * tRPC's own `connected` comes before this generator runs, so it cannot say "live from here".
   */
  feed: authedProcedure
    .input(z.object({ lastEventId: z.string().nullish() }).optional())
    .subscription(async function* ({ ctx, input, signal }) {
      // The stream ends when its session is logged out or expires, or its token is revoked — on
      // whichever app instance that happens (the bus); the client hears UNAUTHORIZED.
      const watch = await ctx.hub.auth.watch(
        ctx.caller,
        ctx.credential ?? (ctx.session ? { session: ctx.session } : null),
      );
      const ended = signal ? AbortSignal.any([signal, watch.ended]) : watch.ended;
      const resumeFrom = Number(input?.lastEventId);
      const after = Number.isSafeInteger(resumeFrom) && resumeFrom >= 0 ? resumeFrom : null;
      try {
        for await (const delivered of ctx.hub.messages.feed(ctx.caller, after, ended)) {
          const item: LiveEvent =
            "listening" in delivered
              ? { seq: delivered.position, kind: "listening", conversation_id: null, project: null }
              : delivered.item;
          yield tracked(String(delivered.position), item);
        }
        if (watch.ended.aborted) throw toTRPCError(HubError.unauthenticated());
      } finally {
        watch.stop();
      }
    }),
});
