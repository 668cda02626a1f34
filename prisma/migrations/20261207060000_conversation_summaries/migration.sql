-- The rolling summary (004 §6, B-105…B-113; DESIGN §4b "Summary"): one record per chat, written
-- compare-and-swap on `version` (0 until the first record). `record` is the generator's narrative
-- and lists; `through_seq` its boundary; `from_seq` the first message it drew on (a reader whose
-- history starts above it is never served it). `claimed_at` marks a regeneration in flight on any
-- instance; `failed_at` / `failure` the generator's last failure (retried after a pause).
CREATE TABLE "conversation_summaries" (
    "conversation_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "record" JSONB,
    "through_seq" INTEGER,
    "through_created_at" TIMESTAMP(3),
    "from_seq" INTEGER,
    "generated_at" TIMESTAMP(3),
    "generator" TEXT,
    "claimed_at" TIMESTAMP(3),
    "failed_at" TIMESTAMP(3),
    "failure" TEXT,
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "conversation_summaries_pkey" PRIMARY KEY ("conversation_id"),
    CONSTRAINT "conversation_summaries_conversation_id_fkey" FOREIGN KEY ("conversation_id")
        REFERENCES "conversations"("id") ON DELETE CASCADE
);
