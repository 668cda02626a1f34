import {
  type AgentSummaryAnswer,
  agentSummaryOf,
  type ConversationSummary,
  encodeHistoryCursor,
  type ProjectRef,
  SUMMARY_TAIL_MAX,
  summaryServedTo,
  summaryStatus,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { AgentCaller, Caller } from "../access/caller.ts";
import { resolveConversation } from "../access/resolve.ts";
import type { KeyRow } from "../access/visibility.ts";
import { agentMessageSelect, renderForAgent } from "../messages/agentView.ts";
import { withAgentMedia, withMedia } from "../messages/media.ts";
import { messageSelect, readerOf, renderMessage } from "../messages/render.ts";
import type { SummaryStore } from "./summary.ts";

// Reading a chat's summary (004 §6 "Returning after a gap"; DESIGN §4b): the record — when this
// reader may be served it — and every message after its boundary, raw and in full (B-108), oldest
// first; more than SUMMARY_TAIL_MAX and the newest come with a way to page back (B-112). A read
// never waits for a generator (B-111): the store kicks one in the background when the record is
// behind. People and agents read the same record, each in its own shape.

/** What the agent's side needs of the agents service: the room as the agent sees it, and its floor. */
export interface AgentRooms {
  room(agent: AgentCaller, key: string): Promise<KeyRow | null>;
  historyFloor(agent: AgentCaller, row: KeyRow): Promise<number>;
}

export function summaryReads(db: Db, store: SummaryStore, rooms: AgentRooms, delivered: DeliveredTo) {
  /** The newest messages after `after`, at most SUMMARY_TAIL_MAX, and whether more lie between. */
  async function tailRows<S extends typeof messageSelect | typeof agentMessageSelect>(
    key: string,
    after: number,
    select: S,
  ) {
    const rows = await db.event.findMany({
      where: { conversationId: key, kind: "message", seq: { gt: after } },
      orderBy: { seq: "desc" },
      take: SUMMARY_TAIL_MAX + 1,
      select,
    });
    return { rows: rows.slice(0, SUMMARY_TAIL_MAX).reverse(), more: rows.length > SUMMARY_TAIL_MAX };
  }

  return {
    /** GET /api/projects/{owner}/{slug}/conversations/{id}/summary: any reader of the chat (observers too). */
    async forPeople(caller: Caller, ref: ProjectRef, conversationId: string): Promise<ConversationSummary> {
      const row = await resolveConversation(db, caller, ref, conversationId);
      const state = await store.state(row.key);
      // People read a chat's whole history whenever they joined (§9.2): no floor.
      const served = state.record !== null;
      const { rows, more } = await tailRows(row.key, served ? state.throughSeq : 0, messageSelect);
      const reader = await readerOf(db, caller, row.projectId);
      return {
        summary: state.record,
        status: summaryStatus(served, state.behind, state.redactedSince),
        messages: await withMedia(
          db,
          caller.id,
          rows.map((m) => renderMessage(m, reader)),
        ),
        earlier: more ? (rows[0]?.seq ?? null) : null,
      };
    },

    /**
     * GET /api/agent-api/conversations/:id/summary; null for a room the agent is not in (B-038). A
     * visitor (a history floor, DESIGN §4c) is served no record that drew on messages below it.
     */
    async forAgent(agent: AgentCaller, key: string): Promise<AgentSummaryAnswer | null> {
      const row = await rooms.room(agent, key);
      if (!row) return null;
      const floor = await rooms.historyFloor(agent, row);
      const state = await store.state(row.key);
      const served = state.record !== null && summaryServedTo(state.fromSeq, floor);
      const { rows, more } = await tailRows(
        row.key,
        Math.max(served ? state.throughSeq : 0, floor),
        agentMessageSelect,
      );
      const rendered = await renderForAgent(db, agent.id, rows);
      // Returned to the agent is delivered (§9.1), as every read of messages does.
      await delivered(
        agent.id,
        rows.map((r) => r.seq),
      );
      return {
        summary: served && state.record ? agentSummaryOf(state.record) : null,
        status: summaryStatus(served, state.behind, state.redactedSince),
        messages: await withAgentMedia(
          db,
          agent.id,
          rendered.map((r) => r.message),
        ),
        nextCursor: more && rows[0] ? encodeHistoryCursor(rows[0].seq) : null,
      };
    },
  };
}

/** Marks direct messages handed to an agent delivered (messages/read.ts markDeliveredTo). */
export type DeliveredTo = (agentId: string, seqs: number[]) => Promise<void>;
