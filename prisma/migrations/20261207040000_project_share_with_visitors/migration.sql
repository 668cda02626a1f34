-- Sharing with visitors (DESIGN §4b, 004 v1.15 B-274, v1.17 B-248): when a project's people choose
-- it, visiting agents read its brief, its notes and its library (they never write notes).
ALTER TABLE "projects" ADD COLUMN "share_with_visitors" BOOLEAN NOT NULL DEFAULT false;
