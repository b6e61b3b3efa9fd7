import type { TestProject } from "vitest/node";
import { freePort } from "../../packages/testing/src/free-port";
import { chooseInfraPath, type InfraPath } from "../../scripts/containers/runtime";
import { ensureKafka } from "../../scripts/infra/kafka";
import { ensurePostgres } from "../../scripts/infra/postgres";
import { startS3, type S3Handle } from "../../scripts/infra/s3";
import { startContainerInfra, type ContainerRun } from "./container-infra";
import { needsKafka, needsS3 } from "./test-needs";

declare module "vitest" {
  export interface ProvidedContext {
    databaseAdminUrl: string;
    kafkaBrokers: string[];
    /** The run's own S3 server (S3Mock, no signature checks); null when the run's scope needs none. Tests make buckets of their own. */
    s3: { endpoint: string; bucket: string } | null;
    /** Which path the run took and why; with containers, what a test needs to find or add its own. */
    testInfra: { kind: InfraPath["kind"]; reason: string; containers: ContainerRun | null };
  }
}

interface Infra {
  readonly path: InfraPath;
  readonly adminUrl: string;
  /** Empty when the run's scope needs no broker. */
  readonly brokers: string[];
  readonly containers: ContainerRun | null;
  stop(): Promise<void>;
}

/**
 * Each project of the run calls this setup (with a module of its own), but the run needs one
 * broker: the first call starts the infrastructure, the others share it, the last teardown stops it.
 */
const shared = globalThis as { tawsilTestInfra?: { infra: Promise<Infra & { s3: S3Handle | null }>; users: number } };

/**
 * Real infrastructure for the suite, on the path runtime.ts chooses (said in one line): PostgreSQL
 * 15 and a Kafka broker of the run's own as containers through testcontainers (Docker with the
 * official images, podman here with the project's), else as native processes (the local server
 * or an embedded one; a broker from Maven Central's jars on free ports). Every test names its
 * databases uniquely. Never `make dev`'s broker nor another run's: the end-to-end meshes use the
 * same topics and consumer groups as `make dev`, so sharing a broker would split their events.
 * `make test SERVICE=<name>` sets TAWSIL_TEST_SCOPE to that process's folder: its tests get
 * Kafka only if they ask for it (test-needs.ts), else no broker is started.
 */
async function startInfra(log: (line: string) => void): Promise<Infra> {
  const scope = process.env.TAWSIL_TEST_SCOPE;
  const wantKafka = !scope || needsKafka(scope);
  const givenDatabase = process.env.DATABASE_ADMIN_URL;
  const path = await chooseInfraPath();
  log(`${path.kind === "native" ? "native processes" : `containers through ${path.kind}`}: ${path.reason}`);
  if (!wantKafka) log(`no Kafka: no test under ${scope} asks for it`);

  if (path.kind !== "native") {
    const infra = await startContainerInfra(path, { postgres: !givenDatabase, kafka: wantKafka }, log);
    if (givenDatabase) log(`PostgreSQL: DATABASE_ADMIN_URL (${new URL(givenDatabase).host})`);
    return { path, adminUrl: givenDatabase ?? infra.adminUrl!, brokers: infra.brokers ?? [], containers: infra.run, stop: infra.stop };
  }

  const postgres = await ensurePostgres({ log, ...(givenDatabase ? { adminUrl: givenDatabase } : {}) });
  if (!wantKafka) return { path, adminUrl: postgres.adminUrl, brokers: [], containers: null, stop: () => postgres.stop() };
  const port = await freePort();
  let controllerPort = await freePort();
  while (controllerPort === port) controllerPort = await freePort();
  const kafka = await ensureKafka({ port, controllerPort, reuse: false, log });
  return {
    path,
    adminUrl: postgres.adminUrl,
    brokers: kafka.brokers,
    containers: null,
    stop: async () => {
      await kafka.stop();
      await postgres.stop();
    },
  };
}

/**
 * The run's S3 server, a native JVM on free ports like the native broker, beside whichever path
 * PostgreSQL and Kafka took: S3Mock is one jar from Maven Central, and Java is on every machine
 * that runs these tests. Only when the run's scope asks for it (13 s of a busy core otherwise).
 */
async function startRunS3(log: (line: string) => void): Promise<S3Handle | null> {
  const scope = process.env.TAWSIL_TEST_SCOPE;
  if (scope && !needsS3(scope)) return null;
  return startS3({ port: await freePort(), httpsPort: await freePort(), bucket: "tawsil-test-run", log });
}

export async function setup(project: TestProject): Promise<void> {
  const log = (line: string) => console.log(`[test infra] ${line}`);
  shared.tawsilTestInfra ??= {
    infra: Promise.all([startInfra(log), startRunS3(log)]).then(([infra, s3]) => ({
      ...infra,
      s3,
      stop: async () => {
        await s3?.stop();
        await infra.stop();
      },
    })),
    users: 0,
  };
  shared.tawsilTestInfra.users += 1;
  const infra = await shared.tawsilTestInfra.infra;
  project.provide("databaseAdminUrl", infra.adminUrl);
  project.provide("kafkaBrokers", infra.brokers);
  project.provide("s3", infra.s3 ? { endpoint: infra.s3.endpoint, bucket: infra.s3.bucket } : null);
  project.provide("testInfra", { kind: infra.path.kind, reason: infra.path.reason, containers: infra.containers });
}

export async function teardown(): Promise<void> {
  const entry = shared.tawsilTestInfra;
  if (!entry || --entry.users > 0) return;
  shared.tawsilTestInfra = undefined;
  await (await entry.infra).stop();
}
