-- AlterTable
ALTER TABLE "events" ADD COLUMN     "attachments" JSONB,
ADD COLUMN     "card" JSONB;

-- CreateTable
CREATE TABLE "attachments" (
    "id" TEXT NOT NULL,
    "bay_id" TEXT NOT NULL,
    "uploader_id" TEXT NOT NULL,
    "blob_key" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "name_cipher" TEXT NOT NULL,
    "thumbhash" TEXT,
    "width" INTEGER,
    "height" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "event_seq" INTEGER,
    "position" INTEGER,
    "conversation_id" TEXT,
    "library_project_id" TEXT,
    "linked_at" TIMESTAMP(3),
    "deleted_at" TIMESTAMP(3),

    CONSTRAINT "attachments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "polls" (
    "id" TEXT NOT NULL,
    "event_seq" INTEGER NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "asked_by_id" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "options" JSONB NOT NULL,
    "allow_multiple" BOOLEAN NOT NULL DEFAULT false,
    "closed_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "polls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "poll_votes" (
    "poll_id" TEXT NOT NULL,
    "voter_id" TEXT NOT NULL,
    "option_index" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "poll_votes_pkey" PRIMARY KEY ("poll_id","voter_id","option_index")
);

-- CreateTable
CREATE TABLE "reactions" (
    "event_seq" INTEGER NOT NULL,
    "member_id" TEXT NOT NULL,
    "emoji" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reactions_pkey" PRIMARY KEY ("event_seq","member_id","emoji")
);

-- CreateIndex
CREATE INDEX "attachments_event_seq_idx" ON "attachments"("event_seq");

-- CreateIndex
CREATE INDEX "attachments_conversation_id_linked_at_idx" ON "attachments"("conversation_id", "linked_at");

-- CreateIndex
CREATE INDEX "attachments_library_project_id_linked_at_idx" ON "attachments"("library_project_id", "linked_at");

-- CreateIndex
CREATE INDEX "attachments_uploader_id_created_at_idx" ON "attachments"("uploader_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "polls_event_seq_key" ON "polls"("event_seq");

-- CreateIndex
CREATE INDEX "polls_conversation_id_idx" ON "polls"("conversation_id");

-- AddForeignKey
ALTER TABLE "poll_votes" ADD CONSTRAINT "poll_votes_poll_id_fkey" FOREIGN KEY ("poll_id") REFERENCES "polls"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

