/**
 * The suite's PostgreSQL and Kafka as containers through testcontainers (docker or podman, see
 * packages/testing/src/containers/runtime.ts), labelled with this run so that its reaper, its teardown and other
 * runs' sweeps tell them apart from every other run's.
 */
import { randomUUID } from "node:crypto";
import { listContainers, removeRunContainers, RUN_LABEL } from "../../packages/testing/src/containers/engine-api";
import { ensureTestImages, type TestImages } from "../../packages/testing/src/containers/images";
import { runLabels, spawnReaper, sweepDeadRuns } from "../../packages/testing/src/containers/reaper";
import { useEngine, type InfraPath } from "../../packages/testing/src/containers/runtime";
import { startKafkaContainer, startPostgresContainer } from "../../packages/testing/src/containers/containers";

export type ContainerPath = Extract<InfraPath, { kind: "docker" | "podman" }>;

/** What a test needs to start containers of its own in this run (the fault suite) or to find the run's. */
export interface ContainerRun {
  readonly path: ContainerPath;
  readonly runId: string;
  /** The run's labels, naming the process that owns the run (not a worker), for every container of it. */
  readonly labels: Record<string, string>;
  readonly images: TestImages;
}

export interface ContainerInfra {
  readonly run: ContainerRun;
  /** Absent when DATABASE_ADMIN_URL names a server to use. */
  readonly adminUrl: string | undefined;
  /** Absent when the run's scope needs no broker. */
  readonly brokers: string[] | undefined;
  /** A second broker, when asked for: the end-to-end files' second lane. */
  readonly secondBrokers: string[] | undefined;
  /** Removes every container of the run, including those its tests started, and ends its reaper. */
  stop(): Promise<void>;
}

export async function startContainerInfra(path: ContainerPath, needs: { postgres: boolean; kafka: boolean; secondKafka?: boolean }, log: (line: string) => void): Promise<ContainerInfra> {
  useEngine(path);
  const swept = await sweepDeadRuns(path.dockerHost);
  if (swept > 0) log(`removed ${swept} container(s) left by test runs that died`);
  const images = await ensureTestImages(path, log);
  const runId = randomUUID();
  const reaper = spawnReaper(path.dockerHost, runId);
  const stop = async () => {
    await removeRunContainers(path.dockerHost, runId);
    reaper.stop();
    // A container that survived its removal (the engine failed it) must fail the run, not pile up.
    const left = await listContainers(path.dockerHost, [`${RUN_LABEL}=${runId}`]);
    if (left.length > 0) throw new Error(`${left.length} container(s) of test run ${runId} are left: ${left.map((c) => c.Id.slice(0, 12)).join(", ")}`);
  };
  const labels = runLabels(runId);
  const started = Date.now();
  const timed = async <T>(what: string, start: () => Promise<T>): Promise<T> => {
    const value = await start();
    log(`${what} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return value;
  };
  try {
    const [postgres, kafka, secondKafka] = await Promise.all([
      needs.postgres ? timed(`PostgreSQL (${images.postgres})`, () => startPostgresContainer(images, labels)) : undefined,
      needs.kafka ? timed(`Kafka (${images.kafka})`, () => startKafkaContainer(images, labels)) : undefined,
      needs.kafka && needs.secondKafka ? timed(`a second Kafka (${images.kafka})`, () => startKafkaContainer(images, labels)) : undefined,
    ]);
    return { run: { path, runId, labels, images }, adminUrl: postgres?.adminUrl, brokers: kafka?.brokers, secondBrokers: secondKafka?.brokers, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
