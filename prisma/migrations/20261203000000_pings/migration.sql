-- AlterTable
ALTER TABLE "events" ADD COLUMN     "pings" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "events_from_id_sent_at_idx" ON "events"("from_id", "sent_at");

