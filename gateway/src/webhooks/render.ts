import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { EndpointStatus, EventType, type Endpoint } from "@tawsil/proto/tawsil/webhook/v1/webhook_pb";
import { EVENT_TYPES, type WebhookEventType } from "./schemas";

const TYPE_OF: Record<EventType, WebhookEventType | undefined> = {
  [EventType.UNSPECIFIED]: undefined,
  [EventType.SHIPMENT_CREATED]: "shipment.created",
  [EventType.SHIPMENT_ASSIGNED]: "shipment.assigned",
  [EventType.SHIPMENT_PICKED_UP]: "shipment.picked_up",
  [EventType.SHIPMENT_OUT_FOR_DELIVERY]: "shipment.out_for_delivery",
  [EventType.SHIPMENT_DELIVERED]: "shipment.delivered",
  [EventType.SHIPMENT_FAILED]: "shipment.failed",
  [EventType.SHIPMENT_CANCELLED]: "shipment.cancelled",
};

export function eventTypesToProto(types: readonly WebhookEventType[]): EventType[] {
  return types.map((type) => EventType.SHIPMENT_CREATED + EVENT_TYPES.indexOf(type));
}

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export const etagOfEndpoint = (endpoint: Endpoint): string => `"${endpoint.version}"`;

/** The webhook endpoint resource (delivery-api.md): never any secret material. */
export function renderEndpoint(endpoint: Endpoint) {
  return {
    endpointId: endpoint.endpointId,
    url: endpoint.url,
    status: endpoint.status === EndpointStatus.PAUSED ? "PAUSED" : "ACTIVE",
    subscribedEventTypes: endpoint.eventTypes.map((t) => TYPE_OF[t]).filter((t) => t !== undefined),
    version: Number(endpoint.version),
    createdAt: iso(endpoint.createTime),
    updatedAt: iso(endpoint.updateTime),
    previousSecretValidUntil: iso(endpoint.previousSecretValidUntil),
  };
}
