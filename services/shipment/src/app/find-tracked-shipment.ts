import { NotFoundError, ValidationError } from "@tawsil/errors";
import { isUuid } from "@tawsil/domain";
import { isTerminal } from "../domain/lifecycle";
import type { Shipment } from "../domain/shipment";
import type { ShipmentStore } from "./ports";

/** How the tracking service names the shipment it has not seen yet. */
export type TrackedShipmentKey = { readonly shipmentId: string } | { readonly trackingCodeSha256: Uint8Array };

/**
 * The tracking service's fallback read (no window of 404s after a create): one shipment by id or
 * by its tracking code's hash, whatever its merchant; the tracking service applies the merchant
 * check of its own projection to the answer.
 */
export class FindTrackedShipment {
  constructor(private readonly deps: { store: ShipmentStore }) {}

  /** terminalAt is read only for a terminal shipment (one more query, on a path that is rare). */
  async execute(key: TrackedShipmentKey): Promise<{ shipment: Shipment; trackingCodeSha256: Uint8Array; terminalAt: Date | null }> {
    const shipment = await this.#find(key);
    if (!shipment) throw new NotFoundError("shipment");
    const terminalAt = isTerminal(shipment.state) ? await this.deps.store.terminalAt(shipment.id) : null;
    return { shipment, trackingCodeSha256: this.deps.store.trackingCodeSha256(shipment.id), terminalAt };
  }

  #find(key: TrackedShipmentKey): Promise<Shipment | null> {
    if ("shipmentId" in key) return isUuid(key.shipmentId) ? this.deps.store.findById(key.shipmentId.toLowerCase()) : Promise.resolve(null);
    if (key.trackingCodeSha256.length !== 32) throw new ValidationError("tracking_code_sha256", "must be 32 bytes");
    return this.deps.store.findByTrackingCodeSha256(key.trackingCodeSha256);
  }
}
