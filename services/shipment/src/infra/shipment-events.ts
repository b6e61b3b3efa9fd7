import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { ShipmentState as ProtoState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import type { ShipmentChange } from "../domain/shipment";
import type { TrackingLink } from "../domain/tracking-link";
import { shipmentToProto, stateToProto } from "../messages/shipment-message";

/* The shipment service's events as the outbox writes them: topic, type and payload. */

export const SHIPMENT_CHANGED_TYPE = "tawsil.shipment.v1.ShipmentChanged";

/**
 * The outbox payload of a change; occur_time is the change's own time (creation, approval or now).
 * Every event carries the tracking code's hash, so a projection may start from any of them, and
 * the tracking URL the responses carry, which the webhook sends as data.trackingUrl (decisions.md
 * section 11: never empty).
 */
export function shipmentChangedPayload(change: ShipmentChange, at: Date, link: TrackingLink): Uint8Array {
  const shipment = shipmentToProto(change.shipment);
  shipment.trackingUrl = link.url;
  return toBinary(
    ShipmentChangedSchema,
    create(ShipmentChangedSchema, {
      shipment,
      previousState: change.previousState === null ? ProtoState.UNSPECIFIED : stateToProto(change.previousState),
      publicStatusChanged: change.publicStatusChanged,
      occurTime: timestampFromDate(at),
      trackingCodeSha256: link.codeSha256,
    }),
  );
}
