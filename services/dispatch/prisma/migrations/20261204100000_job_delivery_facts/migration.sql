-- What a driver is told of a job (issue 30): addresses, cash to collect, the recipient's name
-- (cleared when the job ends). Null for jobs created before.
ALTER TABLE "dispatch_job" ADD COLUMN "pickup_address" TEXT,
ADD COLUMN "destination_address" TEXT,
ADD COLUMN "cod_amount" TEXT,
ADD COLUMN "recipient_name" TEXT;
