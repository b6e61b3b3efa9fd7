-- CreateEnum
CREATE TYPE "shipment_state" AS ENUM ('PENDING_APPROVAL', 'READY_FOR_DISPATCH', 'OFFERED', 'ACCEPTED', 'DISPATCH_UNRESOLVED', 'PICKED_UP', 'OUT_FOR_DELIVERY', 'DELIVERED', 'DELIVERY_FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "payment_method" AS ENUM ('PREPAID', 'COD');

-- CreateEnum
CREATE TYPE "request_shape" AS ENUM ('A', 'B');

-- CreateTable
CREATE TABLE "shipment" (
    "id" UUID NOT NULL,
    "shipment_number" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "external_reference" TEXT NOT NULL,
    "state" "shipment_state" NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 1,
    "recipient_name" TEXT NOT NULL,
    "recipient_phone" TEXT NOT NULL,
    "alternate_contact_name" TEXT,
    "alternate_contact_phone" TEXT,
    "total_weight_kilograms" DECIMAL(12,3) NOT NULL,
    "declared_value" DECIMAL(12,2) NOT NULL,
    "cod_amount" DECIMAL(12,2) NOT NULL,
    "currency" TEXT NOT NULL,
    "payment_method" "payment_method" NOT NULL,
    "pickup_window_start" TIMESTAMPTZ(3),
    "pickup_window_end" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "approved_at" TIMESTAMPTZ(3),
    "pickup_latitude_micro" INTEGER NOT NULL,
    "pickup_longitude_micro" INTEGER NOT NULL,
    "pickup_address_line" TEXT NOT NULL,
    "pickup_city_code" TEXT NOT NULL,
    "destination_latitude_micro" INTEGER NOT NULL,
    "destination_longitude_micro" INTEGER NOT NULL,
    "destination_address_line" TEXT NOT NULL,
    "destination_city_code" TEXT NOT NULL,
    "requirements" TEXT[],
    "branch_code" TEXT,
    "reason_code" TEXT,
    "rate_card_id" UUID NOT NULL,
    "rate_card_version" INTEGER NOT NULL,
    "service_level" TEXT NOT NULL,
    "price" DECIMAL(12,2) NOT NULL,
    "distance_metres" INTEGER NOT NULL,

    CONSTRAINT "shipment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "shipment_item" (
    "shipment_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "description" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "weight_kilograms" DECIMAL(12,3) NOT NULL,
    "length_centimetres" DECIMAL(8,3),
    "width_centimetres" DECIMAL(8,3),
    "height_centimetres" DECIMAL(8,3),

    CONSTRAINT "shipment_item_pkey" PRIMARY KEY ("shipment_id","position")
);

-- CreateTable
CREATE TABLE "idempotency_record" (
    "id" BIGSERIAL NOT NULL,
    "operation" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "shape" "request_shape" NOT NULL,
    "shipment_id" UUID,
    "snapshot" BYTEA,
    "error_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_record_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "shipment_shipment_number_key" ON "shipment"("shipment_number");

-- CreateIndex
CREATE INDEX "shipment_merchant_id_created_at_id_idx" ON "shipment"("merchant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "shipment_merchant_id_state_created_at_id_idx" ON "shipment"("merchant_id", "state", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "shipment_merchant_id_external_reference_key" ON "shipment"("merchant_id", "external_reference");

-- CreateIndex
CREATE INDEX "idempotency_record_expires_at_idx" ON "idempotency_record"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_record_operation_merchant_id_client_id_key_key" ON "idempotency_record"("operation", "merchant_id", "client_id", "key");

-- AddForeignKey
ALTER TABLE "shipment_item" ADD CONSTRAINT "shipment_item_shipment_id_fkey" FOREIGN KEY ("shipment_id") REFERENCES "shipment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
