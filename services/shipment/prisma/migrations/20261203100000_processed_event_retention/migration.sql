-- Retention (decisions.md section 18): processed-event records are deleted 14 days after they
-- were applied, in batches found through this index (no scan of the table).
CREATE INDEX "processed_event_processed_at_idx" ON "processed_event"("processed_at");
