// §9.2 "Read and unread": a participation's unread and mentions_unread are kept on the row, so the
// lists (§9.3) read them instead of counting the chat. unread = the others' chat messages after
// max(joined_seq, read_marker_seq); mentions_unread = those of them whose mentions name the member.
// Three things move them: the chat write (writeSql.ts WRITE_SQL: +1 for everyone else, 0 for the
// writer), the read marker (MARK_READ_SQL) and a redaction, which erases the mentions
// (REDACTION_COUNTERS_SQL). A join opens a participation at the log's head (0 and 0); a leave ends
// it. Every change is arithmetic in SQL on the row, never read-modify-write in the process, so two
// app instances on one PostgreSQL never lose a step. The hub's own quiet lines (from "system",
// DESIGN §4b) count in neither: the write never adds them, and the marker does not take them off.
//
// Locks (READ COMMITTED): the marker locks its participation, then the messages it passes (FOR
// SHARE), so it counts what a concurrent redaction leaves; a redaction takes the append lock, then
// the participations, then the event — the same order, no deadlock.

/**
 * Moves the caller's marker up to $3 and takes the messages it passes off the counters.
 * $1 conversation key, $2 member id, $3 the new marker. Returns a row when the marker moved.
 */
export const MARK_READ_SQL = `
WITH me AS (
  SELECT id, joined_seq, read_marker_seq FROM participations
  WHERE conversation_id = $1 AND member_id = $2 AND left_at IS NULL AND read_marker_seq < $3::int
  FOR UPDATE),
passed AS (
  SELECT e.mentions FROM me JOIN events e ON e.conversation_id = $1 AND e.kind = 'message' AND e.from_id <> $2
    AND e.from_id <> 'system'
    AND e.seq > GREATEST(me.joined_seq, me.read_marker_seq) AND e.seq <= $3::int
  FOR SHARE OF e),
seen AS (
  SELECT count(*)::int AS n,
         (count(*) FILTER (WHERE mentions @> jsonb_build_array(jsonb_build_object('member_id', $2::text))))::int AS m
  FROM passed)
UPDATE participations p
SET read_marker_seq = $3::int, unread = p.unread - seen.n, mentions_unread = p.mentions_unread - seen.m
FROM me, seen WHERE p.id = me.id
RETURNING p.id`;

/**
 * Before a message's mentions are erased (§8.5): the participants it mentions and who have not
 * read it yet have one mention fewer. $1 the message's seq (not yet redacted).
 */
export const REDACTION_COUNTERS_SQL = `
UPDATE participations p SET mentions_unread = p.mentions_unread - 1
FROM events e
WHERE e.seq = $1::int AND e.kind = 'message' AND NOT e.redacted
  AND p.conversation_id = e.conversation_id AND p.left_at IS NULL AND p.member_id <> e.from_id
  AND e.seq > GREATEST(p.joined_seq, p.read_marker_seq)
  AND e.mentions @> jsonb_build_array(jsonb_build_object('member_id', p.member_id))`;
