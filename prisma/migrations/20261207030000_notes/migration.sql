-- Notes (spec 004 v1.17, DESIGN §4b): Markdown pages on a project (conversation_id null) or on one
-- chat, pinned or on the shelf. `version` takes the next number at every change; an edit names the
-- version it was made from (B-244).
CREATE TABLE "notes" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "conversation_id" TEXT,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,
    "handoff_id" TEXT,
    "created_by" TEXT NOT NULL,
    "updated_by" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "notes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "notes_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE,
    CONSTRAINT "notes_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE
);
-- A room's notes: the project's (conversation_id null) and one chat's, in creation order.
CREATE INDEX "notes_project_id_conversation_id_created_at_idx" ON "notes"("project_id", "conversation_id", "created_at");

-- What each client of an agent was handed of a room's brief and notes (B-249…B-257, B-264…B-270), so
-- a delta goes only when something changed and survives a restart. `client` is `feed/<instance>`
-- (/updates and /ws share cursors, B-144), `context` (the envelope) or `project` (get_project, B-272).
-- `acked` is what the client confirmed (a cursor past the event that carried it); `pending` the
-- handouts of events it has not confirmed yet, [{seq, held}] in order: a re-served event gets its
-- delta again, merged with what changed since (B-253, B-265).
CREATE TABLE "knowledge_handed" (
    "agent_id" TEXT NOT NULL,
    "client" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "acked" JSONB NOT NULL DEFAULT '{}',
    "pending" JSONB NOT NULL DEFAULT '[]',
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "knowledge_handed_pkey" PRIMARY KEY ("agent_id", "client", "conversation_id")
);
