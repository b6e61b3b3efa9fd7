/**
 * The design floor's edge: what every request to the mesh costs before any of the product's work
 * is done. A request crosses a fastify REST edge (JSON in and out) and one Connect call over
 * HTTP/2 with binary protobuf to another process (inner.ts), as the gateway reaches a service,
 * with nothing else on the way: no token check, validation, limits, logging, metrics, tracing,
 * interceptors or service tokens. The paths that make one call (estimate, read by id, public
 * tracking) cannot cost less than this in this design; a create, which also calls pricing, writes
 * a transaction with its outbox row and has its event applied by three consumer groups, cannot
 * cost less than /create. The bench runs it in the same rounds as the mesh so the figures compare
 * on the same machine. PORT, INNER_URL, MERCHANT_ID.
 *
 *   POST /estimate  -> PricingService.QuoteDelivery, answered with a constant
 *   GET  /read/:id  -> ShipmentService.GetShipment, one primary-key statement
 *   POST /create    -> ShipmentService.CreateShipment: a quote over HTTP/2, one transaction, one
 *                      event applied by three consumer groups (inner.ts, consumers.ts)
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import Fastify from "fastify";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { env } from "./events";

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

interface Draft {
  readonly reference: string;
  readonly destination: Point;
  readonly recipient: { readonly name: string; readonly mobile: string };
}
app.post<{ Body: Draft }>("/create", async (request, reply) => {
  const body = request.body;
  const { shipment } = await shipments.createShipment({
    merchantId,
    draft: { externalReference: body.reference, destination: micro(body.destination), recipientName: body.recipient.name, recipientPhone: body.recipient.mobile },
  });
  return reply.code(201).send({ id: shipment?.shipmentId, reference: shipment?.externalReference, status: "CREATED", price: Number(shipment?.codAmount) });
});

await app.listen({ port: Number(env("PORT")), host: "127.0.0.1" });
console.log(`listening ${env("PORT")}`);
const stop = () => void app.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
