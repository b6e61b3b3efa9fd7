-- Proof of delivery (decisions.md section 17). The PIN is made at create for a shipment requiring
-- PIN_ON_DELIVERY (null otherwise and for shipments created before this column). Wrong PINs are
-- counted on the row the delivery step locks FOR UPDATE, so concurrent wrong attempts are counted
-- one by one; the fifth holds the DELIVERED step until delivery_pin_locked_until.
ALTER TABLE "shipment" ADD COLUMN "delivery_pin" TEXT;
ALTER TABLE "shipment" ADD COLUMN "delivery_pin_failures" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "shipment" ADD COLUMN "delivery_pin_locked_until" TIMESTAMPTZ(3);

-- A driver's evidence is owned by the driver, not a merchant: exactly one owner per asset.
ALTER TABLE "media_asset" ALTER COLUMN "merchant_id" DROP NOT NULL;
ALTER TABLE "media_asset" ADD COLUMN "driver_id" UUID;
ALTER TABLE "media_asset" ADD CONSTRAINT "media_asset_one_owner" CHECK (("merchant_id" IS NULL) <> ("driver_id" IS NULL));
