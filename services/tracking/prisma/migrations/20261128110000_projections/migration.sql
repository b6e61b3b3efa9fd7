-- CreateTable
CREATE TABLE "tracked_shipment" (
    "shipment_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "tracking_code_sha256" BYTEA,
    "state" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    "pickup_latitude_micro" INTEGER NOT NULL,
    "pickup_longitude_micro" INTEGER NOT NULL,
    "destination_latitude_micro" INTEGER NOT NULL,
    "destination_longitude_micro" INTEGER NOT NULL,
    "city_code" TEXT NOT NULL,
    "terminal_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tracked_shipment_pkey" PRIMARY KEY ("shipment_id")
);

-- CreateTable
CREATE TABLE "status_change" (
    "shipment_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "status_change_pkey" PRIMARY KEY ("shipment_id","status")
);

-- CreateTable
CREATE TABLE "shipment_assignment" (
    "shipment_id" UUID NOT NULL,
    "driver_ref" TEXT NOT NULL,
    "accepted_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "shipment_assignment_pkey" PRIMARY KEY ("shipment_id")
);

-- CreateTable
CREATE TABLE "driver_fix" (
    "shipment_id" UUID NOT NULL,
    "driver_ref" TEXT NOT NULL,
    "latitude_micro" INTEGER NOT NULL,
    "longitude_micro" INTEGER NOT NULL,
    "accuracy_metres" INTEGER NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "driver_fix_pkey" PRIMARY KEY ("shipment_id","driver_ref")
);

-- CreateIndex
CREATE UNIQUE INDEX "tracked_shipment_tracking_code_sha256_key" ON "tracked_shipment"("tracking_code_sha256");
