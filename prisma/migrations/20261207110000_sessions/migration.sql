-- Terminal sessions (issue 30, DESIGN §4e, B-310…B-343): a session is an agent of its person (kind
-- `session`) with one row here per (person, Bay, name); approvals a session asks of one person; the
-- session's one listener (a single-use ticket, then its socket).
ALTER TABLE "agents" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'agent';

CREATE TABLE "agent_sessions" (
    "agent_id" TEXT NOT NULL,
    "human_id" TEXT NOT NULL,
    "bay_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "device_id" TEXT NOT NULL,
    "runtime" TEXT,
    "thread_id" TEXT,
    "registered_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "joined_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMP(3),
    "fresh_at_95" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "agent_sessions_pkey" PRIMARY KEY ("agent_id"),
    CONSTRAINT "agent_sessions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id")
);
CREATE UNIQUE INDEX "agent_sessions_human_id_bay_id_name_key" ON "agent_sessions"("human_id", "bay_id", "name");
CREATE INDEX "agent_sessions_device_id_idx" ON "agent_sessions"("device_id");

CREATE TABLE "approvals" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "event_seq" INTEGER NOT NULL,
    "approver_id" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "options" TEXT[],
    "status" TEXT NOT NULL DEFAULT 'pending',
    "choice" TEXT,
    "decided_by_id" TEXT,
    "decided_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "approvals_approver_id_status_idx" ON "approvals"("approver_id", "status");

CREATE TABLE "session_listeners" (
    "session_id" TEXT NOT NULL,
    "device_id" TEXT NOT NULL,
    "ticket_hash" TEXT,
    "cursor" TEXT,
    "expires_at" TIMESTAMP(3),
    "relay" BOOLEAN NOT NULL DEFAULT false,
    "state" TEXT NOT NULL DEFAULT 'awaiting_connection',
    "generation" INTEGER NOT NULL DEFAULT 1,
    "connected_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "session_listeners_pkey" PRIMARY KEY ("session_id")
);
CREATE UNIQUE INDEX "session_listeners_ticket_hash_key" ON "session_listeners"("ticket_hash");

-- A fresh start with a handoff (B-289…B-296): asked by the session's person (or at 95 % when they let
-- it), it waits 15 minutes for a saved handoff note; only then may the hosting relay clear the session.
CREATE TABLE "fresh_starts" (
    "id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "requested_by" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'awaiting_note',
    "note_id" TEXT,
    "result" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "note_saved_at" TIMESTAMP(3),
    "cleared_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),
    CONSTRAINT "fresh_starts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "fresh_starts_session_id_idx" ON "fresh_starts"("session_id");
-- One fresh start under way per session.
CREATE UNIQUE INDEX "fresh_starts_one_open" ON "fresh_starts"("session_id") WHERE "state" IN ('awaiting_note', 'note_saved');
