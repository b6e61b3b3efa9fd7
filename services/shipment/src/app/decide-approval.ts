import { NotFoundError, ValidationError } from "@tawsil/errors";
import { isUuid } from "@tawsil/domain";
import { approveByOperator, reject, type Shipment, type ShipmentChange } from "../domain/shipment";
import type { ShipmentStore } from "./ports";

/**
 * An operator's approve or reject of a shipment the automatic checks held back in
 * PENDING_APPROVAL (decisions.md section 2). Under the shipment's row lock, which cancel and
 * ReserveForOffer take too, so a merchant's racing cancel either wins (the decision then meets
 * SHIPMENT_NOT_PENDING_APPROVAL) or waits and meets the decided shipment. The change and its
 * ShipmentChanged event commit together (tx.record), as every transition does.
 */
export class DecideApproval {
  private readonly clock: () => Date;

  constructor(private readonly deps: { store: ShipmentStore; clock?: () => Date }) {
    this.clock = deps.clock ?? (() => new Date());
  }

  approve(shipmentId: string): Promise<Shipment> {
    return this.#decide(shipmentId, (shipment) => approveByOperator(shipment, this.clock()));
  }

  reject(shipmentId: string): Promise<Shipment> {
    return this.#decide(shipmentId, reject);
  }

  /** The oldest waiting shipments, of one merchant (a uuid) or of all ("" / null). */
  async listPending(merchantId: string | null, limit: number): Promise<readonly Shipment[]> {
    if (merchantId !== null && !isUuid(merchantId)) throw new ValidationError("merchant_id", "must be a uuid");
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new ValidationError("limit", "must be 1 to 500");
    return this.deps.store.listPendingApproval(merchantId?.toLowerCase() ?? null, limit);
  }

  async #decide(shipmentId: string, decision: (shipment: Shipment) => ShipmentChange): Promise<Shipment> {
    if (!isUuid(shipmentId)) throw new NotFoundError("shipment");
    return this.deps.store.inTransaction(async (tx) => {
      const shipment = await tx.lockShipment(shipmentId.toLowerCase());
      if (!shipment) throw new NotFoundError("shipment");
      const change = decision(shipment);
      await tx.record(change);
      return change.shipment;
    });
  }
}
