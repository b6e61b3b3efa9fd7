import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { DependencyUnavailableError } from "@tawsil/errors";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { DispatchStep, type ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { Shipments, StepOutcome } from "../app/ports";
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
    async applyStep(shipmentId, step, expectedVersion, reasonCode = "") {
      return outcome(() => client.applyDispatchStep({ shipmentId, step: STEPS[step], expectedVersion, reasonCode }));
    },
    async read(merchantId, shipmentId) {
      const answer = await outcome(() => client.getShipment({ merchantId, shipmentId }));
      return answer.ok ? { state: answer.state, version: answer.version } : undefined;
    },
  };
}

async function outcome(call: () => Promise<{ shipment?: { state: ShipmentState; version: bigint } | undefined }>): Promise<StepOutcome> {
  try {
    const { shipment } = await call();
    if (!shipment) throw new Error("the shipment service answered without a shipment");
    return { ok: true, state: ShipmentState[shipment.state] as ShipmentStateName, version: shipment.version };
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    if (REFUSALS.has(error.code)) return { ok: false, reason: error.findDetails(ErrorReasonSchema)[0]?.reason ?? Code[error.code] };
    throw new DependencyUnavailableError("shipment service", { cause: error });
  }
}
