-- A replica that is killed mid-send and started again (same WEBHOOK_REPLICA_ID: the pod's name,
-- which a container restart keeps) takes back its own claims at once instead of leaving them to
-- their lease (120 s). `claimed_by` names the replica holding a claim; the partial index holds the
-- few rows claimed at any moment, so the take-back at start reads nothing else.
ALTER TABLE "webhook_delivery" ADD COLUMN "claimed_by" TEXT;

CREATE INDEX "webhook_delivery_claimed_by_idx" ON "webhook_delivery"("claimed_by") WHERE "claim_token" IS NOT NULL;
