/** What the broker JVM is told: its server.properties and the JVM flags shared with the formatter. */
import path from 'node:path';
import { HOST, LOG4J_CONFIG } from './settings';

/**
 * One combined broker+controller, sized for a 2-core dev machine and fast tests. `secured`: the
 * client listener is SASL_SSL with those extra properties (./security.ts) instead of PLAINTEXT.
 */
export function serverProperties(dataDir: string, port: number, controllerPort: number, secured?: Record<string, string>): string {
  const client = secured ? 'SASL_SSL' : 'PLAINTEXT';
  const props: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    // Static voters (formatted without --standalone): the simplest single-node quorum.
    'controller.quorum.voters': `1@${HOST}:${controllerPort}`,
    'controller.listener.names': 'CONTROLLER',
    listeners: `${client}://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}`,
    'advertised.listeners': `${client}://${HOST}:${port}`,
    'inter.broker.listener.name': client,
    'listener.security.protocol.map': `CONTROLLER:PLAINTEXT,${client}:${client}`,
    'log.dirs': path.join(dataDir, 'kraft-logs'),
    // One node: every replication factor and min ISR must be 1, or consumer groups hang on
    // "group coordinator not available" waiting for replicas that can never exist.
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    // Fast tests: one partition for internal topics, no join delay, explicit topic creation
    // (under KRaft a consumer subscribing to a missing topic fails instead of waiting).
    'num.partitions': 1,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.num.partitions': 1,
    'share.coordinator.state.topic.num.partitions': 1,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': false,
    // Small thread pools for a 2-core machine.
    'num.network.threads': 2,
    'num.io.threads': 2,
    'background.threads': 2,
    'num.recovery.threads.per.data.dir': 1,
    'num.replica.fetchers': 1,
    'log.cleaner.threads': 1,
    // The default 128 MiB dedupe buffer comes out of the heap; 16 MiB is plenty here.
    'log.cleaner.dedupe.buffer.size': 16 * 1024 * 1024,
    // The controller appends a no-op record to the metadata log this often when nothing changes
    // (default 500 ms, each one a write and a flush): an idle broker's steadiest work. A single
    // node has no follower to keep informed; 5 s took its idle CPU from 2.3% to 1.6% of a core.
    'metadata.max.idle.interval.ms': 5000,
    ...secured,
  };
  const lines = Object.entries(props).map(([k, v]) => `${k}=${String(v)}`);
  return `# Written by packages/testing/src/infra/kafka.ts for a throwaway local broker.\n${lines.join('\n')}\n`;
}

/**
 * The broker JVM of `make dev`, `make bench` and the tests: one node with a handful of clients.
 * Measured on the 2-core machines (30,000 records produced and consumed, then idle), against the
 * former -Xms256m -Xmx512m with the defaults (G1, C2): RSS 175 MiB instead of 267, ready in 4 s
 * instead of 12, the load in 1.5 s instead of 4.6 (C2's compilations competed for the 2 cores),
 * idle CPU 1.6% instead of 2.3% of a core (with the idle interval above). Its heap holds little
 * beyond the index and request buffers; the serial collector needs no per-region bookkeeping,
 * and the C1 compiler alone compiles less and keeps less code. A production broker is Strimzi's.
 */
export const BROKER_JVM_FLAGS = ['-Xms64m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:+ExitOnOutOfMemoryError'] as const;

/** java from JAVA_HOME when set (as Kafka's own scripts do), else from PATH. */
export function javaBin(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

/** System properties shared by the formatter and the broker: logging to <dataDir>/server.log. */
export function logJvmArgs(dataDir: string): string[] {
  return [`-Dlog4j2.configurationFile=${LOG4J_CONFIG}`, `-Dkafka.logs.dir=${dataDir}`, '-Djava.awt.headless=true'];
}
