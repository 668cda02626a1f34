-- AlterTable
ALTER TABLE "participations" ADD COLUMN     "mentions_unread" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "unread" INTEGER NOT NULL DEFAULT 0;


-- Backfill: each open participation's counters as the list counted them at read time (§9.2 Read and
-- unread): others' messages after max(joined_seq, read_marker_seq); those mentioning the member,
-- in a group chat only. From here on the write, the read marker and redaction keep them.
UPDATE "participations" p SET
  "unread" = (
    SELECT count(*)::int FROM "events" e
    WHERE e."conversation_id" = p."conversation_id" AND e."kind" = 'message'
      AND e."seq" > GREATEST(p."joined_seq", p."read_marker_seq") AND e."from_id" <> p."member_id"),
  "mentions_unread" = (
    SELECT count(*)::int FROM "events" e JOIN "conversations" c ON c."id" = e."conversation_id"
    WHERE e."conversation_id" = p."conversation_id" AND e."kind" = 'message' AND c."kind" = 'group'
      AND e."seq" > GREATEST(p."joined_seq", p."read_marker_seq") AND e."from_id" <> p."member_id"
      AND e."mentions" @> jsonb_build_array(jsonb_build_object('member_id', p."member_id")))
WHERE p."left_at" IS NULL;
