-- When each shipment reached its terminal state, so that a tracking link the shipment service
-- answers (the tracking projection has not seen the shipment, or no longer keeps it) expires 7
-- days after it like any other (decisions.md section 9).
ALTER TABLE "shipment" ADD COLUMN "terminal_at" TIMESTAMPTZ(3);

-- Rows that ended before the column: their creation, the earliest they can have ended (no old
-- link outlives its 7 days), then the time of their last event while the outbox still holds it
-- (sent rows are kept 7 days, as long as a link lives after its end). One pass each, hash-joined.
UPDATE "shipment" SET "terminal_at" = "created_at"
WHERE "state" IN ('DELIVERED', 'DELIVERY_FAILED', 'CANCELLED');

UPDATE "shipment" s SET "terminal_at" = last."at"
FROM (SELECT "key", max("created_at") AS "at" FROM "outbox_event" GROUP BY "key") last
WHERE last."key" = s."id"::text AND s."state" IN ('DELIVERED', 'DELIVERY_FAILED', 'CANCELLED');
