import type { ProjectRef } from "@maity/domain";
import type { Db } from "@maity/db";
import { refuseClosed, refuseObserver, resolveConversation } from "../access/resolve.ts";
import { logHead } from "../delivery/append.ts";
import type { LiveBus } from "../delivery/bus.ts";
import type { Caller } from "../access/caller.ts";
import { publishTyping } from "../delivery/typing.ts";

// The dashboard's live feed helpers: its backfill, where it starts, where an event happened, and a
// person typing.

export function messageLive(db: Db, bus: LiveBus) {
  return {
    /**
     * The live feed's backfill (dashboard): events addressed to the caller after `after`, oldest
     * first, with the project and conversation they belong to. Ids and seqs only: readers reload.
     */
    async feedSince(caller: Caller, after: number, upTo: number, limit = 100) {
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
}
