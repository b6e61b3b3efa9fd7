import type { Coordinate } from "@tawsil/domain";
import type { Position } from "../domain/cursor";
import type { ShipmentState } from "../domain/lifecycle";
import type { EvidenceAsset, PinLock } from "../domain/proof-of-delivery";
import type { Place, Shipment, ShipmentChange } from "../domain/shipment";

export type MerchantStatus = "DRAFT" | "ACTIVE" | "SUSPENDED" | "TERMINATED";

/**
 * The merchant service, as this replica caches it (one read per merchant until it changes).
 * Fails with DependencyUnavailableError when it cannot answer; an unknown merchant is reported as
 * status null, an unknown saved location or branch as null / false.
 */
export interface MerchantDirectory {
  status(merchantId: string): Promise<MerchantStatus | null>;
  savedLocation(merchantId: string, code: string): Promise<Place | null>;
  branchExists(merchantId: string, code: string): Promise<boolean>;
  /** The agreed maximum COD amount of the rate card in force, "5000.00"; null without one. */
  maxCodAmount(merchantId: string): Promise<string | null>;
}

export interface QuoteRequest {
  readonly merchantId: string;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  /** "" when the merchant named no city. */
  readonly expectedCityCode: string;
  readonly parcel: { totalWeightGrams: bigint; longestSideMm: number; requirements: readonly string[]; cashOnDelivery: boolean };
  readonly codAmount: string;
}

export interface Quote {
  readonly distanceMetres: number;
  readonly price: string;
  readonly serviceLevel: string;
  readonly rateCardId: string;
  readonly rateCardVersion: number;
  readonly pickup: { readonly cityCode: string; readonly addressLine: string };
  readonly destination: { readonly cityCode: string; readonly addressLine: string };
}

/** The pricing service. Fails with FailedPreconditionError (pricing's reason) or DependencyUnavailableError. */
export interface Quotes {
  quote(request: QuoteRequest, signal: AbortSignal): Promise<Quote>;
}

/** Where an idempotency key lives (decisions.md section 3). */
export interface IdempotencyScope {
  readonly operation: "create" | "cancel";
  readonly merchantId: string;
  /** "" for cancel's derived key, which is scoped to the merchant only. */
  readonly clientId: string;
  readonly key: string;
}


/** A completed result worth replaying: the response snapshot, or the one stored refusal. */
export type Outcome = { readonly kind: "snapshot"; readonly snapshot: Uint8Array } | { readonly kind: "refused"; readonly reason: "SHIPMENT_ALREADY_ASSIGNED" };

export interface StoredRecord {
  readonly fingerprint: string;
  readonly outcome: Outcome;
}

/** What one database transaction can do; every write of a use case goes through one of these. */
export interface ShipmentTx {
  /** Serialises requests of one scope; throws VersionConflictError IDEMPOTENCY_KEY_IN_USE after waitMs. */
  lockIdempotencyScope(scope: IdempotencyScope, waitMs: number): Promise<void>;
  findRecord(scope: IdempotencyScope, now: Date): Promise<StoredRecord | null>;
  /** Replaces a record of the scope that no longer counts (expired, or a refusal the caller set aside). */
  saveRecord(scope: IdempotencyScope, record: StoredRecord & { shipmentId: string }, now: Date, expiresAt: Date): Promise<void>;
  /** SELECT ... FOR UPDATE: cancel, reserve and dispatch steps serialise on it. */
  lockShipment(id: string): Promise<Shipment | null>;
  /** Writes the mutable part (state, version, approval, reason) and the change's outbox event. */
  record(change: ShipmentChange): Promise<void>;
  /** The wrong-PIN count of a shipment this transaction holds locked. */
  pinLock(shipmentId: string): Promise<PinLock>;
  savePinLock(shipmentId: string, lock: PinLock): Promise<void>;
  /**
   * Attaches those of `ids` that are the driver's own READY evidence, attached to nothing, at
   * sort orders firstSortOrder + their index in `ids` (a conditional UPDATE: of two deliveries
   * racing for one asset, one attaches it). Returns what it attached (lower-case ids).
   */
  attachDriverEvidence(input: { shipmentId: string; driverId: string; ids: readonly string[]; firstSortOrder: number }): Promise<EvidenceAsset[]>;
}

/** A create ready to commit: the shipment in its final state, its changes and the record to keep. */
export interface NewShipment {
  readonly scope: IdempotencyScope;
  /** How long to wait behind another request of the same scope before IDEMPOTENCY_KEY_IN_USE. */
  readonly waitMs: number;
  readonly now: Date;
  readonly shipment: Shipment;
  /** Each change becomes one outbox event, in order, stamped with its own time. */
  readonly events: readonly { readonly change: ShipmentChange; readonly at: Date }[];
  readonly record: { readonly fingerprint: string; readonly snapshot: Uint8Array; readonly expiresAt: Date };
}

/** What a create found under the idempotency lock, or that it committed. */
export type CreateOutcome = { readonly kind: "created" } | { readonly kind: "replay"; readonly record: StoredRecord } | { readonly kind: "reference-taken" };

export interface ShipmentStore {
  inTransaction<R>(fn: (tx: ShipmentTx) => Promise<R>): Promise<R>;
  /**
   * Under the scope's idempotency lock, in one transaction: answers the key's live record if there
   * is one, refuses a reference already used, else commits the shipment, its events and the record.
   * Throws ShipmentNumberTakenError, DuplicateReferenceError (a racing create under another key) or
   * VersionConflictError IDEMPOTENCY_KEY_IN_USE after waitMs.
   */
  createOnce(input: NewShipment): Promise<CreateOutcome>;
  /** Outside any lock: the fast path of a replay. */
  findRecord(scope: IdempotencyScope, now: Date): Promise<StoredRecord | null>;
  findById(id: string): Promise<Shipment | null>;
  /** The shipment whose public tracking code hashes to `hash` (SHA-256), if any. */
  findByTrackingCodeSha256(hash: Uint8Array): Promise<Shipment | null>;
  /** The SHA-256 of a shipment's public tracking code. */
  trackingCodeSha256(shipmentId: string): Uint8Array;
  /** When the shipment reached its terminal state (its event's time); null while it moves. */
  terminalAt(shipmentId: string): Promise<Date | null>;
  /** Up to `limit` shipments of the query strictly after `after`, created_at DESC then id DESC. */
  listPage(query: { merchantId: string; state: ShipmentState | null; externalReference: string | null }, after: Position | null, limit: number): Promise<Shipment[]>;
  /** Up to `limit` PENDING_APPROVAL shipments (of one merchant, or of all), oldest first. */
  listPendingApproval(merchantId: string | null, limit: number): Promise<Shipment[]>;
}

/**
 * The stored form of a create's or cancel's answer, replayed byte for byte: a serialized Shipment
 * without its derived tracking URL (the store keeps it opaque; server.ts wires the message codec).
 */
export interface ResponseSnapshots {
  of(shipment: Shipment): Uint8Array;
}

/** The random shipment number hit an existing one; the creation is retried with another. */
export class ShipmentNumberTakenError extends Error {
  override readonly name = "ShipmentNumberTakenError";
}
