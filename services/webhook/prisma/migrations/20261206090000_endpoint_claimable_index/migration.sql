-- A sender whose endpoint is at its per-endpoint cap refills that endpoint's freed slot from this
-- index alone (the endpoint's oldest due rows), rather than scanning every endpoint's due rows by
-- time and dropping the capped endpoint's backlog row by row, once per delivery.
CREATE INDEX "webhook_delivery_endpoint_claimable_idx" ON "webhook_delivery"("endpoint_id", "next_attempt_at") WHERE "status" = 'PENDING' AND NOT "held";
