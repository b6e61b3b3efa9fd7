/** The seven public statuses, and the webhook event type each one is announced as (delivery-api.md Events). */
export const PUBLIC_STATUSES = ["CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED", "FAILED", "CANCELLED"] as const;
export type PublicStatus = (typeof PUBLIC_STATUSES)[number];

export const EVENT_TYPES = [
  "shipment.created",
  "shipment.assigned",
  "shipment.picked_up",
  "shipment.out_for_delivery",
  "shipment.delivered",
  "shipment.failed",
  "shipment.cancelled",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function eventTypeOf(status: PublicStatus): EventType {
  return `shipment.${status.toLowerCase()}` as EventType;
}

/** Subscriptions are stored and answered in the contract's order, without duplicates. */
export function normaliseEventTypes(types: readonly EventType[]): EventType[] {
  return EVENT_TYPES.filter((type) => types.includes(type));
}
