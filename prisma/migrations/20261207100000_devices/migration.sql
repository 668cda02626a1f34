-- Device login (issue 30, DESIGN §4e, B-324): a computer's login request, approved by its person for
-- one or more Bays; the device; one `bay_u_` credential per Bay (only its SHA-256 is kept).
CREATE TABLE "device_logins" (
    "id" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "poll_secret_hash" TEXT NOT NULL,
    "label" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "human_id" TEXT,
    "bay_ids" TEXT[],
    "approved_at" TIMESTAMP(3),
    "denied_at" TIMESTAMP(3),
    "redeemed_at" TIMESTAMP(3),
    CONSTRAINT "device_logins_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "device_logins_code_hash_key" ON "device_logins"("code_hash");

CREATE TABLE "devices" (
    "id" TEXT NOT NULL,
    "human_id" TEXT NOT NULL,
    "label" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),
    CONSTRAINT "devices_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "devices_human_id_idx" ON "devices"("human_id");

CREATE TABLE "device_credentials" (
    "hash" TEXT NOT NULL,
    "device_id" TEXT NOT NULL,
    "bay_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "device_credentials_pkey" PRIMARY KEY ("hash"),
    CONSTRAINT "device_credentials_device_id_fkey" FOREIGN KEY ("device_id") REFERENCES "devices"("id") ON DELETE CASCADE
);
CREATE INDEX "device_credentials_device_id_idx" ON "device_credentials"("device_id");
