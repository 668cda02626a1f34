-- The summary's read asks whether a message of a chat was redacted after its record was made
-- (knowledge/summary.ts): redacted messages are few, so a partial index answers it in the same
-- time for a chat of 100 messages or of 100,000 (measured: pnpm bench:summary).
CREATE INDEX "events_redacted_idx" ON "events" ("conversation_id", "seq") WHERE "redacted";
