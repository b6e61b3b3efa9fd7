import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { AloneWrites, BatchEventHandler, ConsumedEvent, EventHandler, SqlClient } from "@tawsil/events";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PaymentMethod, ShipmentState, type Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { applyShipmentChange, jobCreatedBy, type ShipmentChange } from "../app/apply-shipment-change";
import type { DispatchContext } from "../app/context";
import type { JobWork } from "../app/ports";
import type { StepEchoes } from "../app/step-echoes";
import type { DispatchJob, ShipmentStateName } from "../domain/dispatch-job";
import { gramsOf, longestSideMmOf } from "../domain/parcel-facts";

export const SHIPMENT_EVENTS_GROUP = "dispatch.shipments";
const SHIPMENT_CHANGED = ShipmentChangedSchema.typeName;

/**
 * Decodes each ShipmentChanged and applies it in the consumer's transaction (committed before the
 * offset), through the job work port `workIn` gives for that transaction (server.ts wires the adapter).
 */
export function shipmentEventHandler<Tx extends SqlClient>(ctx: DispatchContext, workIn: (tx: Tx) => JobWork): EventHandler<Tx> {
  return async (tx, event) => {
    if (event.type !== SHIPMENT_CHANGED) return;
    const shipment = fromBinary(ShipmentChangedSchema, event.payload).shipment;
    if (!shipment) return;
    await applyShipmentChange(ctx, workIn(tx), changeOf(shipment));
  };
}

/**
 * The events one fetch brought, as shipmentEventHandler would apply them one by one: the creations
 * of shipments with no other event in the batch insert their jobs in one statement
 * (JobWork.createJobs), and every other event (and a creation whose shipment has a job already)
 * goes through the handler, in order. Shipments are independent, so only each one's own order counts.
 */
export function shipmentEventBatchHandler<Tx extends SqlClient>(ctx: DispatchContext, workIn: (tx: Tx) => JobWork): BatchEventHandler<Tx> {
  const one = shipmentEventHandler(ctx, workIn);
  return async (tx, events) => {
    const changes = events.map((event) => {
      if (event.type !== SHIPMENT_CHANGED) return undefined;
      const shipment = fromBinary(ShipmentChangedSchema, event.payload).shipment;
      return shipment ? changeOf(shipment) : undefined;
    });
    const eventsOf = new Map<string, number>();
    for (const change of changes) if (change) eventsOf.set(change.shipmentId, (eventsOf.get(change.shipmentId) ?? 0) + 1);
    const jobs = changes.flatMap((change) => (change && eventsOf.get(change.shipmentId) === 1 ? (jobCreatedBy(ctx, change) ?? []) : []));
    const created = await workIn(tx).createJobs(jobs);
    for (const [i, event] of events.entries()) {
      if (!created.has(changes[i]?.shipmentId ?? "")) await one(tx, event);
    }
  };
}

/**
 * The consumer's `alone` writes: a shipment's creation, when a fetch brings it alone, inserts its
 * job with the event's claim in one statement (workers.ts wires the SQL); any other event, and a
 * creation whose shipment has a job already, takes the handler.
 */
export function creationAlone(ctx: DispatchContext, writes: (job: DispatchJob, first: number) => AloneWrites): (event: ConsumedEvent, first: number) => AloneWrites | undefined {
  return (event, first) => {
    if (event.type !== SHIPMENT_CHANGED) return undefined;
    const shipment = fromBinary(ShipmentChangedSchema, event.payload).shipment;
    const job = shipment ? jobCreatedBy(ctx, changeOf(shipment)) : undefined;
    return job ? writes(job, first) : undefined;
  };
}

/**
 * Whether the consumer may skip the event with no transaction: the echo of a step this replica
 * recorded (StepEchoes), which applyShipmentChange would find already applied. Only an event of a
 * shipment whose echo is awaited is decoded here (the record's key is its shipment id).
 */
export function awaitedEcho(echoes: StepEchoes): (event: ConsumedEvent) => boolean {
  return (event) => {
    if (event.type !== SHIPMENT_CHANGED || !echoes.awaits(event.key)) return false;
    const shipment = fromBinary(ShipmentChangedSchema, event.payload).shipment;
    return shipment !== undefined && shipment.shipmentId === event.key && echoes.covers(shipment.shipmentId, shipment.version);
  };
}

function changeOf(shipment: Shipment): ShipmentChange {
  return {
    shipmentId: shipment.shipmentId,
    merchantId: shipment.merchantId,
    state: ShipmentState[shipment.state] as ShipmentStateName,
    version: shipment.version,
    cityCode: shipment.pickup?.cityCode || shipment.destination?.cityCode || "",
    pickup: shipment.pickup?.coordinate,
    destination: shipment.destination?.coordinate,
    weightGrams: gramsOf(shipment.totalWeightKilograms),
    longestSideMm: longestSideMmOf(shipment.items),
    requirements: shipment.requirements,
    cashOnDelivery: shipment.paymentMethod === PaymentMethod.COD || Number(shipment.codAmount) > 0,
    pickupWindowStart: shipment.pickupWindowStart ? timestampDate(shipment.pickupWindowStart) : undefined,
    createdAt: shipment.createTime ? timestampDate(shipment.createTime) : undefined,
    delivery: {
      pickupAddress: shipment.pickup?.addressLine ?? "",
      destinationAddress: shipment.destination?.addressLine ?? "",
      codAmount: shipment.codAmount || "0.00",
      recipientName: shipment.recipientName,
    },
  };
}
