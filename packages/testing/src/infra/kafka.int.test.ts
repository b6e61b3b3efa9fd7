/**
 * Integration test of the local Kafka provisioning against a REAL broker (Kafka 4.1 in KRaft mode,
 * run with the machine's Java). It also proves that kafkajs 2.2.4 still works with Kafka 4.x:
 * Metadata, CreateTopics, Produce (plus InitProducerId for the idempotent producer),
 * FindCoordinator, JoinGroup/SyncGroup/Heartbeat, Fetch, ListOffsets, OffsetCommit/OffsetFetch
 * and LeaveGroup all run below.
 *
 * The broker is started on a free, non-default port pair so it never collides with (or reuses)
 * a developer's broker on 9092. The first run may download the jars, hence the long timeouts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { ensureKafka, ensureTopics, portAccepts, type KafkaHandle } from './kafka.js';

// kafkajs reads this when a producer is created: silences its v2 default-partitioner notice.
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

/** Two distinct ports the OS reports free right now (held open together so they differ). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<net.Server>((resolve, reject) => {
        const server = net.createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server));
      }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

describe('local Kafka broker (real, KRaft)', () => {
  let handle: KafkaHandle;
  let port: number;
  let kafka: Kafka;

  beforeAll(async () => {
    const [p, c] = await freePorts(2);
    if (p === undefined || c === undefined) throw new Error('no free ports');
    port = p;
    handle = await ensureKafka({ port, controllerPort: c, log: (line) => console.log(`[kafka] ${line}`) });
    kafka = new Kafka({ clientId: 'kafka-int-test', brokers: handle.brokers, logLevel: logLevel.WARN });
  });

  afterAll(async () => {
    await handle?.stop(); // idempotent: the last test has normally stopped it already
  });

  it('started a fresh broker here, on 127.0.0.1 only', () => {
    expect(handle.startedHere).toBe(true);
    expect(handle.brokers).toEqual([`127.0.0.1:${port}`]);
    expect(handle.pid).toBeTypeOf('number');
  });

  it('reuses a broker that already answers on the port', async () => {
    const again = await ensureKafka({ port, controllerPort: port + 1, log: () => undefined });
    expect(again.startedHere).toBe(false);
    expect(again.brokers).toEqual(handle.brokers);
    await again.stop(); // no-op: must not stop the broker we started
    expect(await portAccepts(port)).toBe(true);
  });

  it('creates topics idempotently', async () => {
    const topics = [{ topic: 'it.orders', numPartitions: 3 }, { topic: 'it.events' }];
    await ensureTopics(handle.brokers, topics);
    await ensureTopics(handle.brokers, topics); // second call: nothing to create, no error
    // A mix of existing and new topics.
    await ensureTopics(handle.brokers, [...topics, { topic: 'it.more', numPartitions: 2 }]);

    const admin = kafka.admin();
    await admin.connect();
    try {
      const names = await admin.listTopics();
      expect(names).toEqual(expect.arrayContaining(['it.orders', 'it.events', 'it.more']));
      const { topics: meta } = await admin.fetchTopicMetadata({ topics: ['it.orders', 'it.events', 'it.more'] });
      const partitions = Object.fromEntries(meta.map((t) => [t.name, t.partitions.length]));
      expect(partitions).toEqual({ 'it.orders': 3, 'it.events': 1, 'it.more': 2 });
      for (const t of meta) for (const part of t.partitions) expect(part.leader).toBe(1);
    } finally {
      await admin.disconnect();
    }
  });

  it('a producer sends and a consumer in a group receives (kafkajs 2.2.4 on Kafka 4.1)', async () => {
    const topic = 'it.roundtrip';
    const groupId = 'it-group';
    await ensureTopics(handle.brokers, [{ topic, numPartitions: 2 }]);

    // Idempotent producer: exercises InitProducerId as well as Produce.
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    // A short fetch long-poll: consumer.disconnect() waits for the in-flight fetch (5 s by default).
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1_000, maxWaitTimeInMs: 500 });
    await producer.connect();
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const received = new Promise<{ key: string; value: string; partition: number; offset: string }>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message, partition }) => {
            resolve({
              key: message.key?.toString() ?? '',
              value: message.value?.toString() ?? '',
              partition,
              offset: message.offset,
            });
          },
        });
      });

      const sent = await producer.send({ topic, messages: [{ key: 'order-1', value: JSON.stringify({ hello: 'kafka 4.1' }) }] });
      expect(sent[0]?.errorCode).toBe(0);

      let timer: NodeJS.Timeout | undefined;
      const msg = await Promise.race([
        received,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no message within 60 s')), 60_000))),
      ]).finally(() => clearTimeout(timer));
      expect(msg.key).toBe('order-1');
      expect(JSON.parse(msg.value)).toEqual({ hello: 'kafka 4.1' });
      expect(msg.partition).toBe(sent[0]?.partition);

      // The group's committed offset becomes visible through OffsetFetch once auto-commit runs;
      // committing explicitly makes the check deterministic.
      await consumer.commitOffsets([{ topic, partition: msg.partition, offset: String(Number(msg.offset) + 1) }]);
      const admin = kafka.admin();
      await admin.connect();
      try {
        const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
        const committed = offsets[0]?.partitions.find((p) => p.partition === msg.partition)?.offset;
        expect(committed).toBe(String(Number(msg.offset) + 1));
        const groups = await admin.describeGroups([groupId]);
        expect(groups.groups[0]?.protocolType).toBe('consumer'); // classic group protocol
      } finally {
        await admin.disconnect();
      }
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
    }
  });

  it('stop() leaves no java process and no data dir behind', async () => {
    const pid = handle.pid;
    const dataDir = handle.dataDir;
    if (pid === undefined || dataDir === undefined) throw new Error('broker was not started here');
    expect(pidAlive(pid)).toBe(true);

    await handle.stop();

    expect(pidAlive(pid)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    expect(await portAccepts(port)).toBe(false);
    // No JVM of ours anywhere: pgrep exits 1 when nothing matches its data dir.
    expect(() => execFileSync('pgrep', ['-f', `kafka.Kafka ${dataDir}`], { stdio: 'ignore' })).toThrow();
    await handle.stop(); // a second stop is harmless
  });
});
