-- Drivers' OAuth clients (issue 30): one per dispatch driver, its secret stored hashed (scrypt).
CREATE TABLE "driver_client" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "driver_id" UUID NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "environment" "deployment_environment" NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "driver_client_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "driver_client_client_id_key" ON "driver_client"("client_id");

-- CreateIndex
CREATE UNIQUE INDEX "driver_client_driver_id_key" ON "driver_client"("driver_id");
