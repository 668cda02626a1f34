-- Context reports (004 v1.16–v1.17, B-275…B-288; DESIGN §4b "Context rings"): an agent's last
-- memory reading (its ring), its tidies since its session began, the 90 % notice (armed, or due with
-- the percent it crossed at), its last overflow, and the last compact_end it counted (a retry of the
-- same report posts no second line).
CREATE TABLE "agent_context" (
    "agent_id" TEXT NOT NULL,
    "runtime" TEXT,
    "source" TEXT,
    "used" BIGINT,
    "size" BIGINT,
    "auto_compact_at" BIGINT,
    "percent" INTEGER,
    "reported_at" TIMESTAMP(3),
    "compactions" INTEGER NOT NULL DEFAULT 0,
    "compacting_since" TIMESTAMP(3),
    "notice_armed" BOOLEAN NOT NULL DEFAULT true,
    "notice_due" INTEGER,
    "overflow_at" TIMESTAMP(3),
    "last_compact_key" TEXT,
    "last_compact_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "agent_context_pkey" PRIMARY KEY ("agent_id"),
    CONSTRAINT "agent_context_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE
);
