import type { TestProject } from "vitest/node";
import { freePort } from "../../packages/testing/src/free-port";
import { ensureKafka, type KafkaHandle } from "../../scripts/infra/kafka";
import { ensurePostgres, type PostgresHandle } from "../../scripts/infra/postgres";
import { needsKafka } from "./test-needs";

declare module "vitest" {
  export interface ProvidedContext {
    databaseAdminUrl: string;
    kafkaBrokers: string[];
  }
}

interface Infra {
  readonly postgres: PostgresHandle;
  /** Absent when the run's scope needs no broker. */
  readonly kafka: KafkaHandle | undefined;
}

/**
 * Each project of the run calls this setup (with a module of its own), but the run needs one
 * broker: the first call starts the infrastructure, the others share it, the last teardown stops it.
 */
const shared = globalThis as { tawsilTestInfra?: { infra: Promise<Infra>; users: number } };

/**
 * Real infrastructure for the suite: PostgreSQL (the local server, else an embedded one; every
 * test names its databases uniquely) and a Kafka broker of the run's own, on free ports, stopped
 * afterwards. Never `make dev`'s broker nor another run's: the end-to-end meshes use the same
 * topics and consumer groups as `make dev`, so sharing a broker would split their events.
 * `make test SERVICE=<name>` sets TAWSIL_TEST_SCOPE to that process's folder: its tests get
 * Kafka only if they ask for it (test-needs.ts), else no broker is started.
 */
async function startInfra(log: (line: string) => void): Promise<Infra> {
  const postgres = await ensurePostgres({ log, ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}) });
  const scope = process.env.TAWSIL_TEST_SCOPE;
  if (scope && !needsKafka(scope)) {
    log(`no Kafka: no test under ${scope} asks for it`);
    return { postgres, kafka: undefined };
  }
  const port = await freePort();
  let controllerPort = await freePort();
  while (controllerPort === port) controllerPort = await freePort();
  const kafka = await ensureKafka({ port, controllerPort, reuse: false, log });
  return { postgres, kafka };
}

export async function setup(project: TestProject): Promise<void> {
  const log = (line: string) => console.log(`[test infra] ${line}`);
  shared.tawsilTestInfra ??= { infra: startInfra(log), users: 0 };
  shared.tawsilTestInfra.users += 1;
  const { postgres, kafka } = await shared.tawsilTestInfra.infra;
  project.provide("databaseAdminUrl", postgres.adminUrl);
  project.provide("kafkaBrokers", kafka?.brokers ?? []);
}

export async function teardown(): Promise<void> {
  const entry = shared.tawsilTestInfra;
  if (!entry || --entry.users > 0) return;
  shared.tawsilTestInfra = undefined;
  const { postgres, kafka } = await entry.infra;
  await kafka?.stop();
  await postgres.stop();
}
