-- The recipient's phone, for the driver who carries the job (decisions.md section 17): learnt from
-- the shipment service when the driver accepts, cleared with the name when the job ends.
ALTER TABLE "dispatch_job" ADD COLUMN "recipient_phone" TEXT;
