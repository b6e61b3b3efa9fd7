import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { TransactionClient } from "@tawsil/db";
import type { EventHandler } from "@tawsil/events";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PublicStatus as PublicStatusProto } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { enqueueShipmentEvent } from "../app/enqueue-event";
import type { Clock } from "../app/ports";
import type { PublicStatus } from "../domain/event-types";
import type { ShipmentFact } from "../domain/webhook-event";
import { PrismaQueueWriter } from "../infra/prisma-delivery-queue";
import type { PrismaClient } from "../infra/prisma/generated/client";

export const SHIPMENT_EVENTS_TOPIC = "shipment.shipment.events.v1";
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
 * Queues a webhook event for each ShipmentChanged whose public status changed (decisions.md
 * section 5: internal dispatch steps announce nothing). `onQueued` runs after the handler, to wake
 * this replica's engine; the row is visible once the consumer's transaction commits.
 */
export function shipmentEventHandler(clock: Clock, onQueued: () => void): EventHandler<TransactionClient<PrismaClient>> {
  return async (tx, event) => {
    const changed = fromBinary(ShipmentChangedSchema, event.payload);
    const shipment = changed.shipment;
    const status = shipment ? STATUS[shipment.publicStatus] : undefined;
    if (!changed.publicStatusChanged || !shipment || !status) return;
    const fact: ShipmentFact = {
      shipmentId: shipment.shipmentId,
      merchantId: shipment.merchantId,
      reference: shipment.externalReference,
      status,
      version: shipment.version,
      occurredAt: changed.occurTime ? timestampDate(changed.occurTime) : clock.now(),
      trackingUrl: shipment.trackingUrl,
      reasonCode: shipment.reasonCode,
    };
    if (await enqueueShipmentEvent(new PrismaQueueWriter(tx), fact, clock.now())) setImmediate(onQueued);
  };
}
