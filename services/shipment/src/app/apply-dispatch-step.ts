import { NotFoundError } from "@tawsil/errors";
import { ShipmentValidationError } from "../domain/errors";
import type { DispatchStep } from "../domain/lifecycle";
import { applyDispatchStep, type Shipment } from "../domain/shipment";
import type { ShipmentStore } from "./ports";
import { isUuid } from "@tawsil/domain";

export interface ApplyDispatchStepRequest {
  readonly shipmentId: string;
  /** null when the caller named no step, or one this service does not know. */
  readonly step: DispatchStep | null;
  /** 0n: apply whatever the current version. */
  readonly expectedVersion: bigint;
  /** "" when absent; required for FAIL, ignored otherwise. */
  readonly reasonCode: string;
}

const REASON = /^[A-Z][A-Z0-9_]{1,47}$/;

/**
 * What dispatch reports after an offer (another candidate, none left, accepted, picked up, last
 * leg, delivered, failed), under the shipment's row lock that cancel and ReserveForOffer take too:
 * a cancel racing an ACCEPT either wins before it or meets SHIPMENT_ALREADY_ASSIGNED after it.
 */
export class ApplyDispatchStep {
  constructor(private readonly deps: { store: ShipmentStore }) {}

  async execute(request: ApplyDispatchStepRequest): Promise<Shipment> {
    const { step } = request;
    if (step === null) throw new ShipmentValidationError([{ field: "step", code: "REQUIRED" }]);
    const reasonCode = step === "FAIL" ? request.reasonCode : null;
    if (reasonCode === "") throw new ShipmentValidationError([{ field: "reason_code", code: "REQUIRED" }]);
    if (reasonCode !== null && !REASON.test(reasonCode)) throw new ShipmentValidationError([{ field: "reason_code", code: "PATTERN_MISMATCH" }]);
    if (!isUuid(request.shipmentId)) throw new NotFoundError("shipment");

    return this.deps.store.inTransaction(async (tx) => {
      const shipment = await tx.lockShipment(request.shipmentId);
      if (!shipment) throw new NotFoundError("shipment");
      const change = applyDispatchStep(shipment, step, { expectedVersion: request.expectedVersion, reasonCode });
      await tx.record(change);
      return change.shipment;
    });
  }
}
