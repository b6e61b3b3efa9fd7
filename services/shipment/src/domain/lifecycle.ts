import type { ShipmentState } from "@tawsil/domain";

/** The canonical states of decisions.md section 5 and their public statuses: @tawsil/domain. */
export { publicStatusOf, SHIPMENT_STATES, type PublicStatus, type ShipmentState } from "@tawsil/domain";

/** Every allowed move; anything else is refused by the aggregate. Terminal states have none. */
const TRANSITIONS: Readonly<Record<ShipmentState, readonly ShipmentState[]>> = {
  PENDING_APPROVAL: ["READY_FOR_DISPATCH", "CANCELLED"],
  READY_FOR_DISPATCH: ["OFFERED", "CANCELLED"],
  DISPATCH_UNRESOLVED: ["OFFERED", "CANCELLED"],
  OFFERED: ["OFFERED", "DISPATCH_UNRESOLVED", "ACCEPTED"],
  ACCEPTED: ["PICKED_UP"],
  PICKED_UP: ["OUT_FOR_DELIVERY", "DELIVERY_FAILED"],
  OUT_FOR_DELIVERY: ["DELIVERED", "DELIVERY_FAILED"],
  DELIVERED: [],
  DELIVERY_FAILED: [],
  CANCELLED: [],
};

export function canTransition(from: ShipmentState, to: ShipmentState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(state: ShipmentState): boolean {
  return TRANSITIONS[state].length === 0;
}

/** What a cancel request meets in each state (decisions.md section 4). */
export type CancelVerdict = "CANCELLABLE" | "SHIPMENT_ALREADY_ASSIGNED" | "SHIPMENT_NOT_CANCELLABLE";

export function cancelVerdict(state: ShipmentState): CancelVerdict {
  if (canTransition(state, "CANCELLED")) return "CANCELLABLE";
  return isTerminal(state) ? "SHIPMENT_NOT_CANCELLABLE" : "SHIPMENT_ALREADY_ASSIGNED";
}

/** States dispatch may reserve for an offer. */
export function isReservable(state: ShipmentState): boolean {
  return state === "READY_FOR_DISPATCH" || state === "DISPATCH_UNRESOLVED";
}

/** What dispatch reports about a reserved shipment (decisions.md section 5, after the offer). */
export const DISPATCH_STEPS = ["REOFFER", "UNRESOLVED", "ACCEPT", "PICK_UP", "START_LAST_LEG", "DELIVER", "FAIL"] as const;
export type DispatchStep = (typeof DISPATCH_STEPS)[number];

/** The state each step moves to; whether the current state allows the move is the transition table's call. */
const STEP_TARGETS: Readonly<Record<DispatchStep, ShipmentState>> = {
  REOFFER: "OFFERED",
  UNRESOLVED: "DISPATCH_UNRESOLVED",
  ACCEPT: "ACCEPTED",
  PICK_UP: "PICKED_UP",
  START_LAST_LEG: "OUT_FOR_DELIVERY",
  DELIVER: "DELIVERED",
  FAIL: "DELIVERY_FAILED",
};

export function dispatchStepTarget(step: DispatchStep): ShipmentState {
  return STEP_TARGETS[step];
}

/**
 * A step is a transition of the table out of a state dispatch has already reserved: getting to
 * OFFERED from a reservable state is ReserveForOffer's compare-and-set, never a REOFFER.
 */
export function isDispatchStepAllowed(state: ShipmentState, step: DispatchStep): boolean {
  return !isReservable(state) && canTransition(state, STEP_TARGETS[step]);
}
