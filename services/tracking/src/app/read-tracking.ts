import { isUuid } from "@tawsil/domain";
import { FailedPreconditionError, NotFoundError, ValidationError } from "@tawsil/errors";
import { accessDenied } from "../domain/errors";
import { publicStatusOf } from "../domain/lifecycle";
import { merchantTracking, publicTracking, type MerchantTracking, type PublicTracking, type TrackedShipment } from "../domain/projection";
import { isLinkExpired, TRACKING_CODE, trackingCodeSha256 } from "../domain/tracking-link";
import type { Clock, ProjectionReader, ShipmentFallback } from "./ports";

/**
 * The two tracking reads. A shipment the projection has not seen yet (just created, its event
 * still on the way) is read from the shipment service instead, so a 201 is never followed by a 404.
 */
export class ReadTracking {
  constructor(private readonly deps: { projections: ProjectionReader; fallback: ShipmentFallback; clock: Clock }) {}

  async forMerchant(merchantId: string, shipmentId: string): Promise<MerchantTracking> {
    if (!isUuid(shipmentId)) throw new ValidationError("shipment_id", "must be a uuid");
    const id = shipmentId.toLowerCase();
    const tracked = (await this.deps.projections.findById(id)) ?? (await this.deps.fallback.byId(id));
    if (!tracked) throw new NotFoundError("shipment");
    if (tracked.merchantId !== merchantId) throw accessDenied();
    return merchantTracking(tracked, this.deps.clock());
  }

  /** `withPin`: the customer page's read, which shows the delivery PIN while OUT_FOR_DELIVERY. */
  async forCustomer(code: string, withPin = false): Promise<PublicTracking & { deliveryPin: string | null }> {
    if (!TRACKING_CODE.test(code)) throw new ValidationError("code", "must be 43 base64url characters");
    const hash = trackingCodeSha256(code);
    let tracked = (await this.deps.projections.findByCodeHash(hash)) ?? (await this.deps.fallback.byCodeHash(hash));
    if (!tracked) throw new NotFoundError("tracking link");
    const now = this.deps.clock();
    let deliveryPin: string | null = null;
    // Asked only while this projection says OUT_FOR_DELIVERY; the shipment service checks again,
    // and its state, never older than the projection's, is the one the page then says.
    if (withPin && tracked.state === "OUT_FOR_DELIVERY") {
      const current = await this.deps.fallback.withDeliveryPin(hash);
      if (current) {
        tracked = movedOn(tracked, current.shipment, now);
        deliveryPin = current.deliveryPin;
      }
    }
    if (isLinkExpired(tracked.terminalAt, now)) throw new FailedPreconditionError("TRACKING_LINK_EXPIRED", "the tracking link has expired");
    return { ...publicTracking(tracked, now), deliveryPin };
  }
}

/**
 * The projection brought to the shipment service's newer state (its event is on the way): the
 * state, its end and reason, and its status at the end of the history, when it ended or else now.
 */
function movedOn(projected: TrackedShipment, current: TrackedShipment, now: Date): TrackedShipment {
  if (current.state === projected.state) return projected;
  const status = publicStatusOf(current.state);
  const history = projected.history.at(-1)?.status === status ? projected.history : [...projected.history, { status, at: current.terminalAt ?? now }];
  return { ...projected, state: current.state, terminalAt: current.terminalAt, reasonCode: current.reasonCode, history };
}
