import type { TestProject } from "vitest/node";
import { ensureKafka, type KafkaHandle } from "../../scripts/infra/kafka";
import { ensurePostgres, type PostgresHandle } from "../../scripts/infra/postgres";
import { needsKafka } from "./test-needs";

declare module "vitest" {
  export interface ProvidedContext {
    databaseAdminUrl: string;
    kafkaBrokers: string[];
  }
}

let postgres: PostgresHandle | undefined;
let kafka: KafkaHandle | undefined;

/**
 * Real infrastructure for the suite: PostgreSQL (the local server, else an embedded one) and a
 * Kafka broker (one already on KAFKA_PORT, e.g. from `make dev`, else a fresh one on a test port
 * that is stopped afterwards). `make test SERVICE=<name>` sets TAWSIL_TEST_SCOPE to that process's
 * folder: its tests get Kafka only if they ask for it (test-needs.ts), else no broker is started.
 */
export async function setup(project: TestProject): Promise<void> {
  const log = (line: string) => console.log(`[test infra] ${line}`);
  postgres = await ensurePostgres({ log, ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}) });
  const scope = process.env.TAWSIL_TEST_SCOPE;
  if (scope && !needsKafka(scope)) {
    log(`no Kafka: no test under ${scope} asks for it`);
    project.provide("databaseAdminUrl", postgres.adminUrl);
    project.provide("kafkaBrokers", []);
    return;
  }
  kafka = await ensureKafka({
    port: Number(process.env.KAFKA_PORT ?? 9092),
    controllerPort: Number(process.env.KAFKA_CONTROLLER_PORT ?? 9093),
    log,
  });
  project.provide("databaseAdminUrl", postgres.adminUrl);
  project.provide("kafkaBrokers", kafka.brokers);
}

export async function teardown(): Promise<void> {
  await kafka?.stop();
  await postgres?.stop();
}
