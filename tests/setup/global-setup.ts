import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { laneLockDir } from "./lane-locks";
import { freePort } from "../../packages/testing/src/free-port";
import { chooseInfraPath, type InfraPath } from "../../packages/testing/src/containers/runtime";
import { ensureKafka } from "../../packages/testing/src/infra/kafka";
import { ensurePostgres } from "../../packages/testing/src/infra/postgres";
import { startS3, type S3Handle } from "../../packages/testing/src/infra/s3";
import { startContainerInfra, type ContainerRun } from "./container-infra";
import { needsKafka, needsS3 } from "./test-needs";

declare module "vitest" {
  export interface ProvidedContext {
    databaseAdminUrl: string;
    kafkaBrokers: string[];
    /**
     * A second broker for the end-to-end files, which run two at a time: each mesh uses the
     * architecture's fixed topics and consumer groups, so two meshes need two brokers (lane.ts).
     * Empty when the run's scope holds no end-to-end file.
     */
    e2eSecondBrokers: string[];
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
  /** The end-to-end files' second lane; empty for a scoped run. */
  readonly secondBrokers: string[];
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

  // The whole suite (no scope) runs the end-to-end files, two at a time, on a broker each.
  const secondKafka = wantKafka && !scope;

  if (path.kind !== "native") {
    const infra = await startContainerInfra(path, { postgres: !givenDatabase, kafka: wantKafka, secondKafka }, log);
    if (givenDatabase) log(`PostgreSQL: DATABASE_ADMIN_URL (${new URL(givenDatabase).host})`);
    return { path, adminUrl: givenDatabase ?? infra.adminUrl!, brokers: infra.brokers ?? [], secondBrokers: infra.secondBrokers ?? [], containers: infra.run, stop: infra.stop };
  }

  const postgres = await ensurePostgres({ log, ...(givenDatabase ? { adminUrl: givenDatabase } : {}) });
  if (!wantKafka) return { path, adminUrl: postgres.adminUrl, brokers: [], secondBrokers: [], containers: null, stop: () => postgres.stop() };
  // One after the other: each start sweeps stale data dirs and picks its own free ports.
  const brokers = [await startNativeKafka(log)];
  if (secondKafka) brokers.push(await startNativeKafka(log));
  return {
    path,
    adminUrl: postgres.adminUrl,
    brokers: brokers[0]!.brokers,
    secondBrokers: brokers[1]?.brokers ?? [],
    containers: null,
    stop: async () => {
      await Promise.all(brokers.map((kafka) => kafka.stop()));
      await postgres.stop();
    },
  };
}

/** A native broker on free ports of its own. */
async function startNativeKafka(log: (line: string) => void) {
  const port = await freePort();
  let controllerPort = await freePort();
  while (controllerPort === port) controllerPort = await freePort();
  return ensureKafka({ port, controllerPort, reuse: false, log });
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
  project.provide("e2eSecondBrokers", infra.secondBrokers);
  project.provide("s3", infra.s3 ? { endpoint: infra.s3.endpoint, bucket: infra.s3.bucket } : null);
  project.provide("testInfra", { kind: infra.path.kind, reason: infra.path.reason, containers: infra.containers });
}

export async function teardown(): Promise<void> {
  const entry = shared.tawsilTestInfra;
  if (!entry || --entry.users > 0) return;
  shared.tawsilTestInfra = undefined;
  const infra = await entry.infra;
  // The end-to-end lanes' locks (a worker stopped by a signal leaves its own behind).
  for (const brokers of [infra.brokers, infra.secondBrokers]) rmSync(laneLockDir(brokers), { recursive: true, force: true });
  await infra.stop();
}
