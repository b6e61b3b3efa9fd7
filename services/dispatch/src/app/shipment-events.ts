import { fromBinary } from "@bufbuild/protobuf";
import type { ConsumedEvent } from "@tawsil/events";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PaymentMethod, ShipmentState, type Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { evaluateEligibility } from "../domain/eligibility";
import { gramsOf, longestSideMmOf } from "../domain/parcel-facts";
import { isRequirement, type Requirement } from "@tawsil/domain";
import { applySnapshot, lockJob, type DispatchContext, type Tx } from "./context";
import type { ShipmentStateName } from "../infra/shipment-client";
import { wakeForJob } from "../infra/wake-ups";

export const SHIPMENT_EVENTS_TOPIC = "shipment.shipment.events.v1";
export const SHIPMENT_EVENTS_GROUP = "dispatch.shipments";
const SHIPMENT_CHANGED = ShipmentChangedSchema.typeName;

/**
 * Applies one ShipmentChanged (in the consumer's transaction): a shipment ready for dispatch (or
 * unresolved) becomes a job; a terminal one closes its job; any other change only advances the
 * version dispatch last saw. Versions already applied are ignored, so redeliveries and the echo
 * of dispatch's own steps change nothing. A job that may be offered now wakes the dispatcher's
 * leader on commit (this consumer may run on any replica).
 */
export function shipmentEventHandler(ctx: DispatchContext) {
  return async (tx: Tx, event: ConsumedEvent): Promise<void> => {
    if (event.type !== SHIPMENT_CHANGED) return;
    const shipment = fromBinary(ShipmentChangedSchema, event.payload).shipment;
    if (!shipment) return;
    const state = ShipmentState[shipment.state] as ShipmentStateName;
    const job = await lockJob(tx, shipment.shipmentId);
    if (job) {
      if (shipment.version <= job.shipmentVersion) return;
      if (job.state === "DONE" || job.state === "CANCELLED") return;
      await applySnapshot(ctx, tx, job, { state, version: shipment.version });
      await wakeForJob(tx, job.shipmentId);
      return;
    }
    if (state === "READY_FOR_DISPATCH" || state === "DISPATCH_UNRESOLVED") {
      await createJob(ctx, tx, shipment, state);
      await wakeForJob(tx, shipment.shipmentId);
    }
  };
}

async function createJob(ctx: DispatchContext, tx: Tx, shipment: Shipment, state: "READY_FOR_DISPATCH" | "DISPATCH_UNRESOLVED"): Promise<void> {
  const pickup = shipment.pickup?.coordinate;
  const destination = shipment.destination?.coordinate;
  const cityCode = shipment.pickup?.cityCode || shipment.destination?.cityCode || "";
  if (!pickup || !destination || !cityCode) {
    ctx.logger.error({ shipmentId: shipment.shipmentId }, "a shipment ready for dispatch has no pickup, destination or city; ignored");
    return;
  }
  const requirements = shipment.requirements.filter((r): r is Requirement => isRequirement(r));
  const parcel = {
    cityCode,
    weightGrams: gramsOf(shipment.totalWeightKilograms),
    longestSideMm: longestSideMmOf(shipment.items),
    requirements: new Set(requirements),
    cashOnDelivery: shipment.paymentMethod === PaymentMethod.COD || Number(shipment.codAmount) > 0,
  };
  const verdict = evaluateEligibility(ctx.catalogue.current(), parcel);
  if (!verdict.eligible) ctx.logger.warn({ shipmentId: shipment.shipmentId, cityCode }, "no service is eligible for a shipment ready for dispatch; it waits");
  await tx.dispatchJob.create({
    data: {
      shipmentId: shipment.shipmentId,
      merchantId: shipment.merchantId,
      cityCode,
      serviceLevel: verdict.eligible ? verdict.level : null,
      pickupLatitudeMicro: pickup.latitudeMicro,
      pickupLongitudeMicro: pickup.longitudeMicro,
      destinationLatitudeMicro: destination.latitudeMicro,
      destinationLongitudeMicro: destination.longitudeMicro,
      weightGrams: parcel.weightGrams,
      longestSideMm: parcel.longestSideMm,
      requirements,
      cashOnDelivery: parcel.cashOnDelivery,
      state: state === "READY_FOR_DISPATCH" ? "WAITING" : "UNRESOLVED",
      shipmentVersion: shipment.version,
      triedDriverIds: [],
      // An unresolved job retries with any available driver: "since" the beginning of time.
      deadline: state === "READY_FOR_DISPATCH" ? null : new Date(0),
    },
  });
}
