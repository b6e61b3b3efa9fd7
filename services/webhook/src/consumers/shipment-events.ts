import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ConsumedEvent, EventHandler, SqlClient } from "@tawsil/events";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PublicStatus as PublicStatusProto } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { enqueueShipmentEvent } from "../app/enqueue-event";
import type { Clock, EventRoutes, QueueWriter } from "../app/ports";
import { eventTypeOf, type PublicStatus } from "../domain/event-types";
import type { ShipmentFact } from "../domain/webhook-event";

export const SHIPMENT_EVENTS_GROUP = "webhook.deliveries";

const STATUS: Record<PublicStatusProto, PublicStatus | undefined> = {
  [PublicStatusProto.UNSPECIFIED]: undefined,
  [PublicStatusProto.CREATED]: "CREATED",
  [PublicStatusProto.ASSIGNED]: "ASSIGNED",
  [PublicStatusProto.PICKED_UP]: "PICKED_UP",
  [PublicStatusProto.OUT_FOR_DELIVERY]: "OUT_FOR_DELIVERY",
  [PublicStatusProto.DELIVERED]: "DELIVERED",
  [PublicStatusProto.FAILED]: "FAILED",
  [PublicStatusProto.CANCELLED]: "CANCELLED",
};

/**
 * The public event a ShipmentChanged payload announces, or null when its public status did not
 * change (decisions.md section 5: internal dispatch steps announce nothing). Pure, so tests/compat
 * can feed it what the previous release of shipment wrote.
 */
export function publicFactOf(payload: Uint8Array, now: Date): ShipmentFact | null {
  const changed = fromBinary(ShipmentChangedSchema, payload);
  const shipment = changed.shipment;
  const status = shipment ? STATUS[shipment.publicStatus] : undefined;
  if (!changed.publicStatusChanged || !shipment || !status) return null;
  return {
    shipmentId: shipment.shipmentId,
    merchantId: shipment.merchantId,
    reference: shipment.externalReference,
    status,
    version: shipment.version,
    occurredAt: changed.occurTime ? timestampDate(changed.occurTime) : now,
    trackingUrl: shipment.trackingUrl,
    reasonCode: shipment.reasonCode,
    timelineMedia: shipment.timelineMedia,
  };
}

/**
 * Whether the consumer may skip the event without a transaction: it announces no public status,
 * or the routes cache knows the merchant has no endpoint for its type (what most events find).
 * The handler would have queued nothing for it either.
 */
export function ignoredEvent(clock: Clock, routes: EventRoutes): (event: ConsumedEvent) => Promise<boolean> {
  return async (event) => {
    const fact = publicFactOf(event.payload, clock.now());
    return fact === null || routes.ignores(fact.merchantId, eventTypeOf(fact.status));
  };
}

/**
 * Queues a webhook event for each ShipmentChanged that announces one, through the queue writer
 * `writerIn` gives for the consumer's transaction (server.ts wires the adapter). `onQueued` runs
 * after the handler, to wake this replica's engine; the row is visible once the transaction commits.
 */
export function shipmentEventHandler<Tx extends SqlClient>(clock: Clock, onQueued: () => void, writerIn: (tx: Tx) => QueueWriter): EventHandler<Tx> {
  return async (tx, event) => {
    const fact = publicFactOf(event.payload, clock.now());
    if (!fact) return;
    if (await enqueueShipmentEvent(writerIn(tx), fact, clock.now())) setImmediate(onQueued);
  };
}
