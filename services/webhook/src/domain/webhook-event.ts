import { eventTypeOf, type EventType, type PublicStatus } from "./event-types";

/** What a public status change tells the merchant (decisions.md section 11, Body). */
export interface ShipmentFact {
  readonly shipmentId: string;
  readonly merchantId: string;
  readonly reference: string;
  readonly status: PublicStatus;
  readonly version: bigint;
  readonly occurredAt: Date;
  readonly trackingUrl: string;
  readonly reasonCode: string;
}

export interface WebhookEvent {
  readonly id: string;
  readonly type: EventType;
  readonly sequence: bigint;
  /** The JSON body, fixed when the event is queued so every attempt sends the same bytes. */
  readonly body: string;
}

/**
 * The event body: `{id, type, timestamp, sequence, data}`. `timestamp` is when the change happened
 * (the `webhook-timestamp` header is per attempt); reasonCode only on failed and cancelled;
 * timelineMedia only on created (none travel on the shipment event yet, so an empty list).
 */
export function webhookEventOf(id: string, fact: ShipmentFact): WebhookEvent {
  const type = eventTypeOf(fact.status);
  const data: Record<string, unknown> = {
    shipmentId: fact.shipmentId,
    reference: fact.reference,
    status: fact.status,
    occurredAt: fact.occurredAt.toISOString(),
    trackingUrl: fact.trackingUrl,
  };
  if (type === "shipment.failed" || type === "shipment.cancelled") data.reasonCode = fact.reasonCode;
  if (type === "shipment.created") data.timelineMedia = [];
  const body = JSON.stringify({ id, type, timestamp: fact.occurredAt.toISOString(), sequence: Number(fact.version), data });
  return { id, type, sequence: fact.version, body };
}
