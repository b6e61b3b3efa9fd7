import { randomUUID } from "node:crypto";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import type { TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createWebhookDatabase, deliveryRowsRead, startHarness, startReceiver, type Harness, type TestReceiver } from "./support";

/**
 * An endpoint at its per-endpoint cap with a due backlog (a merchant back from a pause, or one
 * whose receiver is slower than its traffic): each freed slot is refilled from that endpoint's own
 * due rows. Before, every delivery made a claim read a window of every endpoint's due rows, then
 * a look for the next due row that walked past the capped endpoint's whole backlog: the rows read
 * per delivery grew with the backlog (about 2,000 here), and PostgreSQL spent 2.5 ms per delivery
 * in make bench's webhook-burst.
 */
const BACKLOG = 2_000;
/**
 * Rows of webhook_delivery a delivery may read, whatever the backlog: its slice of one index and
 * the index entries its own claim and record left behind until vacuum (about 23 measured; 1,397
 * with a claim that read the backlog).
 */
const ROWS_PER_DELIVERY = 100;

let db: TestDatabase;
let harness: Harness;
let receiver: TestReceiver;

beforeAll(async () => {
  db = await createWebhookDatabase(inject("databaseAdminUrl"), "claimcost");
  receiver = await startReceiver();
  harness = await startHarness(db.url, { env: { LOG_LEVEL: "info" } });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await receiver?.close();
  await db?.drop();
});

const sql = <T>(text: string, ...params: unknown[]) => harness.service.parts.database.client.$queryRawUnsafe<T[]>(text, ...params);

it("delivers an endpoint's due backlog at its cap reading a few rows per delivery, not the backlog", async () => {
  const merchantId = randomUUID();
  const client = createPeerClient(WebhookService, harness.service.url, { timeoutMs: 30_000 });
  await client.registerEndpoint({ merchantId, url: receiver.url });
  const [{ id }] = (await sql<{ id: string }>(`SELECT id::text FROM webhook_endpoint WHERE merchant_id = $1::uuid`, merchantId)) as [{ id: string }];
  await sql(`ANALYZE webhook_delivery`);
  const before = await deliveryRowsRead(harness.service);
  // Due at once, all together: the sender finds them at its next look (at most its idle sleep).
  await sql(
    `INSERT INTO webhook_delivery (id, endpoint_id, shipment_id, sequence, event_type, payload, status, next_attempt_at, occurred_at, created_at)
     SELECT gen_random_uuid(), $1::uuid, gen_random_uuid(), 1, 'shipment.created', '{"n":' || n || '}', 'PENDING', now() - interval '1 minute' + n * interval '1 ms', now(), now()
     FROM generate_series(1, ${BACKLOG}) n`,
    id,
  );
  const started = performance.now();
  const until = Date.now() + 90_000;
  while (receiver.requests.length < BACKLOG && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
  expect(receiver.requests).toHaveLength(BACKLOG);
  const seconds = (performance.now() - started) / 1000;
  const read = (await deliveryRowsRead(harness.service)) - before;
  console.info(`[claim cost] ${BACKLOG} deliveries of one endpoint at its cap in ${seconds.toFixed(1)} s read ${read} rows of webhook_delivery (${(read / BACKLOG).toFixed(1)} a delivery)`);
  expect(read / BACKLOG).toBeLessThan(ROWS_PER_DELIVERY);
  // Oldest first, as the claims take them.
  const order = receiver.requests.map((r) => (JSON.parse(r.body) as { n: number }).n);
  expect(order.slice(0, 4).every((n) => n <= 8)).toBe(true);
}, 150_000);
