/**
 * The canonical shipment states and the public status each shows (decisions.md section 5): one
 * vocabulary for the shipment service that owns the lifecycle and the services that read it.
 */
export const SHIPMENT_STATES = [
  "PENDING_APPROVAL",
  "READY_FOR_DISPATCH",
  "OFFERED",
  "ACCEPTED",
  "DISPATCH_UNRESOLVED",
  "PICKED_UP",
  "OUT_FOR_DELIVERY",
  "DELIVERED",
  "DELIVERY_FAILED",
  "CANCELLED",
] as const;
export type ShipmentState = (typeof SHIPMENT_STATES)[number];

export const PUBLIC_STATUSES = ["CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED", "FAILED", "CANCELLED"] as const;
export type PublicStatus = (typeof PUBLIC_STATUSES)[number];

const PUBLIC_OF: Readonly<Record<ShipmentState, PublicStatus>> = {
  PENDING_APPROVAL: "CREATED",
  READY_FOR_DISPATCH: "CREATED",
  OFFERED: "CREATED",
  DISPATCH_UNRESOLVED: "CREATED",
  ACCEPTED: "ASSIGNED",
  PICKED_UP: "PICKED_UP",
  OUT_FOR_DELIVERY: "OUT_FOR_DELIVERY",
  DELIVERED: "DELIVERED",
  DELIVERY_FAILED: "FAILED",
  CANCELLED: "CANCELLED",
};

export function publicStatusOf(state: ShipmentState): PublicStatus {
  return PUBLIC_OF[state];
}

export function isShipmentState(value: string): value is ShipmentState {
  return (SHIPMENT_STATES as readonly string[]).includes(value);
}
