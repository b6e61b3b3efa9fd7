-- Attached media and their bytes live 180 days after their shipment's terminal state (decisions.md
-- section 18). purge_after is set on a shipment's attached assets by the change that makes it
-- terminal (null while it moves); the retention job deletes rows (and bytes) past it through the
-- partial index, so its cost follows what is due, never all that is stored.
ALTER TABLE "media_asset" ADD COLUMN "purge_after" TIMESTAMPTZ(3);
CREATE INDEX "media_asset_purge_after_idx" ON "media_asset"("purge_after") WHERE "purge_after" IS NOT NULL;

-- Assets attached to shipments that had already ended, at the default period.
UPDATE "media_asset" m SET "purge_after" = s."terminal_at" + interval '180 days'
FROM "shipment" s WHERE m."shipment_id" = s."id" AND s."terminal_at" IS NOT NULL;
