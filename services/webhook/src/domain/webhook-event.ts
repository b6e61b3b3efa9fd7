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
  /** The assets the create attached (decisions.md section 16); announced on shipment.created only. */
  readonly timelineMedia: readonly { readonly mediaAssetId: string; readonly purpose: string; readonly sortOrder: number }[];
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
 * timelineMedia only on created (the assets the create attached, as the shipment event carries them).
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
  if (type === "shipment.created") data.timelineMedia = fact.timelineMedia.map((m) => ({ mediaAssetId: m.mediaAssetId, purpose: m.purpose, sortOrder: m.sortOrder }));
  const body = JSON.stringify({ id, type, timestamp: fact.occurredAt.toISOString(), sequence: Number(fact.version), data });
  return { id, type, sequence: fact.version, body };
}
