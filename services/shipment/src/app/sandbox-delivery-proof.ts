import { FailedPreconditionError, NotFoundError } from "@tawsil/errors";
import { isUuid } from "@tawsil/domain";
import type { ShipmentStore } from "./ports";

/** What a delivery of the shipment must prove, as the recipient would tell the driver at the door. */
export interface SandboxDeliveryProof {
  readonly deliveryPin: string | null;
  readonly requirements: readonly string[];
  readonly codAmount: { readonly currency: string; readonly amount: string };
}

/**
 * The sandbox's simulated fleet has no recipient to ask for the PIN, so the shipment service tells
 * it (decisions.md section 17: the fleet enters the right PIN). Refused outside the sandbox: in
 * production the PIN reaches drivers only through the recipient.
 */
export class GetSandboxDeliveryProof {
  constructor(private readonly deps: { store: ShipmentStore; environment: "sandbox" | "production" }) {}

  async execute(shipmentId: string): Promise<SandboxDeliveryProof> {
    if (this.deps.environment !== "sandbox") throw new FailedPreconditionError("SANDBOX_ONLY", "only the sandbox tells its simulated drivers what to prove");
    const shipment = isUuid(shipmentId) ? await this.deps.store.findById(shipmentId.toLowerCase()) : null;
    if (!shipment) throw new NotFoundError("shipment");
    return {
      deliveryPin: shipment.deliveryPin,
      requirements: shipment.requirements,
      codAmount: { currency: shipment.currency, amount: shipment.paymentMethod === "COD" ? shipment.codAmount : "0.00" },
    };
  }
}
