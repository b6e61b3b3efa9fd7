-- Drivers' steps sent with an Idempotency-Key (issue 30): one record per driver and key, 24 h.
CREATE TABLE "driver_step_request" (
    "driver_id" UUID NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "driver_step_request_pkey" PRIMARY KEY ("driver_id","idempotency_key")
);

-- CreateIndex
CREATE INDEX "driver_step_request_created_at_idx" ON "driver_step_request"("created_at");
