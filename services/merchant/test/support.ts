import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { capturedLogger, createMigratedDatabase, rawQuery, type TestDatabase } from "@tawsil/testing";
import { readConfig, type Config } from "../src/config";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { startMerchantService, type ComposeOptions, type RunningMerchantService } from "../src/server";

export { Code } from "@connectrpc/connect";
export { failure } from "@tawsil/testing";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

/** A fresh, migrated merchant database, dropped by `drop()`. */
export function createMerchantDatabase(adminUrl: string, label: string): Promise<TestDatabase> {
  return createMigratedDatabase(adminUrl, `merchant_test_${label}_${randomUUID().slice(0, 8)}`, MIGRATIONS);
}

export const ENCRYPTION_KEY = randomBytes(32).toString("base64");

export function testConfig(databaseUrlValue: string, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: databaseUrlValue,
    DATABASE_POOL_SIZE: "5",
    SIGNING_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    // In-process tests run no outbox relay; the setting is required all the same.
    KAFKA_BROKERS: "127.0.0.1:9092",
    SHUTDOWN_GRACE_MS: "200",
    LOG_LEVEL: "debug",
    ...env,
  });
}

export interface TestService extends RunningMerchantService {
  readonly merchant: ReturnType<typeof createPeerClient<typeof MerchantService>>;
  readonly admin: ReturnType<typeof createPeerClient<typeof MerchantAdminService>>;
  readonly logLines: string[];
}

export async function startTestService(databaseUrlValue: string, opts: { env?: Record<string, string> } & ComposeOptions = {}): Promise<TestService> {
  const { logger, lines } = capturedLogger("merchant-test");
  const running = await startMerchantService(testConfig(databaseUrlValue, opts.env), logger, opts);
  return {
    ...running,
    merchant: createPeerClient(MerchantService, running.url, { timeoutMs: 10_000 }),
    admin: createPeerClient(MerchantAdminService, running.adminUrl!, { timeoutMs: 10_000 }),
    logLines: lines,
  };
}

/** Reads or changes the database behind the service's back (counts, clock shifts). */
export function query<T>(url: string, sql: string, ...params: unknown[]): Promise<T[]> {
  return rawQuery<T>(PrismaClient, url, sql, ...params);
}
