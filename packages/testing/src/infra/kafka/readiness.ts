/** Waiting for a fresh broker until it serves groups and idempotent producers at once. */
import { describeBroker, quietKafka } from './probe';
import { PLAINTEXT, type ClientAccess } from './security';
import { READY_TIMEOUT_MS, sleep } from './settings';

/** Polls until the port accepts and describeCluster succeeds; fails fast if the JVM exits. */
export async function waitReady(port: number, isRunning: () => boolean, access: ClientAccess = PLAINTEXT): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!isRunning()) throw new Error('the broker JVM exited during startup');
    if (await describeBroker(port, access)) return;
    await sleep(250);
  }
  throw new Error(`timed out after ${READY_TIMEOUT_MS / 1000} s`);
}

/**
 * A fresh broker answers the first FindCoordinator/JoinGroup with "coordinator not available /
 * loading" (__consumer_offsets is created on first use, then loaded) and the first InitProducerId
 * with "coordinator is loading" (the producer-id block is fetched from the controller lazily).
 * kafkajs recovers, but only after logging errors, and its first consumer crashes and restarts
 * a few seconds later. Touching both once here hands callers a broker where groups and idempotent
 * producers work at once.
 */
export async function warmCoordinators(brokers: string[], isRunning: () => boolean, access: ClientAccess = PLAINTEXT): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const kafka = quietKafka(brokers, { access });
  const attempt = async (what: string, fn: () => Promise<unknown>) => {
    for (;;) {
      if (!isRunning()) throw new Error('the broker JVM exited during startup');
      try {
        await fn();
        return;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`${what} not ready after ${READY_TIMEOUT_MS / 1000} s: ${(err as Error).message}`);
      }
      await sleep(200);
    }
  };
  const admin = kafka.admin();
  try {
    await admin.connect();
    await attempt('group coordinator', () => admin.describeGroups(['tawsil-infra-warmup']));
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  await attempt('producer id manager', async () => {
    // An idempotent producer's connect() sends InitProducerId (kafkajs demands retries for it).
    const producer = quietKafka(brokers, { retries: 5, access }).producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      await producer.connect();
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  });
}
