import type { ShipmentState } from "@tawsil/domain";

/** The canonical states and their public statuses live in @tawsil/domain; these are tracking's readings of them. */
export { isShipmentState, PUBLIC_STATUSES, publicStatusOf, SHIPMENT_STATES, type PublicStatus, type ShipmentState } from "@tawsil/domain";

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
