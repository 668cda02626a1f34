import { createHash } from "node:crypto";
import {
  type ContextNotice,
  type ContextReport,
  contextNotice,
  noticeAfter,
  percentOf,
  REARMING_EVENTS,
  tidyText,
} from "@maity/domain";
import type { SqlExecutor, SqlRunner } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import { type KeyRow, readKeys } from "../access/visibility.ts";
import type { LiveBus, LogEvent } from "../delivery/bus.ts";
import { writeQuietLine } from "../messages/quiet.ts";
import { rawOf } from "../raw.ts";
import type { HandedStore } from "./handed.ts";

// Context reports (004 v1.16–v1.17, B-275…B-288; DESIGN §4b): an agent tells the hub how full its
// memory is. A usage reading sets its ring (people see it on every participant list) and may make
// the 90 % notice due; compact_end counts a tidy, posts one quiet line in its chats and re-arms the
// brief and the notes; session_start resets the count and re-arms them; overflow is recorded for its
// owner and starts nothing. One row per agent, changed under its own lock so concurrent reports
// never lose one.

/** A retried compact_end (the same report within this long) posts no second line. */
export const COMPACT_RETRY_WINDOW_MS = 10 * 60 * 1000;

type Row = {
  size: string | number | null;
  runtime: string | null;
  notice_armed: boolean;
  notice_due: number | null;
  last_compact_key: string | null;
  last_compact_at: Date | null;
};

const LOCK_SQL = `
INSERT INTO agent_context (agent_id, updated_at) VALUES ($1, $2::timestamp) ON CONFLICT (agent_id) DO NOTHING`;
const READ_SQL = `
SELECT size, runtime, notice_armed, notice_due, last_compact_key, last_compact_at
FROM agent_context WHERE agent_id = $1 FOR UPDATE`;

/** Who sees an agent's ring: the people of the chats it is in, and its owner. */
const RING_AUDIENCE_SQL = `
SELECT array(
  SELECT DISTINCT p.member_id FROM participations p
  WHERE p.member_kind = 'human' AND p.left_at IS NULL AND p.conversation_id IN (
    SELECT q.conversation_id FROM participations q WHERE q.member_id = $1 AND q.left_at IS NULL)
  UNION SELECT owner_id FROM agents WHERE id = $1) AS audience`;

/** What identifies one report across a client's retries: its Idempotency-Key, else its body. */
const reportKey = (report: ContextReport, idempotencyKey: string | null): string =>
  idempotencyKey ?? createHash("sha256").update(JSON.stringify(report)).digest("hex").slice(0, 32);

export function contextService(sql: SqlRunner, bus: LiveBus, handed: HandedStore) {
  const raw = rawOf(sql);
  /** Who hears a usage reading once it is stored (a session's fresh start at 95 %, B-289). */
  const readers = new Set<(agent: AgentCaller, percent: number) => Promise<void>>();

  /** The chats a report concerns: the one it names when the agent is in it, else all of the agent's (B-282). */
  async function roomsOf(agent: AgentCaller, conversationId: string | undefined): Promise<KeyRow[]> {
    const all = await readKeys(raw, agent, { projectId: null, observed: false, lean: true });
    const named = conversationId === undefined ? [] : all.filter((r) => r.key === conversationId);
    return named.length ? named : all;
  }

  async function tidyLines(tx: SqlExecutor, agent: AgentCaller, rooms: KeyRow[], report: ContextReport, key: string) {
    const lines: LogEvent[] = [];
    const body = tidyText(agent.handle, report.beforeTokens, report.afterTokens);
    for (const room of rooms) {
      const line = await writeQuietLine(tx, room, { type: "context.compacted", actor: agent.id, subject: key, body });
      if (line) lines.push(line);
    }
    return lines;
  }

  return {
    /** POST /api/agent-api/context: the report applied; `{status: "ok"}` whatever it changed. */
    async report(agent: AgentCaller, report: ContextReport, idempotencyKey: string | null = null) {
      const now = new Date();
      const at = now.toISOString();
      const rooms = report.event === "compact_end" ? await roomsOf(agent, report.conversationId) : [];
      const lines = await sql.transaction(async (tx) => {
        await tx.query(LOCK_SQL, [agent.id, at]);
        const [row] = await tx.query<Row>(READ_SQL, [agent.id]);
        if (!row) throw new Error("the agent's context row is missing under its lock");
        const state = { armed: row.notice_armed, due: row.notice_due === null ? null : Number(row.notice_due) };
        const runtime = report.runtime ?? row.runtime ?? undefined;
        // A reading: the ring, and the notice's state after it.
        const reading = (used: number, size: number) => {
          const percent = percentOf(used, size);
          const notice = noticeAfter(state, percent, runtime);
          return tx.query(
            `UPDATE agent_context SET used = $2, size = $3, percent = $4, notice_armed = $5, notice_due = $6,
               reported_at = $7::timestamp, runtime = coalesce($8, runtime), source = coalesce($9, source),
               auto_compact_at = coalesce($10, auto_compact_at), updated_at = $7::timestamp
             WHERE agent_id = $1`,
            [
              agent.id,
              used,
              size,
              percent,
              notice.armed,
              notice.due,
              at,
              report.runtime ?? null,
              report.source ?? null,
              report.autoCompactAt ?? null,
            ],
          );
        };
        switch (report.event) {
          case "usage":
            await reading(report.used as number, report.size as number);
            return [];
          case "compact_start":
            await tx.query(
              "UPDATE agent_context SET compacting_since = $2::timestamp, updated_at = $2::timestamp WHERE agent_id = $1",
              [agent.id, at],
            );
            return [];
          case "compact_end": {
            const key = reportKey(report, idempotencyKey);
            const retried =
              row.last_compact_key === key &&
              row.last_compact_at !== null &&
              now.getTime() - new Date(row.last_compact_at).getTime() < COMPACT_RETRY_WINDOW_MS;
            if (retried) return [];
            await tx.query(
              `UPDATE agent_context SET compactions = compactions + 1, compacting_since = NULL,
                 last_compact_key = $2, last_compact_at = $3::timestamp, updated_at = $3::timestamp WHERE agent_id = $1`,
              [agent.id, key, at],
            );
            // What is left after the tidy is the new reading, when the hub knows the window's size.
            const size = report.size ?? (row.size === null ? null : Number(row.size));
            if (report.afterTokens !== undefined && size) await reading(report.afterTokens, size);
            return tidyLines(tx, agent, rooms, report, key);
          }
          case "session_start":
            await tx.query(
              `UPDATE agent_context SET compactions = 0, compacting_since = NULL, updated_at = $2::timestamp
               WHERE agent_id = $1`,
              [agent.id, at],
            );
            return [];
          case "overflow":
            // B-288: recorded for the owner; it starts nothing.
            await tx.query(
              "UPDATE agent_context SET overflow_at = $2::timestamp, updated_at = $2::timestamp WHERE agent_id = $1",
              [agent.id, at],
            );
            return [];
        }
      });
      for (const line of lines) bus.publish(line);
      // The ring moved: the people who see the agent (its chats' people, its owner) hear it live.
      if (report.event === "usage" || (report.event === "compact_end" && report.afterTokens !== undefined)) {
        const [seen] = await sql.query<{ audience: string[] }>(RING_AUDIENCE_SQL, [agent.id]);
        bus.publish({ type: "agent_context", agentId: agent.id, audience: seen?.audience ?? [] });
      }
      if (REARMING_EVENTS.includes(report.event)) await handed.rearm(agent.id);
      if (report.event === "usage")
        for (const read of readers)
          await read(agent, percentOf(report.used as number, report.size as number)).catch((error: unknown) =>
            console.error("maity: a reading's listener failed", error),
          );
      return { status: "ok" as const };
    },

    /** Hears every usage reading after it is stored (the report answers whatever the listener does). */
    onReading(listener: (agent: AgentCaller, percent: number) => Promise<void>): () => void {
      readers.add(listener);
      return () => readers.delete(listener);
    },

    /**
     * The notices due for these agents, taken in one statement (a webhook round: B-285, the next
     * body carries it): each agent's is spent here, for the body being built.
     */
    async takeNotices(agentIds: readonly string[]): Promise<Map<string, ContextNotice>> {
      if (agentIds.length === 0) return new Map();
      const rows = await sql.query<{ agent_id: string; due: number }>(
        `WITH due AS (SELECT agent_id, notice_due FROM agent_context
                      WHERE agent_id = ANY($1::text[]) AND notice_due IS NOT NULL FOR UPDATE)
         UPDATE agent_context a SET notice_due = NULL FROM due WHERE a.agent_id = due.agent_id
         RETURNING a.agent_id, due.notice_due AS due`,
        [[...new Set(agentIds)]],
      );
      return new Map(rows.map((r) => [r.agent_id, contextNotice(Number(r.due))]));
    },

    /**
     * The 90 % notice, spent by the delivery that shows it (B-284…B-287): one statement that takes it,
     * so any number of concurrent or repeated reads hand it once. Null when none is due.
     */
    async takeNotice(agentId: string): Promise<ContextNotice | null> {
      const [row] = await sql.query<{ due: number }>(
        `WITH due AS (SELECT notice_due FROM agent_context WHERE agent_id = $1 AND notice_due IS NOT NULL FOR UPDATE)
         UPDATE agent_context a SET notice_due = NULL FROM due WHERE a.agent_id = $1 RETURNING due.notice_due AS due`,
        [agentId],
      );
      return row ? contextNotice(Number(row.due)) : null;
    },
  };
}
export type ContextService = ReturnType<typeof contextService>;
