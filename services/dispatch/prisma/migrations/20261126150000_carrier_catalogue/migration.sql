-- CreateEnum
CREATE TYPE "service_level" AS ENUM ('BIKE', 'CAR', 'VAN', 'COLD_CHAIN_VAN');

-- CreateTable
CREATE TABLE "carrier" (
    "id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "carrier_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "carrier_service" (
    "id" UUID NOT NULL,
    "carrier_id" UUID NOT NULL,
    "service_level" "service_level" NOT NULL,
    "max_weight_grams" INTEGER NOT NULL,
    "max_longest_side_mm" INTEGER NOT NULL,
    "supports_cod" BOOLEAN NOT NULL,
    "supported_requirements" TEXT[],
    "cities" TEXT[],
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "carrier_service_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "carrier_code_key" ON "carrier"("code");

-- CreateIndex
CREATE UNIQUE INDEX "carrier_service_carrier_id_service_level_key" ON "carrier_service"("carrier_id", "service_level");

-- AddForeignKey
ALTER TABLE "carrier_service" ADD CONSTRAINT "carrier_service_carrier_id_fkey" FOREIGN KEY ("carrier_id") REFERENCES "carrier"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Seed: the sandbox carrier catalogue (fictional carriers). Fixed ids so later migrations and the
-- sandbox fleet can refer to these rows. The gaps are deliberate: DMM has one van and one
-- cold-chain service, MKK's only cold chain takes no cash, MED has no active van and no cold chain
-- with cash, and the inactive rows (WASL, Saqr's paused cold-chain pilot) must never be eligible.
INSERT INTO "carrier" ("id", "code", "name", "active", "updated_at") VALUES
    ('b35cac0e-aac7-485b-85ee-b9c5b2b79360', 'SAQR', 'Saqr Express', true, CURRENT_TIMESTAMP),
    ('b26bd31f-0d8d-4923-9872-966d36487f32', 'NAJM', 'Najm Logistics', true, CURRENT_TIMESTAMP),
    ('b6703322-da92-4c61-aaae-ff5e598194db', 'BARD', 'Bard Cold Chain', true, CURRENT_TIMESTAMP),
    ('2e1acd22-873a-48ee-a5fc-68380bed9912', 'WASL', 'Wasl Freight (onboarding)', false, CURRENT_TIMESTAMP);

INSERT INTO "carrier_service" ("id", "carrier_id", "service_level", "max_weight_grams", "max_longest_side_mm", "supports_cod", "supported_requirements", "cities", "active", "updated_at") VALUES
    ('41fc1f34-ce04-41ab-8e65-226796c7477b', 'b35cac0e-aac7-485b-85ee-b9c5b2b79360', 'BIKE', 5000, 450, true,
        ARRAY['FRAGILE', 'SIGNATURE_ON_DELIVERY', 'PIN_ON_DELIVERY', 'ID_VERIFICATION', 'NO_CONTACT'],
        ARRAY['RUH', 'JED', 'DMM', 'MKK', 'MED'], true, CURRENT_TIMESTAMP),
    ('b7c38dde-b1a2-421b-b3a2-c3a2fa14f4e3', 'b35cac0e-aac7-485b-85ee-b9c5b2b79360', 'CAR', 30000, 1000, true,
        ARRAY['FRAGILE', 'KEEP_UPRIGHT', 'SIGNATURE_ON_DELIVERY', 'PIN_ON_DELIVERY', 'ID_VERIFICATION', 'NO_CONTACT'],
        ARRAY['RUH', 'JED', 'DMM', 'MKK', 'MED'], true, CURRENT_TIMESTAMP),
    ('9e323a60-215f-4bca-867a-203269d6991d', 'b35cac0e-aac7-485b-85ee-b9c5b2b79360', 'VAN', 500000, 3000, true,
        ARRAY['FRAGILE', 'KEEP_UPRIGHT', 'LARGE_VEHICLE', 'SIGNATURE_ON_DELIVERY', 'PIN_ON_DELIVERY', 'ID_VERIFICATION'],
        ARRAY['RUH', 'JED', 'DMM'], true, CURRENT_TIMESTAMP),
    ('807d37b8-b42a-4ca5-9e3a-0763be936417', 'b35cac0e-aac7-485b-85ee-b9c5b2b79360', 'COLD_CHAIN_VAN', 300000, 2000, true,
        ARRAY['COLD_CHAIN', 'FRAGILE', 'KEEP_UPRIGHT', 'SIGNATURE_ON_DELIVERY'],
        ARRAY['MED'], false, CURRENT_TIMESTAMP),
    ('64e2e336-01fd-4097-a2c9-67ff982e78ba', 'b26bd31f-0d8d-4923-9872-966d36487f32', 'CAR', 30000, 1000, true,
        ARRAY['FRAGILE', 'KEEP_UPRIGHT', 'SIGNATURE_ON_DELIVERY', 'PIN_ON_DELIVERY', 'ID_VERIFICATION', 'NO_CONTACT'],
        ARRAY['RUH', 'JED', 'DMM', 'MKK'], true, CURRENT_TIMESTAMP),
    ('d35c7001-ce02-44e5-b9a2-4080b356e3b8', 'b26bd31f-0d8d-4923-9872-966d36487f32', 'VAN', 500000, 3000, true,
        ARRAY['FRAGILE', 'KEEP_UPRIGHT', 'LARGE_VEHICLE', 'SIGNATURE_ON_DELIVERY', 'PIN_ON_DELIVERY', 'ID_VERIFICATION', 'NO_CONTACT'],
        ARRAY['RUH', 'JED', 'MKK'], true, CURRENT_TIMESTAMP),
    ('ebf1cb03-48ed-404d-bd69-2ec7aa7ba8ec', 'b26bd31f-0d8d-4923-9872-966d36487f32', 'COLD_CHAIN_VAN', 300000, 2000, true,
        ARRAY['COLD_CHAIN', 'FRAGILE', 'KEEP_UPRIGHT', 'LARGE_VEHICLE', 'SIGNATURE_ON_DELIVERY', 'PIN_ON_DELIVERY', 'ID_VERIFICATION'],
        ARRAY['RUH', 'JED', 'DMM'], true, CURRENT_TIMESTAMP),
    ('487dc732-e8df-4f00-a18f-cff475ed20a4', 'b6703322-da92-4c61-aaae-ff5e598194db', 'COLD_CHAIN_VAN', 300000, 2000, false,
        ARRAY['COLD_CHAIN', 'FRAGILE', 'KEEP_UPRIGHT', 'SIGNATURE_ON_DELIVERY', 'ID_VERIFICATION'],
        ARRAY['RUH', 'JED', 'MKK', 'MED'], true, CURRENT_TIMESTAMP),
    ('6022a35f-82f5-4235-a449-fa84058f1007', '2e1acd22-873a-48ee-a5fc-68380bed9912', 'VAN', 500000, 3000, true,
        ARRAY['FRAGILE', 'KEEP_UPRIGHT', 'LARGE_VEHICLE', 'SIGNATURE_ON_DELIVERY'],
        ARRAY['MED'], true, CURRENT_TIMESTAMP);
