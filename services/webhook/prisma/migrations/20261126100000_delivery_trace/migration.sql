-- The W3C traceparent of the change that queued a delivery, so that every attempt joins the trace
-- of the merchant's request (gateway -> shipment -> Kafka -> webhook attempt). Null for rows queued
-- before this column existed or outside any trace.
ALTER TABLE "webhook_delivery" ADD COLUMN "trace_parent" TEXT;
