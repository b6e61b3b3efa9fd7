import { randomUUID } from "node:crypto";
import { eventTypeOf } from "../domain/event-types";
import { webhookEventOf, type ShipmentFact } from "../domain/webhook-event";
import type { QueueWriter } from "./ports";

/**
 * Queues the webhook event of one public status change, in the consumer's transaction: nothing when
 * the merchant has no endpoint or did not subscribe to the type. The unique (endpoint, shipment,
 * sequence) key makes a second copy of the same change (a republished outbox row under another
 * event id) a no-op. Events that arrive while the endpoint is PAUSED are queued and held.
 */
export async function enqueueShipmentEvent(writer: QueueWriter, fact: ShipmentFact, now: Date): Promise<boolean> {
  const endpoint = await writer.endpointOf(fact.merchantId);
  if (!endpoint || !endpoint.eventTypes.includes(eventTypeOf(fact.status))) return false;
  return writer.enqueue(endpoint.id, fact.shipmentId, webhookEventOf(randomUUID(), fact), fact.occurredAt, now);
}
