import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { DependencyUnavailableError } from "@tawsil/errors";
import { ErrorReasonSchema, FieldViolationsSchema, RetryDelaySchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { DispatchStep, type ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { DeliveryProof, Shipments, StepOutcome } from "../app/ports";
import { DeliveryProofRefusedError } from "../domain/errors";
import type { ShipmentStateName } from "../domain/dispatch-job";
import type { ShipmentStep } from "../domain/driver";

const STEPS: Record<ShipmentStep, DispatchStep> = {
  REOFFER: DispatchStep.REOFFER,
  UNRESOLVED: DispatchStep.UNRESOLVED,
  ACCEPT: DispatchStep.ACCEPT,
  PICK_UP: DispatchStep.PICK_UP,
  START_LAST_LEG: DispatchStep.START_LAST_LEG,
  DELIVER: DispatchStep.DELIVER,
  FAIL: DispatchStep.FAIL,
};

/** Answers that are the shipment service's verdict, not an outage. */
const REFUSALS = new Set([Code.FailedPrecondition, Code.Aborted, Code.NotFound, Code.PermissionDenied]);

/** The Shipments port over the shipment service's Connect client (deadlines set by the client). */
export function shipmentsOver(client: Client<typeof ShipmentService>): Shipments {
  return {
    async reserveForOffer(shipmentId, expectedVersion) {
      return outcome(() => client.reserveForOffer({ shipmentId, expectedVersion }));
    },
    async applyStep(shipmentId, step, expectedVersion, reasonCode = "", proof?: DeliveryProof) {
      const proved = proof
        ? {
            driverId: proof.driverId,
            deliveryPin: proof.deliveryPin,
            evidenceMediaAssetIds: [...proof.evidenceMediaAssetIds],
            ...(proof.codCollected ? { codCollected: proof.codCollected } : {}),
          }
        : {};
      return outcome(() => client.applyDispatchStep({ shipmentId, step: STEPS[step], expectedVersion, reasonCode, ...proved }));
    },

    async read(merchantId, shipmentId) {
      const answer = await outcome(() => client.getShipment({ merchantId, shipmentId }));
      return answer.ok ? { state: answer.state, version: answer.version } : undefined;
    },
  };
}

async function outcome(call: () => Promise<{ shipment?: { state: ShipmentState; version: bigint } | undefined; recipientPhone?: string }>): Promise<StepOutcome> {
  try {
    const { shipment, recipientPhone } = await call();
    if (!shipment) throw new Error("the shipment service answered without a shipment");
    return { ok: true, state: ShipmentState[shipment.state] as ShipmentStateName, version: shipment.version, ...(recipientPhone ? { recipientPhone } : {}) };
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    const refusal = proofRefusal(error);
    if (refusal) throw refusal;
    if (REFUSALS.has(error.code)) return { ok: false, reason: error.findDetails(ErrorReasonSchema)[0]?.reason ?? Code[error.code] };
    throw new DependencyUnavailableError("shipment service", { cause: error });
  }
}

/** A refused proof of delivery, to pass on to the driver with its details; undefined for anything else. */
function proofRefusal(error: ConnectError): DeliveryProofRefusedError | undefined {
  const reason = error.findDetails(ErrorReasonSchema)[0]?.reason;
  if (reason === "DELIVERY_PIN_LOCKED") {
    const seconds = Number(error.findDetails(RetryDelaySchema)[0]?.seconds ?? 600n);
    return new DeliveryProofRefusedError(reason, "failed-precondition", [], Math.max(1, seconds));
  }
  if (reason === "VALIDATION_FAILED" && error.code === Code.InvalidArgument) {
    const violations = (error.findDetails(FieldViolationsSchema)[0]?.violations ?? []).map((v) => ({ field: v.field, code: v.code, params: { ...v.params } }));
    return new DeliveryProofRefusedError(reason, "invalid-argument", violations, null);
  }
  return undefined;
}
