-- CreateEnum
CREATE TYPE "merchant_status" AS ENUM ('DRAFT', 'ACTIVE', 'SUSPENDED', 'TERMINATED');

-- CreateEnum
CREATE TYPE "deployment_environment" AS ENUM ('sandbox', 'production');

-- CreateTable
CREATE TABLE "merchant" (
    "id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "legal_name" TEXT NOT NULL,
    "status" "merchant_status" NOT NULL DEFAULT 'DRAFT',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_client" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "environment" "deployment_environment" NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "oauth_client_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "saved_location" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "latitude_micro" INTEGER NOT NULL,
    "longitude_micro" INTEGER NOT NULL,
    "address_line" TEXT NOT NULL,
    "city_code" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "saved_location_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "branch" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "branch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_card" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "base_fee" DECIMAL(12,2) NOT NULL,
    "included_km" DECIMAL(6,3) NOT NULL,
    "per_km_fee" DECIMAL(12,2) NOT NULL,
    "included_weight_kg" DECIMAL(6,3) NOT NULL,
    "per_kg_fee" DECIMAL(12,2) NOT NULL,
    "cod_fee_percent" DECIMAL(6,3) NOT NULL,
    "cod_fee_minimum" DECIMAL(12,2) NOT NULL,
    "max_cod_amount" DECIMAL(12,2) NOT NULL,
    "requirement_surcharges" JSONB NOT NULL,
    "effective_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rate_card_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_key" (
    "id" UUID NOT NULL,
    "kid" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_key_encrypted" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),
    "publish_until" TIMESTAMPTZ(3),

    CONSTRAINT "signing_key_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "merchant_code_key" ON "merchant"("code");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_client_client_id_key" ON "oauth_client"("client_id");

-- CreateIndex
CREATE INDEX "oauth_client_merchant_id_idx" ON "oauth_client"("merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "saved_location_merchant_id_code_key" ON "saved_location"("merchant_id", "code");

-- CreateIndex
CREATE UNIQUE INDEX "branch_merchant_id_code_key" ON "branch"("merchant_id", "code");

-- CreateIndex
CREATE UNIQUE INDEX "rate_card_merchant_id_version_key" ON "rate_card"("merchant_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "signing_key_kid_key" ON "signing_key"("kid");

-- AddForeignKey
ALTER TABLE "oauth_client" ADD CONSTRAINT "oauth_client_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "saved_location" ADD CONSTRAINT "saved_location_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "branch" ADD CONSTRAINT "branch_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rate_card" ADD CONSTRAINT "rate_card_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
