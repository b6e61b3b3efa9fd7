-- The SHA-256 of each shipment's public tracking code, for the tracking service's fallback read.
-- Nullable: rows created before this column have none (their code is derived from the id).
ALTER TABLE "shipment" ADD COLUMN "tracking_code_sha256" BYTEA;

-- CreateIndex
CREATE UNIQUE INDEX "shipment_tracking_code_sha256_key" ON "shipment"("tracking_code_sha256");
