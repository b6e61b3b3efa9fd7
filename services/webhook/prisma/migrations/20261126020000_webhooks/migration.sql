-- CreateEnum
CREATE TYPE "endpoint_status" AS ENUM ('ACTIVE', 'PAUSED');

-- CreateEnum
CREATE TYPE "delivery_status" AS ENUM ('PENDING', 'DELIVERED', 'EXHAUSTED');

-- CreateTable
CREATE TABLE "webhook_endpoint" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "status" "endpoint_status" NOT NULL,
    "event_types" TEXT[],
    "version" BIGINT NOT NULL,
    "secret_sealed" BYTEA NOT NULL,
    "previous_secret_sealed" BYTEA,
    "previous_secret_valid_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "secret_rotation" (
    "id" BIGSERIAL NOT NULL,
    "merchant_id" UUID NOT NULL,
    "rotated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "secret_rotation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery" (
    "id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "shipment_id" UUID NOT NULL,
    "sequence" BIGINT NOT NULL,
    "event_type" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" "delivery_status" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "claim_token" UUID,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "first_attempt_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "last_error" TEXT,

    CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempt" (
    "delivery_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "status_code" INTEGER,
    "outcome" TEXT NOT NULL,

    CONSTRAINT "webhook_attempt_pkey" PRIMARY KEY ("delivery_id","number")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_endpoint_merchant_id_key" ON "webhook_endpoint"("merchant_id");

-- CreateIndex
CREATE INDEX "secret_rotation_merchant_id_rotated_at_idx" ON "secret_rotation"("merchant_id", "rotated_at");

-- CreateIndex
CREATE INDEX "webhook_delivery_status_next_attempt_at_idx" ON "webhook_delivery"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_delivery_endpoint_id_shipment_id_sequence_key" ON "webhook_delivery"("endpoint_id", "shipment_id", "sequence");

-- AddForeignKey
ALTER TABLE "webhook_delivery" ADD CONSTRAINT "webhook_delivery_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempt" ADD CONSTRAINT "webhook_attempt_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_delivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;
