-- Merchants' evidence (decisions.md section 16): the metadata here, the bytes in object storage
-- under media/<id>. A row exists before its bytes (PENDING_UPLOAD) and becomes READY only once the
-- stored object passed the content checks. shipment_id is set once, by the create that attaches
-- it (a conditional UPDATE ... WHERE shipment_id IS NULL, so of two racing creates one wins).
CREATE TYPE "media_asset_status" AS ENUM ('PENDING_UPLOAD', 'READY');

CREATE TABLE "media_asset" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "purpose" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "status" "media_asset_status" NOT NULL,
    "sha256" BYTEA,
    "width" INTEGER,
    "height" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "shipment_id" UUID,
    "sort_order" INTEGER,

    CONSTRAINT "media_asset_pkey" PRIMARY KEY ("id")
);

-- A shipment's timeline in one index range; the retention job's oldest unattached assets in another.
CREATE INDEX "media_asset_shipment_id_sort_order_idx" ON "media_asset"("shipment_id", "sort_order");
CREATE INDEX "media_asset_expires_at_idx" ON "media_asset"("expires_at");

ALTER TABLE "media_asset" ADD CONSTRAINT "media_asset_shipment_id_fkey" FOREIGN KEY ("shipment_id") REFERENCES "shipment"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
