/**
 * The design floor's consumers (see edge.ts): one consumer group for each service that applies a
 * created shipment (dispatch, tracking, webhook), each applying what it fetched in one transaction:
 * the claims that make it idempotent, holding the events' bodies, and nothing else. Offsets are
 * committed together every 200 ms, as the services' consumers do. One process for the three
 * groups: a floor counts one process's fixed costs once. DATABASE_URL, KAFKA_BROKERS. Prints
 * "listening" once every group has joined.
 */
import type { Consumer, KafkaMessage } from "kafkajs";
import pg from "pg";
import { ensureFloorSchema, env, FLOOR_GROUPS, FLOOR_TOPIC, floorKafka, inTransaction } from "./events";

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: 6 });
await ensureFloorSchema(pool);
const kafka = floorKafka();

/** A fetched batch applied in one transaction by one set-based statement, as the services' consumers do. */
async function apply(group: string, messages: readonly KafkaMessage[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query({
      name: "floor-claim",
      text: "INSERT INTO floor_applied (group_name, event_id, body) SELECT $1, id, body FROM unnest($2::uuid[], $3::bytea[]) AS e(id, body) ON CONFLICT DO NOTHING",
      values: [group, messages.map((m) => m.key!.toString()), messages.map((m) => m.value!)],
    });
  });
}

const consumers: Consumer[] = await Promise.all(
  FLOOR_GROUPS.map(async (group) => {
    // kafkajs's defaults, as the services' consumers have them.
    const consumer = kafka.consumer({ groupId: group });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topic: FLOOR_TOPIC, fromBeginning: false });
    await consumer.run({ autoCommitInterval: 200, eachBatch: ({ batch }) => apply(group, batch.messages) });
    await joined;
    return consumer;
  }),
);
console.log("listening");
const stop = () => void Promise.all(consumers.map((c) => c.disconnect())).then(() => pool.end().then(() => process.exit(0)));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
