import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { AssignmentChangedSchema, DriverLocationSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import type { AssignmentFact, FixFact, ShipmentFact } from "../app/ports";
import { isShipmentState } from "../domain/lifecycle";

const dateOf = (ts: Timestamp | undefined): Date | null => (ts ? timestampDate(ts) : null);

/** A ShipmentChanged as tracking needs it; null for a payload that cannot describe a shipment. */
export function shipmentFactOf(payload: Uint8Array): ShipmentFact | null {
  const event = fromBinary(ShipmentChangedSchema, payload);
  const shipment = event.shipment;
  const state = shipment ? ShipmentState[shipment.state] : undefined;
  const occurredAt = dateOf(event.occurTime);
  const pickup = shipment?.pickup?.coordinate;
  const destination = shipment?.destination?.coordinate;
  if (!shipment || !state || !isShipmentState(state) || !occurredAt || !pickup || !destination) return null;
  return {
    shipmentId: shipment.shipmentId,
    merchantId: shipment.merchantId,
    state,
    version: shipment.version,
    pickup: { latitudeMicro: pickup.latitudeMicro, longitudeMicro: pickup.longitudeMicro },
    destination: { latitudeMicro: destination.latitudeMicro, longitudeMicro: destination.longitudeMicro },
    cityCode: shipment.pickup?.cityCode || shipment.destination?.cityCode || "",
    reasonCode: shipment.reasonCode || null,
    trackingCodeSha256: event.trackingCodeSha256,
    occurredAt,
  };
}

export function assignmentFactOf(payload: Uint8Array): { change: string; fact: AssignmentFact } | null {
  const event = fromBinary(AssignmentChangedSchema, payload);
  const occurredAt = dateOf(event.occurTime);
  if (!occurredAt || event.shipmentId === "") return null;
  return { change: event.change, fact: { shipmentId: event.shipmentId, driverRef: event.driverRef, occurredAt } };
}

export function fixFactOf(payload: Uint8Array): FixFact | null {
  const event = fromBinary(DriverLocationSchema, payload);
  const recordedAt = dateOf(event.recordTime);
  if (!recordedAt || !event.position) return null;
  return {
    shipmentId: event.shipmentId,
    driverRef: event.driverRef,
    position: { latitudeMicro: event.position.latitudeMicro, longitudeMicro: event.position.longitudeMicro },
    accuracyMetres: event.accuracyMetres,
    recordedAt,
  };
}
