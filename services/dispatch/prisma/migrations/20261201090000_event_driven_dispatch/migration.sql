-- AlterTable
ALTER TABLE "dispatch_job" ADD COLUMN "unresolved_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "retry_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "dispatch_job_city_code_created_at_idx" ON "dispatch_job"("city_code", "created_at");

-- CreateIndex
CREATE INDEX "offer_state_expires_at_idx" ON "offer"("state", "expires_at");
