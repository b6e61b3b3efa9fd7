-- Isolation (decisions.md section 11): a paused endpoint's backlog costs the claim path nothing.
-- `held` mirrors the endpoint's PAUSED status on its pending deliveries (the endpoint store sets it
-- on pause and clears it on resume, under the endpoint's row lock), so the claim reads a partial
-- index of due, claimable rows only; before, every claim walked the paused rows of the
-- (status, next_attempt_at) index and dropped them at the join with the endpoint.
ALTER TABLE "webhook_delivery" ADD COLUMN "held" BOOLEAN NOT NULL DEFAULT false;

UPDATE "webhook_delivery" d SET "held" = true
FROM "webhook_endpoint" e
WHERE e."id" = d."endpoint_id" AND e."status" = 'PAUSED' AND d."status" = 'PENDING';

CREATE INDEX "webhook_delivery_claimable_idx" ON "webhook_delivery"("next_attempt_at") WHERE "status" = 'PENDING' AND NOT "held";
