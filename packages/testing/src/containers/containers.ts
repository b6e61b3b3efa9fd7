/**
 * PostgreSQL 15 and a single-node KRaft Kafka 4.1.2 as containers through testcontainers, for the
 * test run's shared infrastructure and for tests that need a server of their own (the fault suite
 * stops and restarts them). One code path for the official images and ours (images.ts): both
 * honour the same environment and print the same readiness lines.
 *
 * Waits are on log lines, never on ports: a port wait execs into the container, and on podman
 * every exec leaves a conmon process behind for minutes. The host port is chosen here, outside the
 * range the kernel and podman pick random ports from, and bound fixed: Kafka must advertise it
 * before it starts, and a stopped and started container keeps it.
 */
import { freePortIn } from "../free-port";
import { GenericContainer, Wait, type StartedTestContainer } from "testcontainers";
import { serverProperties } from "../infra/kafka/server-properties";
import { warmCoordinators } from "../infra/kafka/readiness";
import type { TestImages } from "./images";

const POSTGRES_PASSWORD = "postgres";
const KAFKA_PORT = 9092;
const STARTUP_TIMEOUT_MS = 120_000;

/** Below the ephemeral range (32768-60999 here): random ports of the kernel and podman never land there. */
const FIXED_PORTS = { from: 20_000, to: 32_000 };

/** A port of FIXED_PORTS (outside the kernel's ephemeral range) that nothing holds now, on any address. */
function fixedHostPort(): Promise<number> {
  return freePortIn(FIXED_PORTS, "0.0.0.0");
}

/**
 * Starts a container on a fresh fixed host port; a port taken between the check and the bind
 * (another run choosing the same one) is retried on another.
 */
async function startOnFreePort(make: (hostPort: number) => GenericContainer): Promise<{ container: StartedTestContainer; hostPort: number }> {
  for (let attempt = 1; ; attempt++) {
    const hostPort = await fixedHostPort();
    try {
      return { container: await make(hostPort).start(), hostPort };
    } catch (err) {
      if (attempt >= 3 || !/address already in use|port is already allocated|bind/i.test(String(err))) throw err;
    }
  }
}

/** A container whose published port listens on the loopback only: the test servers trust their callers. */
class LoopbackContainer extends GenericContainer {
  withLoopbackPort(containerPort: number, hostPort: number): this {
    this.withExposedPorts({ container: containerPort, host: hostPort });
    this.hostConfig.PortBindings = { ...this.hostConfig.PortBindings, [`${containerPort}/tcp`]: [{ HostIp: "127.0.0.1", HostPort: String(hostPort) }] };
    return this;
  }
}

export interface PostgresContainer {
  readonly adminUrl: string;
  readonly container: StartedTestContainer;
}

export async function startPostgresContainer(images: TestImages, labels: Record<string, string>): Promise<PostgresContainer> {
  const { container, hostPort } = await startOnFreePort((hostPort) =>
    new LoopbackContainer(images.postgres)
      // Trust on the loopback, as the native servers the tests ran on do: a password exchange
      // (SCRAM) cost every new connection about 30 ms more on a loaded machine (38 ms median
      // against 10), enough for first readiness probes to miss their 1 s deadline.
      .withEnvironment({ POSTGRES_PASSWORD, POSTGRES_HOST_AUTH_METHOD: "trust" })
      // A test server: durability buys nothing, and fsyncs cost the shared disk a lot.
      .withCommand(["postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=500"])
      .withLoopbackPort(5432, hostPort)
      .withLabels(labels)
      // Printed once by the initialising server, once by the real one.
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .withStartupTimeout(STARTUP_TIMEOUT_MS),
  );
  return { adminUrl: `postgres://postgres:${POSTGRES_PASSWORD}@127.0.0.1:${hostPort}/postgres`, container };
}

/**
 * The same broker settings as the native test broker (server-properties.ts: one partition, no
 * rebalance delay, explicit topics, small pools), as KAFKA_* variables. Clients reach the broker on
 * PLAINTEXT, advertised as 127.0.0.1:<host port>; the broker reaches itself on BROKER, inside.
 */
function kafkaEnvironment(hostPort: number): Record<string, string> {
  const props = Object.fromEntries(
    serverProperties("/var/lib/kafka", KAFKA_PORT, 9093)
      .split("\n")
      .filter((line) => line && !line.startsWith("#"))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  Object.assign(props, {
    "controller.quorum.voters": "1@localhost:9093",
    listeners: `PLAINTEXT://0.0.0.0:${KAFKA_PORT},BROKER://0.0.0.0:9094,CONTROLLER://0.0.0.0:9093`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${hostPort},BROKER://localhost:9094`,
    "inter.broker.listener.name": "BROKER",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT",
    "log.dirs": "/var/lib/kafka/data",
  });
  // The official image's naming: `.` is `_`, `_` is `__`, `-` is `___`.
  const env = Object.fromEntries(
    Object.entries(props).map(([key, value]) => [`KAFKA_${key.replace(/_/g, "__").replace(/-/g, "___").replace(/\./g, "_").toUpperCase()}`, value]),
  );
  return { ...env, KAFKA_HEAP_OPTS: "-Xms256m -Xmx512m" };
}

export interface KafkaContainer {
  readonly brokers: string[];
  readonly container: StartedTestContainer;
}

export async function startKafkaContainer(images: TestImages, labels: Record<string, string>): Promise<KafkaContainer> {
  const { container, hostPort } = await startOnFreePort((hostPort) =>
    new LoopbackContainer(images.kafka)
      .withEnvironment(kafkaEnvironment(hostPort))
      .withLoopbackPort(KAFKA_PORT, hostPort)
      .withLabels(labels)
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .withStartupTimeout(STARTUP_TIMEOUT_MS),
  );
  const brokers = [`127.0.0.1:${hostPort}`];
  // As for the native broker: groups and idempotent producers work from the first call.
  await warmCoordinators(brokers, () => true);
  return { brokers, container };
}
