-- CreateTable
CREATE TABLE "login_limits" (
    "key" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "at_ms" DOUBLE PRECISION NOT NULL,
    "window_ms" DOUBLE PRECISION NOT NULL,
    "allowed" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "login_limits_pkey" PRIMARY KEY ("key")
);

