import type { Coordinate } from "@tawsil/domain";
import { FailedPreconditionError, VersionConflictError } from "@tawsil/errors";
import type { TimelineEntry } from "./media-asset";
import {
  canTransition,
  cancelVerdict,
  dispatchStepTarget,
  isDispatchStepAllowed,
  isReservable,
  publicStatusOf,
  type DispatchStep,
  type ShipmentState,
} from "./lifecycle";

export type PaymentMethod = "PREPAID" | "COD";

/** A pickup or destination as stored: the point plus its derived (or given) context. */
export interface Place {
  readonly coordinate: Coordinate;
  readonly addressLine: string;
  readonly cityCode: string;
}

/** One line; decimals are canonical strings (weight 3 decimals, dimensions as given, null when absent). */
export interface Item {
  readonly description: string;
  readonly quantity: number;
  readonly weightKilograms: string;
  readonly lengthCentimetres: string | null;
  readonly widthCentimetres: string | null;
  readonly heightCentimetres: string | null;
}

/** The merchant's commercial terms the price was computed from, frozen at creation. */
export interface FrozenTerms {
  readonly rateCardId: string;
  readonly rateCardVersion: number;
  readonly serviceLevel: string;
  readonly price: string;
  readonly distanceMetres: number;
}

/** The aggregate. Immutable: every change returns a new value with version + 1. */
export interface Shipment {
  readonly id: string;
  readonly shipmentNumber: string;
  readonly merchantId: string;
  readonly externalReference: string;
  readonly state: ShipmentState;
  readonly version: bigint;
  readonly recipientName: string;
  /** Canonical +9665XXXXXXXX; only its masked form leaves the service. */
  readonly recipientPhone: string;
  readonly alternateContactName: string | null;
  readonly alternateContactPhone: string | null;
  readonly totalWeightKilograms: string;
  readonly declaredValue: string;
  readonly codAmount: string;
  readonly currency: string;
  readonly paymentMethod: PaymentMethod;
  readonly pickupWindow: { readonly start: Date; readonly end: Date } | null;
  readonly createdAt: Date;
  readonly approvedAt: Date | null;
  readonly pickup: Place;
  readonly destination: Place;
  readonly items: readonly Item[];
  readonly requirements: readonly string[];
  readonly branchCode: string | null;
  readonly reasonCode: string | null;
  readonly terms: FrozenTerms;
  /** Assets attached by the create, by sortOrder (decisions.md section 16). */
  readonly timelineMedia: readonly TimelineEntry[];
  /**
   * The recipient's 4-digit PIN, for a shipment requiring PIN_ON_DELIVERY (decisions.md section 17);
   * null otherwise. A secret: only the merchant's answers carry it, never an event or a log.
   */
  readonly deliveryPin: string | null;
}

/** A change of the aggregate, as the outbox event describes it. */
export interface ShipmentChange {
  readonly shipment: Shipment;
  /** null for the creation. */
  readonly previousState: ShipmentState | null;
  readonly publicStatusChanged: boolean;
}

/**
 * The creation, one committed change at the new shipment's version (decisions.md section 5): held
 * back in PENDING_APPROVAL, or, when the automatic checks passed (approvedAt given), already
 * READY_FOR_DISPATCH through the same guarded approval, without a version of its own.
 */
export function created(shipment: Shipment, approvedAt: Date | null = null): ShipmentChange {
  const committed = approvedAt === null ? shipment : { ...approve(shipment, approvedAt).shipment, version: shipment.version };
  return { shipment: committed, previousState: null, publicStatusChanged: true };
}

/** The one guarded move every transition goes through; refuses anything decisions.md section 5 does not allow. */
function transition(shipment: Shipment, to: ShipmentState, changes: Partial<Pick<Shipment, "approvedAt" | "reasonCode">> = {}): ShipmentChange {
  if (!canTransition(shipment.state, to)) {
    throw new FailedPreconditionError("ILLEGAL_TRANSITION", `a ${shipment.state} shipment cannot become ${to}`);
  }
  const next: Shipment = { ...shipment, ...changes, state: to, version: shipment.version + 1n };
  return { shipment: next, previousState: shipment.state, publicStatusChanged: publicStatusOf(to) !== publicStatusOf(shipment.state) };
}

/** The automatic checks passed: ready for dispatch. */
export function approve(shipment: Shipment, at: Date): ShipmentChange {
  return transition(shipment, "READY_FOR_DISPATCH", { approvedAt: at });
}

/** The reason code of a shipment an operator rejected (decisions.md section 2). */
export const REJECTED_BY_OPERATOR = "REJECTED_BY_OPERATOR";

/**
 * An operator's decision is only for a shipment still waiting for one: approving twice, or
 * rejecting a shipment already approved (which the transition table would allow as a cancel),
 * is refused with SHIPMENT_NOT_PENDING_APPROVAL.
 */
function requirePendingApproval(shipment: Shipment): void {
  if (shipment.state !== "PENDING_APPROVAL") {
    throw new FailedPreconditionError("SHIPMENT_NOT_PENDING_APPROVAL", `the shipment is ${shipment.state}, not PENDING_APPROVAL`);
  }
}

/** An operator approves a shipment the automatic checks held back. */
export function approveByOperator(shipment: Shipment, at: Date): ShipmentChange {
  requirePendingApproval(shipment);
  return approve(shipment, at);
}

/** An operator rejects a shipment the automatic checks held back: CANCELLED, REJECTED_BY_OPERATOR. */
export function reject(shipment: Shipment): ShipmentChange {
  requirePendingApproval(shipment);
  return transition(shipment, "CANCELLED", { reasonCode: REJECTED_BY_OPERATOR });
}

/** Cancels before any driver offer; SHIPMENT_ALREADY_ASSIGNED or SHIPMENT_NOT_CANCELLABLE otherwise. */
export function cancel(shipment: Shipment, reasonCode: string): ShipmentChange {
  const verdict = cancelVerdict(shipment.state);
  if (verdict !== "CANCELLABLE") throw new FailedPreconditionError(verdict, `a ${shipment.state} shipment cannot be cancelled`);
  return transition(shipment, "CANCELLED", { reasonCode });
}

/** Dispatch's compare-and-set: only a reservable shipment still at the version dispatch read. */
export function reserveForOffer(shipment: Shipment, expectedVersion: bigint): ShipmentChange {
  if (!isReservable(shipment.state)) throw new FailedPreconditionError("NOT_RESERVABLE", `a ${shipment.state} shipment cannot be offered`);
  if (shipment.version !== expectedVersion) {
    throw new VersionConflictError("VERSION_MISMATCH", `the shipment is at version ${shipment.version}, not ${expectedVersion}`);
  }
  return transition(shipment, "OFFERED");
}

/** Moves dispatch and drivers drive (accept, pick up, deliver, fail); guarded like the others. */
export function advance(shipment: Shipment, to: ShipmentState, reasonCode?: string): ShipmentChange {
  return transition(shipment, to, reasonCode === undefined ? {} : { reasonCode });
}

/**
 * Records a dispatch step under the row lock: a stale expectedVersion (0n skips the check) is
 * VERSION_MISMATCH, a step the state does not allow STEP_NOT_ALLOWED; FAIL stores its reason code.
 */
export function applyDispatchStep(shipment: Shipment, step: DispatchStep, options: { expectedVersion: bigint; reasonCode: string | null }): ShipmentChange {
  if (options.expectedVersion !== 0n && shipment.version !== options.expectedVersion) {
    throw new VersionConflictError("VERSION_MISMATCH", `the shipment is at version ${shipment.version}, not ${options.expectedVersion}`);
  }
  if (!isDispatchStepAllowed(shipment.state, step)) throw new FailedPreconditionError("STEP_NOT_ALLOWED", `${step} is not allowed for a ${shipment.state} shipment`);
  if (step !== "FAIL") return advance(shipment, dispatchStepTarget(step));
  if (!options.reasonCode) throw new Error("a failed delivery needs its reason code");
  return advance(shipment, dispatchStepTarget(step), options.reasonCode);
}

/** The DELIVER step with the evidence it attached, after the proof was judged (proof-of-delivery.ts). */
export function deliverWithEvidence(change: ShipmentChange, evidence: readonly TimelineEntry[]): ShipmentChange {
  if (evidence.length === 0) return change;
  return { ...change, shipment: { ...change.shipment, timelineMedia: [...change.shipment.timelineMedia, ...evidence] } };
}

/** Every character but the last four replaced by `*`. */
export function maskPhone(phone: string): string {
  const visible = Math.min(4, phone.length);
  return "*".repeat(phone.length - visible) + phone.slice(phone.length - visible);
}
