-- The merchant's request shape is the gateway's business (a replay arrives in the shape of the
-- original, which its fingerprint covers): the shipment service no longer stores it.
ALTER TABLE "idempotency_record" DROP COLUMN "shape";

-- DropEnum
DROP TYPE "request_shape";
