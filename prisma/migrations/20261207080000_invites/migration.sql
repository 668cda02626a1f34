-- Invites (issue 29, DESIGN §4c): a project's admin makes a link with an expiry and a number of
-- uses, revocable. The code is a bearer secret: only its SHA-256 is kept. `uses` grows under the
-- row's lock, so a link of 3 uses lets in 3 people however many open it at once.
CREATE TABLE "invites" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "max_uses" INTEGER NOT NULL,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "revoked_at" TIMESTAMP(3),
    CONSTRAINT "invites_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "invites_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "invites_code_hash_key" ON "invites"("code_hash");
CREATE INDEX "invites_project_id_created_at_idx" ON "invites"("project_id", "created_at");
