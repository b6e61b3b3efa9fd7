-- The merchant's or driver's reason for a cancel or a failed delivery: the customer page says why
-- in its own words (never the code). Null on rows written before it, which read as the general case.
ALTER TABLE "tracked_shipment" ADD COLUMN "reason_code" TEXT;
