import {
  HubError,
  type eventsQuery,
  type listMessagesQuery,
  type MessageRouting,
  type ProjectRef,
} from "@maity/domain";
import type { z } from "zod";
import type { Db, SqlRunner } from "@maity/db";
import { memberProject, resolveConversation } from "../access/resolve.ts";
import type { LiveBus } from "../delivery/bus.ts";
import type { Caller } from "../access/caller.ts";
import { MARK_READ_SQL } from "../conversations/counters.ts";
import { withMedia } from "./media.ts";
import type { KeyRow } from "../access/visibility.ts";
import { type MessageRow, messageSelect, readerOf, renderEvent, renderMessage } from "./render.ts";

// The read path (§9.1, §9.2, §8.2): a chat's window after the read marker and its history, the read
// marker and delivered_at, the caller's slice of the event log, the stored routing verdicts.

export function messageReads(db: Db, sql: SqlRunner, bus: LiveBus) {
  /** The participant's read marker moves up to `highest` (§9.2 Read and unread); an observer marks nothing. */
  async function markRead(caller: Caller, row: KeyRow, highest: number): Promise<void> {
    if (row.access === "observer" || row.marker === null || highest <= row.marker) return;
    // The counters move with the marker, in the same statement (counters.ts).
    await sql.query(MARK_READ_SQL, [row.key, caller.id, highest]);
    bus.publish({
      type: "read",
      seq: highest,
      conversationId: row.id,
      project: { owner: row.projectOwner, slug: row.projectSlug },
      audience: [caller.id],
    });
  }

  async function markDelivered(caller: Caller, row: KeyRow, page: MessageRow[]): Promise<void> {
    if (row.kind !== "direct") return;
    const undelivered = page.filter((m) => m.toId === caller.id && m.deliveredAt === null);
    if (undelivered.length === 0) return;
    const now = new Date();
    await db.event.updateMany({
      where: { seq: { in: undelivered.map((m) => m.seq) }, deliveredAt: null },
      data: { deliveredAt: now },
    });
    for (const m of undelivered) m.deliveredAt = now;
  }

  return {
    markRead,

    /**
     * The dashboard's explicit, debounced "read up to here" (§9.2 read marker): it shows messages from the
     * live feed without reading them, then moves the marker, capped at the chat's last message.
     */
    async markReadUpTo(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      seq: number,
    ): Promise<{ read_marker: number | null }> {
      const row = await resolveConversation(db, caller, ref, conversationId);
      const highest = Math.min(seq, row.last?.seq ?? 0);
      await markRead(caller, row, highest);
      return { read_marker: row.access === "observer" ? null : Math.max(highest, row.marker ?? 0) };
    },

    /** §9.1: a direct message to `agentId` handed to it is delivered, once (v1.23: its own token only). */
    async markDeliveredTo(agentId: string, seqs: number[]): Promise<void> {
      if (seqs.length === 0) return;
      // On the driver (a prepared statement): it follows every direct message an agent is handed.
      await sql.query(
        "UPDATE events SET delivered_at = $1::timestamp WHERE seq = ANY($2::int[]) AND to_id = $3 AND delivered_at IS NULL",
        [new Date().toISOString(), seqs, agentId],
      );
    },

    /**
     * GET …/messages. Without `before`: the window after `after` (default: the read marker), oldest
     * first, moving the participant's marker and setting delivered_at once (§9.1). With `before`:
     * the chat's history, whenever the reader joined; marks nothing read, wakes nobody (§9.2).
     */
    async list(caller: Caller, ref: ProjectRef, conversationId: string, q: z.output<typeof listMessagesQuery>) {
      if (q.after !== undefined && q.before !== undefined)
        throw HubError.invalid({ before: "not_with_after" }, "after and before together are invalid");
      if (q.around !== undefined && (q.after !== undefined || q.before !== undefined))
        throw HubError.invalid({ around: "not_with_after_or_before" }, "around goes alone");
      const row = await resolveConversation(db, caller, ref, conversationId);
      const reader = await readerOf(db, caller, row.projectId);
      if (q.around !== undefined) {
        // A search result opened in its chat (DESIGN §4d): history like `before`, so nothing is
        // marked read; the message itself and what precedes it fill the first half.
        const half = Math.ceil(q.limit / 2);
        const [older, newer] = await Promise.all([
          db.event.findMany({
            where: { conversationId: row.key, kind: "message", seq: { lte: q.around } },
            orderBy: { seq: "desc" },
            take: half + 1,
            select: messageSelect,
          }),
          db.event.findMany({
            where: { conversationId: row.key, kind: "message", seq: { gt: q.around } },
            orderBy: { seq: "asc" },
            take: q.limit - half + 1,
            select: messageSelect,
          }),
        ]);
        const before = older.slice(0, half).reverse();
        const after = newer.slice(0, q.limit - half);
        const page = [...before, ...after];
        await markDelivered(caller, row, page);
        return {
          items: await withMedia(
            db,
            caller.id,
            page.map((m) => renderMessage(m, reader)),
          ),
          earlier: older.length > half ? (before[0]?.seq ?? null) : null,
          later: newer.length > q.limit - half ? (after.at(-1)?.seq ?? null) : null,
        };
      }
      if (q.before !== undefined) {
        const rows = await db.event.findMany({
          where: { conversationId: row.key, kind: "message", seq: { lt: q.before } },
          orderBy: { seq: "desc" },
          take: q.limit + 1,
          select: messageSelect,
        });
        const page = rows.slice(0, q.limit).reverse();
        await markDelivered(caller, row, page);
        return {
          // Each poll's tally and each message's reactions, as this reader sees them.
          items: await withMedia(
            db,
            caller.id,
            page.map((m) => renderMessage(m, reader)),
          ),
          earlier: rows.length > q.limit ? (page[0]?.seq ?? null) : null,
        };
      }
      const from = Math.max(q.after ?? row.marker ?? row.windowSeq, row.windowSeq);
      const rows = await db.event.findMany({
        where: { conversationId: row.key, kind: "message", seq: { gt: from } },
        orderBy: { seq: "asc" },
        take: q.limit + 1,
        select: messageSelect,
      });
      const page = rows.slice(0, q.limit);
      const highest = page.at(-1)?.seq ?? 0;
      await markRead(caller, row, highest);
      await markDelivered(caller, row, page);
      return {
        items: await withMedia(
          db,
          caller.id,
          page.map((m) => renderMessage(m, reader)),
        ),
        next_cursor: rows.length > q.limit ? String(highest) : null,
      };
    },

    /** GET …/events: the caller's readable set (§8.2): events addressed to it — and, for an owner, to its agents. */
    async events(caller: Caller, ref: ProjectRef, q: z.output<typeof eventsQuery>) {
      // No event reaches a non-member (§9.2 M-146).
      const project = await memberProject(db, caller, ref);
      const readers = [caller.id];
      if (caller.kind === "human")
        readers.push(
          ...(await db.agent.findMany({ where: { ownerId: caller.id }, select: { id: true } })).map((a) => a.id),
        );
      const rows = await db.event.findMany({
        where: {
          projectId: project.id,
          seq: { gt: q.after ?? 0 },
          audience: { some: { memberId: { in: readers } } },
          kind: { in: ["message", "conversation_created", "conversation_updated"] },
        },
        orderBy: { seq: "asc" },
        take: q.limit + 1,
        select: messageSelect,
      });
      const page = rows.slice(0, q.limit);
      const reader = await readerOf(db, caller, project.id);
      return {
        items: await withMedia(
          db,
          caller.id,
          page.map((e) => renderEvent(e, reader)),
        ),
        next_cursor: rows.length > q.limit ? String(page.at(-1)?.seq ?? 0) : null,
      };
    },

    /**
     * The stored routing verdicts (004 §4) of messages of one conversation the caller reads (any
     * reader of the chat, observers included, sees its history), so the dashboard shows who was
     * asked to answer and why. Seqs outside it are left out.
     */
    async routing(caller: Caller, ref: ProjectRef, conversationId: string, seqs: number[]): Promise<MessageRouting[]> {
      const row = await resolveConversation(db, caller, ref, conversationId, { lean: true });
      if (seqs.length === 0) return [];
      const verdicts = await db.routingVerdict.findMany({
        where: { eventSeq: { in: [...new Set(seqs)] }, event: { conversationId: row.key, kind: "message" } },
        select: { eventSeq: true, agentId: true, shouldRespond: true, reason: true },
        orderBy: [{ eventSeq: "asc" }, { agentId: "asc" }],
      });
      const bySeq = new Map<number, MessageRouting["agents"]>();
      for (const v of verdicts) {
        const agents = bySeq.get(v.eventSeq) ?? [];
        agents.push({
          agent_id: v.agentId,
          should_respond: v.shouldRespond,
          reason: v.reason as MessageRouting["agents"][number]["reason"],
        });
        bySeq.set(v.eventSeq, agents);
      }
      return [...bySeq].map(([seq, agents]) => ({ seq, agents }));
    },
  };
}
