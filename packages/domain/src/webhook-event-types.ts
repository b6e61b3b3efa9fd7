/** The webhook event types of the contract (delivery-api.md Events), in its order: one per public status. */
export const WEBHOOK_EVENT_TYPES = [
  "shipment.created",
  "shipment.assigned",
  "shipment.picked_up",
  "shipment.out_for_delivery",
  "shipment.delivered",
  "shipment.failed",
  "shipment.cancelled",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
