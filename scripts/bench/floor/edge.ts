/**
 * The design floor's edge: what every request to the mesh costs before any of the product's work
 * is done. A request crosses a fastify REST edge (JSON in and out) and one Connect call over
 * HTTP/2 with binary protobuf to another process (inner.ts), as the gateway reaches a service,
 * with nothing else on the way: no token check, validation, limits, logging, metrics, tracing,
 * interceptors or service tokens. The paths that make one call (estimate, read by id, public
 * tracking) cannot cost less than this in this design; the bench runs it in the same rounds as
 * the mesh so the figures compare on the same machine. PORT, INNER_URL, MERCHANT_ID.
 *
 *   POST /estimate  -> PricingService.QuoteDelivery, answered with a constant
 *   GET  /read/:id  -> ShipmentService.GetShipment, one primary-key statement
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import Fastify from "fastify";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

// The mesh's transport options (packages/rpc/src/client.ts): one HTTP/2 session, binary protobuf.
const transport = createConnectTransport({ baseUrl: env("INNER_URL"), httpVersion: "2", defaultTimeoutMs: 2000 });
const pricing = createClient(PricingService, transport);
const shipments = createClient(ShipmentService, transport);
const merchantId = env("MERCHANT_ID");

interface Point {
  readonly latitude: number;
  readonly longitude: number;
}
const micro = (p: Point) => ({ latitudeMicro: Math.round(p.latitude * 1e6), longitudeMicro: Math.round(p.longitude * 1e6) });

const app = Fastify({ logger: false, keepAliveTimeout: 65_000 });
app.post<{ Body: { pickup: Point; delivery: Point } }>("/estimate", async (request) => {
  const quote = await pricing.quoteDelivery({ merchantId, pickup: micro(request.body.pickup), destination: micro(request.body.delivery) });
  return { distanceMetres: Number(quote.distanceMetres), price: Number(quote.price?.amount), currency: quote.price?.currency ?? "SAR" };
});
app.get<{ Params: { id: string } }>("/read/:id", async (request, reply) => {
  const { shipment } = await shipments.getShipment({ merchantId, shipmentId: request.params.id });
  if (!shipment) return reply.code(404).send({ code: "SHIPMENT_NOT_FOUND" });
  return { id: shipment.shipmentId, shipmentNumber: shipment.shipmentNumber, reference: shipment.externalReference, recipientName: shipment.recipientName, codAmount: Number(shipment.codAmount), currency: shipment.currency, version: Number(shipment.version) };
});

await app.listen({ port: Number(env("PORT")), host: "127.0.0.1" });
console.log(`listening ${env("PORT")}`);
const stop = () => void app.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
