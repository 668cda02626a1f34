import type { RawQueryable } from "../raw.ts";
import { type KeyRow, mineRule } from "./visibility.ts";

// The `mine` rule of visibility.ts for many agents of one conversation (an agent observes nothing):
// a participant now, an active member of the project, and a direct conversation only while its
// agent is a member — the same fragment (`mineRule`), each agent's own membership in place of the
// caller's projects. The webhook worker asks it once for a batch of deliveries.
const AGENTS_IN_SQL = `
SELECT p.member_id, p.joined_seq AS window_seq, p.read_marker_seq AS marker, p.history_floor
FROM participations p
WHERE p.conversation_id = $1 AND p.member_id = ANY($2::text[]) AND p.left_at IS NULL
  AND ${mineRule(`EXISTS (SELECT 1 FROM memberships m
              WHERE m.project_id = p.project_id AND m.member_id = p.member_id AND m.status = 'active')`)}`;

/**
 * Which of `agentIds` see the conversation `key` (readKeys' rule), with each one's window and marker:
 * one statement for many agents. `row` is the conversation as one of them reads it (readKeys, lean).
 */
export async function agentsInRoom(db: RawQueryable, row: KeyRow, agentIds: string[]): Promise<Map<string, KeyRow>> {
  const rows = await db.$queryRawUnsafe<
    { member_id: string; window_seq: number; marker: number; history_floor: number | null }[]
  >(AGENTS_IN_SQL, row.key, agentIds);
  return new Map(
    rows.map((r) => [
      r.member_id,
      {
        ...row,
        windowSeq: Number(r.window_seq),
        marker: Number(r.marker),
        historyFloor: r.history_floor === null ? null : Number(r.history_floor),
      },
    ]),
  );
}
