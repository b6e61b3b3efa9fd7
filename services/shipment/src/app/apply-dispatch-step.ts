import { NotFoundError } from "@tawsil/errors";
import { ShipmentValidationError, type FieldViolation } from "../domain/errors";
import type { DispatchStep } from "../domain/lifecycle";
import { applyDispatchStep, deliverWithEvidence, type Shipment, type ShipmentChange } from "../domain/shipment";
import {
  afterWrongPin,
  assertPinUnlocked,
  evidenceViolations,
  pinMatches,
  pinViolation,
  proofViolations,
  throwIfAny,
  type DeliveryProof,
  type ProofTarget,
} from "../domain/proof-of-delivery";
import type { ShipmentStore, ShipmentTx } from "./ports";
import { isUuid } from "@tawsil/domain";

export interface ApplyDispatchStepRequest {
  readonly shipmentId: string;
  /** null when the caller named no step, or one this service does not know. */
  readonly step: DispatchStep | null;
  /** 0n: apply whatever the current version. */
  readonly expectedVersion: bigint;
  /** "" when absent; required for FAIL, ignored otherwise. */
  readonly reasonCode: string;
  /** What the driver proved; read only with DELIVER (decisions.md section 17). */
  readonly proof?: DeliveryProof;
}

const REASON = /^[A-Z][A-Z0-9_]{1,47}$/;

/** A wrong PIN is committed (counted) before it is refused, so it leaves the transaction as a value. */
type Outcome = { readonly kind: "applied"; readonly shipment: Shipment } | { readonly kind: "wrong-pin"; readonly violations: readonly FieldViolation[] };

/**
 * What dispatch reports after an offer (another candidate, none left, accepted, picked up, last
 * leg, delivered, failed), under the shipment's row lock that cancel and ReserveForOffer take too:
 * a cancel racing an ACCEPT either wins before it or meets SHIPMENT_ALREADY_ASSIGNED after it.
 * DELIVER is judged against the proof of delivery under the same lock: concurrent wrong PINs are
 * counted one after another, and the evidence is attached by the transaction that delivers.
 */
export class ApplyDispatchStep {
  private readonly clock: () => Date;

  constructor(private readonly deps: { store: ShipmentStore; clock?: () => Date }) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async execute(request: ApplyDispatchStepRequest): Promise<Shipment> {
    const { step } = request;
    if (step === null) throw new ShipmentValidationError([{ field: "step", code: "REQUIRED" }]);
    const reasonCode = step === "FAIL" ? request.reasonCode : null;
    if (reasonCode === "") throw new ShipmentValidationError([{ field: "reason_code", code: "REQUIRED" }]);
    if (reasonCode !== null && !REASON.test(reasonCode)) throw new ShipmentValidationError([{ field: "reason_code", code: "PATTERN_MISMATCH" }]);
    if (!isUuid(request.shipmentId)) throw new NotFoundError("shipment");
    // Evidence is judged as the delivering driver's own: without the driver, none can be.
    if (step === "DELIVER" && (request.proof?.evidenceIds.length ?? 0) > 0 && !isUuid(request.proof?.driverId ?? "")) {
      throw new ShipmentValidationError([{ field: "driver_id", code: "REQUIRED" }]);
    }

    const outcome = await this.deps.store.inTransaction(async (tx): Promise<Outcome> => {
      const shipment = await tx.lockShipment(request.shipmentId);
      if (!shipment) throw new NotFoundError("shipment");
      const change = applyDispatchStep(shipment, step, { expectedVersion: request.expectedVersion, reasonCode });
      if (step !== "DELIVER" || !request.proof) {
        await tx.record(change);
        return { kind: "applied", shipment: change.shipment };
      }
      return this.#deliver(tx, shipment, change, request.proof);
    });
    if (outcome.kind === "wrong-pin") throw new ShipmentValidationError(outcome.violations);
    return outcome.shipment;
  }

  /** The proof judged in the order that keeps the PIN count honest: lock, PIN, the rest, evidence. */
  async #deliver(tx: ShipmentTx, shipment: Shipment, change: ShipmentChange, proof: DeliveryProof): Promise<Outcome> {
    const now = this.clock();
    const lock = await tx.pinLock(shipment.id);
    assertPinUnlocked(lock, now);
    const target: ProofTarget = { ...shipment, timelineCount: shipment.timelineMedia.length };
    if (!pinMatches(target, proof.pin)) {
      await tx.savePinLock(shipment.id, afterWrongPin(lock, now));
      return { kind: "wrong-pin", violations: [pinViolation(proof.pin), ...proofViolations(target, proof)] };
    }
    throwIfAny(proofViolations(target, proof));
    const firstSortOrder = Math.max(-1, ...shipment.timelineMedia.map((m) => m.sortOrder)) + 1;
    // Throwing after the attach rolls it back: evidence joins only a shipment that was delivered.
    const attached = await tx.attachDriverEvidence({ shipmentId: shipment.id, driverId: proof.driverId, ids: proof.evidenceIds, firstSortOrder });
    throwIfAny(evidenceViolations(target, proof, attached));
    const evidence = proof.evidenceIds.map((id, i) => ({ mediaAssetId: id.toLowerCase(), purpose: attached.find((a) => a.id === id.toLowerCase())!.purpose, sortOrder: firstSortOrder + i }));
    const delivered = deliverWithEvidence(change, evidence);
    await tx.record(delivered);
    return { kind: "applied", shipment: delivered.shipment };
  }
}
