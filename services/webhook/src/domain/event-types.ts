import { PUBLIC_STATUSES, WEBHOOK_EVENT_TYPES, type PublicStatus, type WebhookEventType } from "@tawsil/domain";

/** The seven public statuses, and the webhook event type each one is announced as (delivery-api.md Events). */
export { PUBLIC_STATUSES, type PublicStatus };
export const EVENT_TYPES = WEBHOOK_EVENT_TYPES;
export type EventType = WebhookEventType;

export function eventTypeOf(status: PublicStatus): EventType {
  return `shipment.${status.toLowerCase()}` as EventType;
}

/** Subscriptions are stored and answered in the contract's order, without duplicates. */
export function normaliseEventTypes(types: readonly EventType[]): EventType[] {
  return EVENT_TYPES.filter((type) => types.includes(type));
}
