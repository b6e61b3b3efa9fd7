import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { DependencyUnavailableError } from "@tawsil/errors";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { DispatchStep, type ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";

export type ShipmentStateName = keyof typeof ShipmentState;

/** What dispatch learns of a shipment after a call: its state and version. */
export interface ShipmentSnapshot {
  readonly state: ShipmentStateName;
  readonly version: bigint;
}

/** The shipment service refused (its state machine, a stale version, or no such shipment). */
export type StepOutcome = ({ readonly ok: true } & ShipmentSnapshot) | { readonly ok: false; readonly reason: string };

export type Step = "REOFFER" | "UNRESOLVED" | "ACCEPT" | "PICK_UP" | "START_LAST_LEG" | "DELIVER" | "FAIL";

const STEPS: Record<Step, DispatchStep> = {
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

/** The port through which dispatch changes shipments: the shipment service is their only writer. */
export interface Shipments {
  reserveForOffer(shipmentId: string, expectedVersion: bigint): Promise<StepOutcome>;
  applyStep(shipmentId: string, step: Step, expectedVersion: bigint, reasonCode?: string): Promise<StepOutcome>;
  /** The shipment now; `undefined` when it does not exist. */
  read(merchantId: string, shipmentId: string): Promise<ShipmentSnapshot | undefined>;
}

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
