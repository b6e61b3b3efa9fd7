-- CreateEnum
CREATE TYPE "dispatch_job_state" AS ENUM ('WAITING', 'OFFERED', 'ASSIGNED', 'UNRESOLVED', 'DONE', 'CANCELLED');

-- CreateEnum
CREATE TYPE "offer_state" AS ENUM ('OPEN', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'WITHDRAWN');

-- CreateTable
CREATE TABLE "driver" (
    "id" UUID NOT NULL,
    "carrier_service_id" UUID NOT NULL,
    "city_code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "simulated" BOOLEAN NOT NULL DEFAULT false,
    "available" BOOLEAN NOT NULL DEFAULT false,
    "available_since" TIMESTAMPTZ(3),
    "latitude_micro" INTEGER,
    "longitude_micro" INTEGER,
    "position_at" TIMESTAMPTZ(3),
    "current_shipment_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "driver_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dispatch_job" (
    "shipment_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "city_code" TEXT NOT NULL,
    "service_level" "service_level",
    "pickup_latitude_micro" INTEGER NOT NULL,
    "pickup_longitude_micro" INTEGER NOT NULL,
    "destination_latitude_micro" INTEGER NOT NULL,
    "destination_longitude_micro" INTEGER NOT NULL,
    "weight_grams" INTEGER NOT NULL,
    "longest_side_mm" INTEGER NOT NULL,
    "requirements" TEXT[],
    "cash_on_delivery" BOOLEAN NOT NULL,
    "state" "dispatch_job_state" NOT NULL,
    "shipment_version" BIGINT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "tried_driver_ids" UUID[],
    "deadline" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dispatch_job_pkey" PRIMARY KEY ("shipment_id")
);

-- CreateTable
CREATE TABLE "offer" (
    "id" UUID NOT NULL,
    "shipment_id" UUID NOT NULL,
    "driver_id" UUID NOT NULL,
    "state" "offer_state" NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "offer_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "driver_city_code_available_idx" ON "driver"("city_code", "available");

-- CreateIndex
CREATE INDEX "dispatch_job_state_idx" ON "dispatch_job"("state");

-- CreateIndex
CREATE INDEX "offer_shipment_id_state_idx" ON "offer"("shipment_id", "state");

-- CreateIndex
CREATE INDEX "offer_driver_id_state_idx" ON "offer"("driver_id", "state");

-- AddForeignKey
ALTER TABLE "driver" ADD CONSTRAINT "driver_carrier_service_id_fkey" FOREIGN KEY ("carrier_service_id") REFERENCES "carrier_service"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "offer" ADD CONSTRAINT "offer_shipment_id_fkey" FOREIGN KEY ("shipment_id") REFERENCES "dispatch_job"("shipment_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "offer" ADD CONSTRAINT "offer_driver_id_fkey" FOREIGN KEY ("driver_id") REFERENCES "driver"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
