-- The project brief (spec 004 v1.15, DESIGN §4b): room text people write; its version grows only
-- when the text changes (B-262). Version 0 and no text before the first one.
ALTER TABLE "projects" ADD COLUMN "brief" TEXT;
ALTER TABLE "projects" ADD COLUMN "brief_version" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "projects" ADD COLUMN "brief_updated_at" TIMESTAMP(3);
ALTER TABLE "projects" ADD COLUMN "brief_updated_by" TEXT;
