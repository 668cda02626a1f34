-- AlterTable
ALTER TABLE "participations" ADD COLUMN     "activity_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "direct_agent_id" TEXT,
ADD COLUMN     "project_id" TEXT;

-- Backfill, one pass: the conversation's project and direct agent, copied (neither ever changes),
-- and each participation's activity as the list computed it at read time (§9.3): the chat's last
-- message when it is inside the participation's window (after joined_seq), else a group chat's
-- created_at or the direct conversation's agent's joined_at in the project. From here on a join
-- sets all three and the chat write moves activity_at.
UPDATE "participations" p SET
  "project_id" = c."project_id",
  "direct_agent_id" = CASE WHEN c."kind" = 'direct' THEN c."agent_id" END,
  "activity_at" = coalesce(
    CASE WHEN c."last_seq" > p."joined_seq" THEN c."last_message_at" END,
    CASE WHEN c."kind" = 'direct' THEN (
      SELECT am."joined_at" FROM "memberships" am
      WHERE am."project_id" = c."project_id" AND am."member_id" = c."agent_id") END,
    c."created_at")
FROM "conversations" c WHERE c."id" = p."conversation_id";
ALTER TABLE "participations" ALTER COLUMN "project_id" SET NOT NULL;

-- M-227: the list's order served by an index. A member's open participations with something
-- unread (§9.3 bands 0 and 1) and those without (bands 2 and 3), each newest activity first: two
-- partial indexes on plain columns, so that PostgreSQL's statistics estimate them (an expression
-- such as LEAST(unread, 1) has none, and the planner then sorted instead of walking). The pins (at
-- most 20) are read apart, so a pin needs no column here.
CREATE INDEX "participations_member_unread_idx" ON "participations" ("member_id", "activity_at" DESC)
  WHERE "left_at" IS NULL AND "unread" > 0;
CREATE INDEX "participations_member_read_idx" ON "participations" ("member_id", "activity_at" DESC)
  WHERE "left_at" IS NULL AND "unread" <= 0;
