/** Topics: created idempotently, with every partition's leader elected before callers use them. */
import type { Admin } from 'kafkajs';
import { quietAdmin } from './probe';
import { sleep } from './settings';

/**
 * Creates the topics that do not exist yet and waits until every requested partition has a
 * leader. Idempotent, and safe against a concurrent creator (TOPIC_ALREADY_EXISTS is fine).
 * The replication factor is left to the broker default (1 on our local broker).
 */
export async function ensureTopics(brokers: string[], topics: readonly { topic: string; numPartitions?: number; compacted?: boolean }[]): Promise<void> {
  if (topics.length === 0) return;
  const admin = quietAdmin(brokers, { connectionTimeout: 3_000, requestTimeout: 30_000, retries: 5 });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(t.topic));
      if (missing.length === 0) break;
      try {
        await admin.createTopics({
          topics: missing.map((t) => ({
            topic: t.topic,
            numPartitions: t.numPartitions ?? 1,
            ...(t.compacted ? { configEntries: [{ name: "cleanup.policy", value: "compact" }] } : {}),
          })),
          waitForLeaders: true,
        });
        break;
      } catch (err) {
        // kafkajs rejects a batch where only SOME topics already exist (a race with another
        // creator); list again and create the rest.
        if (attempt >= 3) throw err;
      }
    }
    await waitForLeaders(admin, topics.map((t) => t.topic));
  } finally {
    await admin.disconnect();
  }
}

/** Topics that already existed skipped createTopics' own wait: check that their leaders are elected. */
async function waitForLeaders(admin: Admin, names: string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: names });
      if (topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for leaders of ${names.join(', ')}`);
    await sleep(100);
  }
}
