import { oneLine } from "@maity/domain";
import type { MemberInfo } from "./agentView.ts";

// The chat write's two statements (messages/write.ts `write`, docs/development.md "Delivery"): what it
// reads under the append lock, and the one CTE that writes every row of a message.

type ParticipantFacts = {
  memberId: string;
  kind: "human" | "agent";
  humanHandle: string | null;
  displayName: string | null;
  agentHandle: string | null;
  description: string | null;
  ownerId: string | null;
  ownerHandle: string | null;
  ownerName: string | null;
  ownerBayId: string | null;
  ownerBay: string | null;
  hooked: boolean;
  /** A visitor's wake (DESIGN §4c): "sponsor" — only its sponsor's messages wake it; null for anyone else. */
  wake: string | null;
};

export type WriteFacts = {
  head: number;
  previous_round: number | null;
  reply_to: { seq: number; fromId: string; body: string | null; redacted: boolean } | null;
  replay: { hash: string; response: { seq: number } } | null;
  project_bay_id: string;
  project_version: number;
  participants: ParticipantFacts[];
  instance_ok: boolean;
};

export function memberInfoOf(p: ParticipantFacts): MemberInfo {
  if (p.kind === "human") return { name: oneLine(p.displayName ?? p.memberId), visitingFrom: null };
  return {
    name: oneLine(`${p.ownerHandle}/${p.agentHandle}`),
    visitingFrom: {
      bayId: p.ownerBayId ?? "",
      bay: p.ownerBay ?? "",
      sponsor: { id: p.ownerId ?? "", name: oneLine(p.ownerName ?? "") },
    },
  };
}

/**
 * Everything the write decides from, read in one statement after the append lock: the log's head
 * (the new event's `prev`), the previous message's agent round (the hub's quiet lines are none), the
 * reply target, an earlier request with the same idempotency key, the project's Bay, the participants (with what mentions,
 * routing, rendering and webhooks need) and whether to_instance names one of the agent's instances.
 * $1 conversation key, $2 reply_to seq, $3 caller, $4 idempotency key, $5 oldest live key time,
 * $6 project, $7 to_instance, $8 the direct conversation's agent.
 */
export const WRITE_FACTS_SQL = `
SELECT
  (SELECT coalesce(max(seq), 0)::int FROM events) AS head,
  (SELECT agent_round FROM events WHERE conversation_id = $1 AND kind = 'message' AND from_id <> 'system'
     ORDER BY seq DESC LIMIT 1) AS previous_round,
  (SELECT json_build_object('seq', seq, 'fromId', from_id, 'body', body, 'redacted', redacted)
     FROM events WHERE seq = $2::int AND conversation_id = $1 AND kind = 'message') AS reply_to,
  (SELECT json_build_object('hash', request_hash, 'response', response)
     FROM idempotency_keys WHERE caller_id = $3 AND key = $4::text AND created_at > $5::timestamp) AS replay,
  (SELECT bay_id FROM projects WHERE id = $6) AS project_bay_id,
  (SELECT brief_version FROM projects WHERE id = $6) AS project_version,
  (SELECT coalesce(json_agg(json_build_object(
       'memberId', p.member_id, 'kind', p.member_kind, 'humanHandle', h.handle, 'displayName', h.display_name,
       'agentHandle', a.handle, 'description', a.description, 'ownerId', a.owner_id, 'ownerHandle', oh.handle,
       'ownerName', oh.display_name, 'ownerBayId', oh.bay_id, 'ownerBay', ob.handle, 'hooked', w.agent_id IS NOT NULL,
       'wake', p.wake
     ) ORDER BY p.joined_at, p.id), '[]'::json)
     FROM participations p
     LEFT JOIN humans h ON h.id = p.member_id
     LEFT JOIN agents a ON a.id = p.member_id
     LEFT JOIN humans oh ON oh.id = a.owner_id
     LEFT JOIN bays ob ON ob.id = oh.bay_id
     LEFT JOIN webhooks w ON w.agent_id = p.member_id
     WHERE p.conversation_id = $1 AND p.left_at IS NULL) AS participants,
  EXISTS (SELECT 1 FROM agent_instances WHERE id = $7::text AND agent_id = $8) AS instance_ok`;

/**
 * The write, one statement: the event, its audience, the verdicts, the webhook deliveries, the
 * conversation's head (only forward), the participants' counters and the idempotency key (a key
 * older than its life is replaced). One UPDATE over the audience's participations: the writer's
 * marker moves to the message (whoever speaks has read up to there, §9.2), so its unread and
 * mentions_unread are 0 (no message is newer: appends are serialised by the lock); every other
 * participant's unread grows by one, and mentions_unread where the message mentions it (§9.2 Read
 * and unread; increments in SQL, so concurrent writers never lose one). The same UPDATE moves every
 * participation's activity_at to the message (§9.3 activity: the newest message, inside every open
 * window since a join opens at the log's head), the key the list's index orders by.
 */
export const WRITE_SQL = `
WITH e AS (
  INSERT INTO events (kind, type, project_id, conversation_id, from_id, from_instance_id, to_id, to_instance_id, body,
                      mentions, metadata, reply_to_seq, pings, agent_round, sent_at, card, attachments)
  VALUES ('message', 'chat', $1, $2, $3, $4::text, $5, $6::text, $7, $8::jsonb, $9::jsonb, $10::int, $11::int, $12::int, $13::timestamp,
          $20::jsonb, $21::jsonb)
  RETURNING seq, sent_at),
a AS (INSERT INTO event_audience (event_seq, member_id) SELECT e.seq, m FROM e, unnest($14::text[]) AS m),
v AS (INSERT INTO routing_verdicts (event_seq, agent_id, instance_id, should_respond, reason)
      SELECT e.seq, v.agent_id, v.instance_id, v.should_respond, v.reason
      FROM e, jsonb_to_recordset($15::jsonb) AS v(agent_id text, instance_id text, should_respond boolean, reason text)),
w AS (INSERT INTO webhook_deliveries (id, agent_id, event_seq)
      SELECT h.id, h.agent_id, e.seq FROM e, unnest($16::text[], $17::text[]) AS h(id, agent_id)),
c AS (UPDATE conversations SET last_seq = e.seq, last_message_at = e.sent_at FROM e
      WHERE conversations.id = $2 AND (conversations.last_seq IS NULL OR conversations.last_seq < e.seq)),
r AS (UPDATE participations p SET
        read_marker_seq = CASE WHEN p.member_id = $3 THEN GREATEST(p.read_marker_seq, e.seq) ELSE p.read_marker_seq END,
        unread = CASE WHEN p.member_id = $3 THEN 0
          WHEN e.seq > GREATEST(p.joined_seq, p.read_marker_seq) THEN p.unread + 1 ELSE p.unread END,
        mentions_unread = CASE WHEN p.member_id = $3 THEN 0
          WHEN e.seq > GREATEST(p.joined_seq, p.read_marker_seq)
           AND $8::jsonb @> jsonb_build_array(jsonb_build_object('member_id', p.member_id)) THEN p.mentions_unread + 1
          ELSE p.mentions_unread END,
        activity_at = e.sent_at
      FROM e WHERE p.conversation_id = $2 AND p.left_at IS NULL),
k AS (INSERT INTO idempotency_keys (caller_id, key, request_hash, response, created_at)
      SELECT $3, $18::text, $19::text, json_build_object('seq', e.seq)::jsonb, e.sent_at FROM e WHERE $18::text IS NOT NULL
      ON CONFLICT (caller_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response, created_at = EXCLUDED.created_at)
SELECT seq FROM e`;
