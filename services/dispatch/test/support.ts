import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { createPrismaClient, disconnect, withTransaction } from "@tawsil/db";
import { startOutboxRelay } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { capturedLogger, createMigratedDatabase, rawQuery, type TestDatabase } from "@tawsil/testing";
import type { Kafka } from "kafkajs";
import { readConfig, type Config } from "../src/config";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { startDispatchService, type RunningDispatchService } from "../src/server";

export { Code } from "@connectrpc/connect";
export { failure } from "@tawsil/testing";

/** The committed migrations, seeded carrier catalogue included. */
export const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

/** A fresh dispatch database, migrated and so holding the sandbox catalogue; dropped by `drop()`. */
export function createDispatchDatabase(adminUrl: string, label: string): Promise<TestDatabase> {
  return createMigratedDatabase(adminUrl, `dispatch_test_${label}_${randomUUID().slice(0, 8)}`, MIGRATIONS);
}

export function testConfig(databaseUrlValue: string, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: databaseUrlValue,
    DATABASE_POOL_SIZE: "3",
    // Never contacted by the in-process service; readConfig requires it all the same.
    KAFKA_BROKERS: "127.0.0.1:9092",
    // Called only by the dispatcher and the driver API, which eligibility-only tests never reach.
    SHIPMENT_SERVICE_URL: "http://127.0.0.1:9",
    SHUTDOWN_GRACE_MS: "200",
    LOG_LEVEL: "debug",
    ...env,
  });
}

export interface TestService extends RunningDispatchService {
  readonly dispatch: ReturnType<typeof createPeerClient<typeof DispatchService>>;
  readonly logLines: string[];
}

export async function startTestService(databaseUrlValue: string, env: Record<string, string> = {}): Promise<TestService> {
  const { logger, lines } = capturedLogger("dispatch-test");
  const running = await startDispatchService(testConfig(databaseUrlValue, env), logger);
  return { ...running, dispatch: createPeerClient(DispatchService, running.url, { timeoutMs: 10_000 }), logLines: lines };
}

/** The shipment a driver put on shift `busy` carries: none that exists, so no job ever waits on it. */
const ELSEWHERE = "00000000-0000-4000-8000-00000000b057";

/**
 * One driver on shift for every carrier service in every city it serves (or only `cities`), so
 * eligibility finds an active driver (decisions.md section 2). Written behind the service's back:
 * call it before the service starts, which loads its active driver index then. `busy` drivers
 * carry another shipment, so a running dispatcher never offers them anything.
 */
export async function putFleetOnShift(url: string, opts: { cities?: readonly string[]; busy?: boolean } = {}): Promise<void> {
  await query(
    url,
    `INSERT INTO driver (id, carrier_service_id, city_code, name, available, available_since, current_shipment_id, updated_at)
     SELECT gen_random_uuid(), s.id, city, 'On shift in ' || city, true, now(), $2::uuid, now()
       FROM carrier_service s CROSS JOIN LATERAL unnest(s.cities) AS city
      WHERE $1::text[] IS NULL OR city = ANY($1::text[])`,
    opts.cities ? [...opts.cities] : null,
    opts.busy ? ELSEWHERE : null,
  );
}

/** Reads or changes the database behind the service's back. */
export function query<T>(url: string, sql: string, ...params: unknown[]): Promise<T[]> {
  return rawQuery<T>(PrismaClient, url, sql, ...params);
}

/** Relays the database's outbox to the broker as dispatchProcess does (its events reach real consumers); returns the stop. */
export async function relayOutbox(url: string, kafka: Kafka): Promise<() => Promise<void>> {
  const db = createPrismaClient(PrismaClient, { url, maxConnections: 2 });
  const relay = await startOutboxRelay({ kafka, logger: createLogger({ service: "dispatch-test-relay", level: "silent" }), runInTransaction: (fn) => withTransaction(db, fn, { timeoutMs: 30_000 }), databaseUrl: url });
  return async () => {
    await relay.close();
    await disconnect(db);
  };
}
