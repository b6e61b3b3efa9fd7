/**
 * The design floor's inner service (see edge.ts): a Connect server over HTTP/2 cleartext, as every
 * service is reached, whose handlers do nothing of the product's. A quote is a constant; a read is
 * one primary-key statement through a pg pool, turned into the message field by field; a create
 * asks for a quote over HTTP/2 (from itself: the hop's work, one process's fixed costs), writes the
 * row and its outbox row in one transaction and publishes the one event to Kafka, acks from all
 * in-sync replicas, together with the other creates' that came during the previous send
 * (consumers.ts applies it). PORT, DATABASE_URL, KAFKA_BROKERS. Prints
 * "listening <port>".
 */
import http2 from "node:http2";
import { create } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { Message } from "kafkajs";
import pg from "pg";
import { PricingService, QuoteDeliveryResponseSchema } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { ShipmentSchema } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { ShipmentService, ShipmentDraftSchema } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { toBinary } from "@bufbuild/protobuf";
import { ensureFloorSchema, env, FLOOR_TOPIC, floorKafka, inTransaction } from "./events";

const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: 10 });
await ensureFloorSchema(pool);
const producer = floorKafka().producer();
await producer.connect();
const port = Number(env("PORT"));

/**
 * Events wait while a send is in flight and leave together in the next one, as a relay sends what
 * its outbox holds: one produce request per broker round trip, not one per create.
 */
const waiting: { message: Message; settle: (err?: unknown) => void }[] = [];
let sending = false;
function publish(message: Message): Promise<void> {
  return new Promise((resolve, reject) => {
    waiting.push({ message, settle: (err) => (err ? reject(err) : resolve()) });
    if (!sending) void sendWaiting();
  });
}
async function sendWaiting(): Promise<void> {
  sending = true;
  while (waiting.length > 0) {
    const batch = waiting.splice(0);
    try {
      await producer.send({ topic: FLOOR_TOPIC, acks: -1, messages: batch.map((b) => b.message) });
      for (const b of batch) b.settle();
    } catch (err) {
      for (const b of batch) b.settle(err);
    }
  }
  sending = false;
}
const self = createClient(PricingService, createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: "2", defaultTimeoutMs: 2000 }));
const QUOTE = create(QuoteDeliveryResponseSchema, { distanceMetres: 9120n, price: { amount: "21.27", currency: "SAR" } });
const READ = {
  name: "floor-read-shipment",
  text: "SELECT id, shipment_number, merchant_id, external_reference, state, version, recipient_name, cod_amount, currency, created_at FROM shipment WHERE merchant_id = $1 AND id = $2",
};

const handler = connectNodeAdapter({
  routes: (router) => {
    router.service(PricingService, { quoteDelivery: () => QUOTE });
    router.service(ShipmentService, {
      createShipment: async (req) => {
        const quote = await self.quoteDelivery({ merchantId: req.merchantId, ...(req.draft?.destination ? { destination: req.draft.destination } : {}) });
        const id = randomUUID();
        const draft = toBinary(ShipmentDraftSchema, req.draft ?? create(ShipmentDraftSchema));
        await inTransaction(pool, async (client) => {
          await client.query({ name: "floor-insert-shipment", text: "INSERT INTO floor_shipment (id, merchant_id, reference, draft) VALUES ($1, $2, $3, $4)", values: [id, req.merchantId, req.draft?.externalReference ?? "", draft] });
          await client.query({ name: "floor-insert-outbox", text: "INSERT INTO floor_outbox (id, body) VALUES ($1, $2)", values: [id, draft] });
        });
        await publish({ key: id, value: Buffer.from(draft) });
        return { shipment: create(ShipmentSchema, { shipmentId: id, merchantId: req.merchantId, externalReference: req.draft?.externalReference ?? "", codAmount: quote.price?.amount ?? "", currency: "SAR" }) };
      },
      getShipment: async (req) => {
        const { rows } = await pool.query({ ...READ, values: [req.merchantId, req.shipmentId] });
        const row = rows[0];
        if (!row) return {};
        return {
          shipment: create(ShipmentSchema, {
            shipmentId: row.id,
            shipmentNumber: row.shipment_number,
            merchantId: row.merchant_id,
            externalReference: row.external_reference,
            recipientName: row.recipient_name,
            codAmount: row.cod_amount,
            currency: row.currency,
            version: BigInt(row.version),
          }),
        };
      },
    });
  },
});

const server = http2.createServer({}, handler);
server.listen(port, "127.0.0.1", () => console.log(`listening ${port}`));
// Not waiting for close(): the session this process holds to itself (the create's quote) never ends.
const stop = () => {
  server.close();
  void Promise.all([pool.end(), producer.disconnect()]).finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
