import { randomInt, timingSafeEqual } from "node:crypto";
import { ReasonedError } from "@tawsil/errors";
import { ShipmentValidationError, type FieldViolation } from "./errors";
import { isUuid, MAX_TIMELINE_MEDIA } from "./media-asset";

/**
 * Proof of delivery (decisions.md section 17), judged by the shipment service inside the DELIVER
 * step's transaction, under the shipment's row lock.
 */

/** 5 wrong PINs hold the DELIVERED step of the job for 10 minutes. */
export const PIN_ATTEMPTS = 5;
export const PIN_LOCK_MS = 10 * 60_000;

/** The evidence purpose each requirement asks for. */
export const EVIDENCE_PURPOSE_OF: Readonly<Record<string, string>> = {
  SIGNATURE_ON_DELIVERY: "DELIVERY_SIGNATURE",
  NO_CONTACT: "DELIVERY_PHOTO",
};

/**
 * Only a shipment that requires PIN_ON_DELIVERY gets a PIN: a PIN nobody is asked for is a secret
 * shown to merchants and customers for nothing. Crypto-random, 0000 to 9999.
 */
export function newDeliveryPin(requirements: readonly string[], random: (max: number) => number = randomInt): string | null {
  return requirements.includes("PIN_ON_DELIVERY") ? String(random(10_000)).padStart(4, "0") : null;
}

/** What the driver proved with a DELIVER step. */
export interface DeliveryProof {
  readonly driverId: string;
  /** "" when none was given. */
  readonly pin: string;
  readonly evidenceIds: readonly string[];
  /** null when none was given. */
  readonly codCollected: { readonly currency: string; readonly amount: string } | null;
}

/** The stored facts of a shipment the proof is judged against. */
export interface ProofTarget {
  readonly requirements: readonly string[];
  readonly paymentMethod: "PREPAID" | "COD";
  readonly codAmount: string;
  readonly currency: string;
  readonly deliveryPin: string | null;
  readonly timelineCount: number;
}

/** The PIN lock of a shipment: wrong attempts so far and until when the step is held. */
export interface PinLock {
  readonly failures: number;
  readonly lockedUntil: Date | null;
}

/** DELIVERED held after 5 wrong PINs; retryAfterSeconds is what the caller may wait. */
export class DeliveryPinLockedError extends ReasonedError {
  override readonly name = "DeliveryPinLockedError";
  readonly kind = "failed-precondition";
  constructor(readonly retryAfterSeconds: number) {
    super("DELIVERY_PIN_LOCKED", "too many wrong delivery PINs; the delivery is held");
  }
}

/** The step is held until the lock lifts. */
export function assertPinUnlocked(lock: PinLock, now: Date): void {
  if (lock.lockedUntil && lock.lockedUntil.getTime() > now.getTime()) {
    throw new DeliveryPinLockedError(Math.max(1, Math.ceil((lock.lockedUntil.getTime() - now.getTime()) / 1000)));
  }
}

/** Whether the PIN given is the shipment's; true when the shipment asks for none. Constant time. */
export function pinMatches(target: ProofTarget, pin: string): boolean {
  if (!target.requirements.includes("PIN_ON_DELIVERY")) return true;
  if (target.deliveryPin === null || !/^\d{4}$/.test(pin)) return false;
  return timingSafeEqual(Buffer.from(pin), Buffer.from(target.deliveryPin));
}

/** The lock after one more wrong PIN: the 5th wrong one holds the step; a lapsed lock starts over. */
export function afterWrongPin(lock: PinLock, now: Date): PinLock {
  const lapsed = lock.lockedUntil !== null && lock.lockedUntil.getTime() <= now.getTime();
  const failures = (lapsed ? 0 : lock.failures) + 1;
  return failures >= PIN_ATTEMPTS ? { failures, lockedUntil: new Date(now.getTime() + PIN_LOCK_MS) } : { failures, lockedUntil: null };
}

/** The PIN violation: missing (REQUIRED) or wrong (INCONSISTENT_VALUE). */
export function pinViolation(pin: string): FieldViolation {
  return { field: "delivery_pin", code: pin === "" ? "REQUIRED" : "INCONSISTENT_VALUE" };
}

/**
 * The checks that need no lookup: COD collected and the shape of the evidence list. What the
 * evidence must be (the driver's own READY assets of the right purposes) is the store's answer.
 */
export function proofViolations(target: ProofTarget, proof: DeliveryProof): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (target.paymentMethod === "COD") {
    const collected = proof.codCollected;
    if (collected === null || collected.amount === "") violations.push({ field: "cod_collected", code: "REQUIRED" });
    else if (collected.currency !== target.currency || !sameAmount(collected.amount, target.codAmount)) {
      violations.push({ field: "cod_collected", code: "INCONSISTENT_VALUE", params: { expected: `${target.codAmount} ${target.currency}` } });
    }
  }
  const seen = new Set<string>();
  proof.evidenceIds.forEach((id, i) => {
    const field = `evidence_media_asset_ids[${i}]`;
    if (!isUuid(id)) violations.push({ field, code: "INVALID_FORMAT" });
    else if (seen.has(id.toLowerCase())) violations.push({ field, code: "INCONSISTENT_VALUE" });
    seen.add(id.toLowerCase());
  });
  if (target.timelineCount + proof.evidenceIds.length > MAX_TIMELINE_MEDIA) {
    violations.push({ field: "evidence_media_asset_ids", code: "TOO_MANY_ITEMS", params: { max: String(MAX_TIMELINE_MEDIA - target.timelineCount) } });
  }
  return violations;
}

/** An evidence asset as the store found it among the driver's assets. */
export interface EvidenceAsset {
  readonly id: string;
  readonly purpose: string;
}

/**
 * The evidence named against what the requirements ask: each named id must be a usable asset
 * (the driver's own, READY, attached to nothing: `usable`), and each required purpose present.
 */
export function evidenceViolations(target: ProofTarget, proof: DeliveryProof, usable: readonly EvidenceAsset[]): FieldViolation[] {
  const found = new Map(usable.map((asset) => [asset.id.toLowerCase(), asset]));
  const violations: FieldViolation[] = proof.evidenceIds.flatMap((id, i) =>
    found.has(id.toLowerCase()) ? [] : [{ field: `evidence_media_asset_ids[${i}]`, code: "UNKNOWN_REFERENCE", params: { entity: "media asset" } }],
  );
  const purposes = new Set(usable.map((asset) => asset.purpose));
  for (const requirement of target.requirements) {
    const purpose = EVIDENCE_PURPOSE_OF[requirement];
    if (purpose && !purposes.has(purpose)) violations.push({ field: "evidence_media_asset_ids", code: "REQUIRED", params: { purpose } });
  }
  return violations;
}

/** "12.5" and "12.50" are the same amount; compared in cents, never as floats. */
function sameAmount(a: string, b: string): boolean {
  const cents = (value: string) => {
    const match = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(value.trim());
    return match ? BigInt(match[1]!) * 100n + BigInt((match[2] ?? "").padEnd(2, "0")) : null;
  };
  const left = cents(a);
  return left !== null && left === cents(b);
}

export function throwIfAny(violations: readonly FieldViolation[]): void {
  if (violations.length > 0) throw new ShipmentValidationError(violations);
}
