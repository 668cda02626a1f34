-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "bays" (
    "id" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bays_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "humans" (
    "id" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "password_hash" TEXT,
    "bay_id" TEXT NOT NULL,
    "meat_proxy_lead" BOOLEAN NOT NULL DEFAULT false,
    "meat_proxy_hands" BOOLEAN NOT NULL DEFAULT false,
    "meat_proxy_note" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "humans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_instances" (
    "id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "label" TEXT,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "replaced_by_id" TEXT,

    CONSTRAINT "agent_instances_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "bay_id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "archived_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "member_id" TEXT NOT NULL,
    "member_kind" TEXT NOT NULL,
    "permissions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "status" TEXT NOT NULL DEFAULT 'active',
    "joined_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMP(3),

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conversations" (
    "id" TEXT NOT NULL,
    "number" SERIAL NOT NULL,
    "public_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT,
    "agent_id" TEXT,
    "created_by_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMP(3),
    "closed_reason" TEXT,
    "reply_policy" TEXT NOT NULL DEFAULT 'MENTIONS',
    "designated_agent_id" TEXT,
    "max_agent_rounds" INTEGER NOT NULL DEFAULT 2,
    "custom_rules" TEXT,
    "last_seq" INTEGER,
    "last_message_at" TIMESTAMP(3),

    CONSTRAINT "conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "participations" (
    "id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "member_id" TEXT NOT NULL,
    "member_kind" TEXT NOT NULL,
    "joined_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "joined_seq" INTEGER NOT NULL DEFAULT 0,
    "left_at" TIMESTAMP(3),
    "left_reason" TEXT,
    "read_marker_seq" INTEGER NOT NULL DEFAULT 0,
    "meat_proxy_chat" BOOLEAN,

    CONSTRAINT "participations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "seq" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "type" TEXT,
    "project_id" TEXT NOT NULL,
    "conversation_id" TEXT,
    "from_id" TEXT NOT NULL,
    "from_instance_id" TEXT,
    "to_id" TEXT,
    "to_instance_id" TEXT,
    "body" TEXT,
    "mentions" JSONB NOT NULL DEFAULT '[]',
    "metadata" JSONB,
    "reply_to_seq" INTEGER,
    "payload" JSONB,
    "sent_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMP(3),
    "redacted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "event_audience" (
    "event_seq" INTEGER NOT NULL,
    "member_id" TEXT NOT NULL,

    CONSTRAINT "event_audience_pkey" PRIMARY KEY ("member_id","event_seq")
);

-- CreateTable
CREATE TABLE "routing_verdicts" (
    "event_seq" INTEGER NOT NULL,
    "agent_id" TEXT NOT NULL,
    "instance_id" TEXT,
    "should_respond" BOOLEAN NOT NULL,
    "reason" TEXT NOT NULL,

    CONSTRAINT "routing_verdicts_pkey" PRIMARY KEY ("event_seq","agent_id")
);

-- CreateTable
CREATE TABLE "redactions" (
    "event_seq" INTEGER NOT NULL,
    "by_id" TEXT NOT NULL,
    "reason" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "redactions_pkey" PRIMARY KEY ("event_seq")
);

-- CreateTable
CREATE TABLE "pins" (
    "human_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pins_pkey" PRIMARY KEY ("human_id","conversation_id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "caller_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("caller_id","key")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "human_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_tokens" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "human_id" TEXT,
    "agent_id" TEXT,
    "label" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMP(3),
    "last_used_at" TIMESTAMP(3),

    CONSTRAINT "access_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "bays_handle_key" ON "bays"("handle");

-- CreateIndex
CREATE UNIQUE INDEX "humans_handle_key" ON "humans"("handle");

-- CreateIndex
CREATE UNIQUE INDEX "agents_owner_id_handle_key" ON "agents"("owner_id", "handle");

-- CreateIndex
CREATE INDEX "agent_instances_agent_id_idx" ON "agent_instances"("agent_id");

-- CreateIndex
CREATE UNIQUE INDEX "projects_bay_id_slug_key" ON "projects"("bay_id", "slug");

-- CreateIndex
CREATE INDEX "memberships_member_id_status_idx" ON "memberships"("member_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_project_id_member_id_key" ON "memberships"("project_id", "member_id");

-- CreateIndex
CREATE UNIQUE INDEX "conversations_number_key" ON "conversations"("number");

-- CreateIndex
CREATE INDEX "conversations_project_id_last_message_at_idx" ON "conversations"("project_id", "last_message_at");

-- CreateIndex
CREATE UNIQUE INDEX "conversations_project_id_public_id_key" ON "conversations"("project_id", "public_id");

-- CreateIndex
CREATE INDEX "participations_member_id_left_at_idx" ON "participations"("member_id", "left_at");

-- CreateIndex
CREATE INDEX "participations_conversation_id_left_at_idx" ON "participations"("conversation_id", "left_at");

-- CreateIndex
CREATE INDEX "events_conversation_id_seq_idx" ON "events"("conversation_id", "seq");

-- CreateIndex
CREATE INDEX "events_project_id_seq_idx" ON "events"("project_id", "seq");

-- CreateIndex
CREATE INDEX "event_audience_event_seq_idx" ON "event_audience"("event_seq");

-- CreateIndex
CREATE INDEX "routing_verdicts_agent_id_event_seq_idx" ON "routing_verdicts"("agent_id", "event_seq");

-- CreateIndex
CREATE INDEX "sessions_human_id_idx" ON "sessions"("human_id");

-- CreateIndex
CREATE UNIQUE INDEX "access_tokens_hash_key" ON "access_tokens"("hash");

-- AddForeignKey
ALTER TABLE "humans" ADD CONSTRAINT "humans_bay_id_fkey" FOREIGN KEY ("bay_id") REFERENCES "bays"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agents" ADD CONSTRAINT "agents_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "humans"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_instances" ADD CONSTRAINT "agent_instances_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_bay_id_fkey" FOREIGN KEY ("bay_id") REFERENCES "bays"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "participations" ADD CONSTRAINT "participations_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_audience" ADD CONSTRAINT "event_audience_event_seq_fkey" FOREIGN KEY ("event_seq") REFERENCES "events"("seq") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "routing_verdicts" ADD CONSTRAINT "routing_verdicts_event_seq_fkey" FOREIGN KEY ("event_seq") REFERENCES "events"("seq") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redactions" ADD CONSTRAINT "redactions_event_seq_fkey" FOREIGN KEY ("event_seq") REFERENCES "events"("seq") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pins" ADD CONSTRAINT "pins_human_id_fkey" FOREIGN KEY ("human_id") REFERENCES "humans"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pins" ADD CONSTRAINT "pins_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_human_id_fkey" FOREIGN KEY ("human_id") REFERENCES "humans"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_human_id_fkey" FOREIGN KEY ("human_id") REFERENCES "humans"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

