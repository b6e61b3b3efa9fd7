import { NotFoundError } from "@tawsil/errors";
import { reserveForOffer, type Shipment } from "../domain/shipment";
import type { ShipmentStore } from "./ports";

/**
 * Dispatch's compare-and-set before it offers a shipment to a driver: under the same row lock as
 * cancel, a reservable shipment still at the expected version becomes OFFERED (NOT_RESERVABLE or
 * VERSION_MISMATCH otherwise).
 */
export class ReserveForOffer {
  constructor(private readonly deps: { store: ShipmentStore }) {}

  async execute(request: { shipmentId: string; expectedVersion: bigint }): Promise<Shipment> {
    return this.deps.store.inTransaction(async (tx) => {
      const shipment = await tx.lockShipment(request.shipmentId);
      if (!shipment) throw new NotFoundError("shipment");
      const change = reserveForOffer(shipment, request.expectedVersion);
      await tx.record(change);
      return change.shipment;
    });
  }
}
