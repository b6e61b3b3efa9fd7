import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EndpointSchema, EndpointStatus as StatusProto, EventType as EventTypeProto, type Endpoint as EndpointMessage } from "@tawsil/proto/tawsil/webhook/v1/webhook_pb";
import type { Endpoint, EndpointStatus } from "../domain/endpoint";
import { EVENT_TYPES, type EventType } from "../domain/event-types";
import { ValidationError } from "@tawsil/errors";

const TYPE_TO_PROTO: Record<EventType, EventTypeProto> = {
  "shipment.created": EventTypeProto.SHIPMENT_CREATED,
  "shipment.assigned": EventTypeProto.SHIPMENT_ASSIGNED,
  "shipment.picked_up": EventTypeProto.SHIPMENT_PICKED_UP,
  "shipment.out_for_delivery": EventTypeProto.SHIPMENT_OUT_FOR_DELIVERY,
  "shipment.delivered": EventTypeProto.SHIPMENT_DELIVERED,
  "shipment.failed": EventTypeProto.SHIPMENT_FAILED,
  "shipment.cancelled": EventTypeProto.SHIPMENT_CANCELLED,
};

export function eventTypesFromProto(types: readonly EventTypeProto[]): EventType[] {
  return types.map((value) => {
    const type = EVENT_TYPES.find((t) => TYPE_TO_PROTO[t] === value);
    if (!type) throw new ValidationError("event_types", "unknown event type");
    return type;
  });
}

export function statusFromProto(status: StatusProto | undefined): EndpointStatus | undefined {
  if (status === undefined) return undefined;
  if (status === StatusProto.ACTIVE) return "ACTIVE";
  if (status === StatusProto.PAUSED) return "PAUSED";
  throw new ValidationError("status", "must be ACTIVE or PAUSED");
}

/** The endpoint as the gateway reads it: never any secret material. */
export function endpointMessage(endpoint: Endpoint): EndpointMessage {
  return create(EndpointSchema, {
    endpointId: endpoint.id,
    merchantId: endpoint.merchantId,
    url: endpoint.url,
    status: endpoint.status === "ACTIVE" ? StatusProto.ACTIVE : StatusProto.PAUSED,
    eventTypes: endpoint.eventTypes.map((t) => TYPE_TO_PROTO[t]),
    version: endpoint.version,
    createTime: timestampFromDate(endpoint.createdAt),
    updateTime: timestampFromDate(endpoint.updatedAt),
    ...(endpoint.previousSecretValidUntil ? { previousSecretValidUntil: timestampFromDate(endpoint.previousSecretValidUntil) } : {}),
  });
}

