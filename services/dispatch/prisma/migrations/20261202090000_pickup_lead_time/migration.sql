-- AlterTable
ALTER TABLE "dispatch_job" ADD COLUMN "offerable_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "dispatch_job_offerable_at_idx" ON "dispatch_job"("offerable_at");
