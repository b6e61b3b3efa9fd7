-- Retention (decisions.md section 18): processed-event records are deleted 14 days after they
-- were applied, in batches found through this index (no scan of the table).
CREATE INDEX "processed_event_processed_at_idx" ON "processed_event"("processed_at");

-- Dead letters of the idempotent consumers (issue 31): an event that could not be applied after
-- CONSUMER_MAX_ATTEMPTS tries is parked here so its partition moves on, and so is every later
-- event of the same key (consumer group, key) until an operator replays or discards it.
CREATE TABLE "parked_event" (
    "id" BIGSERIAL NOT NULL,
    "consumer_group" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "topic" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "offset" BIGINT NOT NULL,
    "key" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" BYTEA NOT NULL,
    "error" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "parked_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),
    "resolution" TEXT,

    CONSTRAINT "parked_event_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "parked_event_consumer_group_event_id_key" ON "parked_event"("consumer_group", "event_id");

-- Whether a key waits behind a parked event: one probe per batch of events.
CREATE INDEX "parked_event_consumer_group_key_idx" ON "parked_event"("consumer_group", "key");

-- The retention job deletes parked rows by age.
CREATE INDEX "parked_event_parked_at_idx" ON "parked_event"("parked_at");

-- Projections are deleted 90 days after their terminal state, driver fixes 30 days after the job
-- ended (the shipment's terminal state, which no fix of it postdates): both found through these.
CREATE INDEX "tracked_shipment_terminal_at_idx" ON "tracked_shipment"("terminal_at");

CREATE INDEX "driver_fix_recorded_at_idx" ON "driver_fix"("recorded_at");
