import type { Coordinate } from "@tawsil/domain";
import type { ShipmentState } from "../domain/lifecycle";
import type { TrackedShipment } from "../domain/projection";

/** What a shipment event tells tracking (shipment.shipment.events.v1). */
export interface ShipmentFact {
  readonly shipmentId: string;
  readonly merchantId: string;
  readonly state: ShipmentState;
  readonly version: bigint;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  readonly cityCode: string;
  /** Set on CANCELLED and DELIVERY_FAILED; null otherwise. */
  readonly reasonCode: string | null;
  /** Empty for events published before the field existed. */
  readonly trackingCodeSha256: Uint8Array;
  readonly occurredAt: Date;
}

/** A driver accepted a shipment (dispatch.assignment.events.v1, change ACCEPTED). */
export interface AssignmentFact {
  readonly shipmentId: string;
  readonly driverRef: string;
  readonly occurredAt: Date;
}

/** A fix of a driver carrying a shipment (dispatch.driver-location.v1). */
export interface FixFact {
  readonly shipmentId: string;
  readonly driverRef: string;
  readonly position: Coordinate;
  readonly accuracyMetres: number;
  readonly recordedAt: Date;
}

/**
 * The projection tables as the consumers write them, inside the consumer's transaction. Every
 * write is order-proof: an older version, assignment or fix than the one stored changes nothing.
 */
export interface ProjectionWriter {
  /** The row moves to the fact's version (if newer), and `status` goes into the history at the fact's time (the earliest time wins). */
  saveShipment(fact: ShipmentFact, terminalAt: Date | null, status: string): Promise<void>;
  saveAssignment(fact: AssignmentFact): Promise<void>;
  saveFix(fact: FixFact): Promise<void>;
}

/** A shipment's status history entry: the earliest time it showed that public status. */
export interface StatusEntry {
  readonly shipmentId: string;
  readonly status: string;
  readonly at: Date;
}

/**
 * The same writes set-based, one statement for many rows, with the same order-proof guards. Each
 * call's rows have distinct keys (a statement cannot touch one row twice); apply-facts.ts folds or
 * splits what a batch of events holds accordingly.
 */
export interface ProjectionBatchWriter {
  /** Distinct shipments; with them (in the same write), history entries of distinct (shipment, status). */
  saveShipments(rows: readonly { readonly fact: ShipmentFact; readonly terminalAt: Date | null }[], statuses?: readonly StatusEntry[]): Promise<void>;
  /** Distinct shipments. */
  saveAssignments(facts: readonly AssignmentFact[]): Promise<void>;
  /** Distinct (shipment, driver). */
  saveFixes(facts: readonly FixFact[]): Promise<void>;
}

/** The projections as the reads see them; the fix is the assigned driver's only. */
export interface ProjectionReader {
  findById(shipmentId: string): Promise<TrackedShipment | null>;
  findByCodeHash(hash: Uint8Array): Promise<TrackedShipment | null>;
}

/**
 * The shipment service's authoritative state, for a shipment the projection has not seen yet
 * (the window between a 201 and the event's arrival). Null when the shipment does not exist;
 * DependencyUnavailableError when the service cannot answer.
 */
export interface ShipmentFallback {
  byId(shipmentId: string): Promise<TrackedShipment | null>;
  byCodeHash(hash: Uint8Array): Promise<TrackedShipment | null>;
  /**
   * The shipment behind the code as the shipment service holds it now, with its delivery PIN, which
   * that service answers only while the shipment is OUT_FOR_DELIVERY (null otherwise, or without a
   * PIN). This service never stores the PIN: it is asked for each customer page, so a stale
   * projection can neither show it late nor say OUT_FOR_DELIVERY beside no PIN.
   */
  withDeliveryPin(hash: Uint8Array): Promise<{ readonly shipment: TrackedShipment; readonly deliveryPin: string | null } | null>;
}

export type Clock = () => Date;
