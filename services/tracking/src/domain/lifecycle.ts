/** The canonical states and their public statuses (decisions.md section 5), as tracking reads them. */
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

const PUBLIC_OF: Record<ShipmentState, PublicStatus> = {
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

export function isTerminal(state: ShipmentState): boolean {
  return state === "DELIVERED" || state === "DELIVERY_FAILED" || state === "CANCELLED";
}

/** A driver has accepted and not yet finished: the states in which a driver position means something. */
export function hasDriver(state: ShipmentState): boolean {
  return state === "ACCEPTED" || state === "PICKED_UP" || state === "OUT_FOR_DELIVERY";
}

/** The parcel is with the driver: the only states in which customers see (a coarse) position. */
export function isCarried(state: ShipmentState): boolean {
  return state === "PICKED_UP" || state === "OUT_FOR_DELIVERY";
}
