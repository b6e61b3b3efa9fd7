import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { DependencyUnavailableError } from "@tawsil/errors";
import type { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { ShipmentState, type Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import type { ShipmentFallback } from "../app/ports";
import { isShipmentState, isTerminal } from "../domain/lifecycle";
import type { TrackedShipment } from "../domain/projection";

/** Codes that mean the shipment service could not answer now: the read fails closed with 503. */
const OUTAGE = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted, Code.Aborted, Code.Canceled, Code.Internal, Code.Unknown]);

/**
 * The shipment service's FindTrackedShipment, for a shipment the projection has not seen yet (or
 * no longer keeps). What it answers is the state now and, once terminal, when it became so: the
 * history holds the creation, no driver fix is known, and the link expires like any other.
 */
export class ShipmentServiceFallback implements ShipmentFallback {
  constructor(private readonly shipments: Client<typeof ShipmentService>) {}

  byId(shipmentId: string): Promise<TrackedShipment | null> {
    return this.#find({ case: "shipmentId", value: shipmentId });
  }

  byCodeHash(hash: Uint8Array): Promise<TrackedShipment | null> {
    return this.#find({ case: "trackingCodeSha256", value: hash });
  }

  async withDeliveryPin(hash: Uint8Array): Promise<{ shipment: TrackedShipment; deliveryPin: string | null } | null> {
    const found = await this.#call({ case: "trackingCodeSha256", value: hash });
    const shipment = trackedFrom(found);
    return shipment ? { shipment, deliveryPin: found?.deliveryPin || null } : null;
  }

  async #find(key: { case: "shipmentId"; value: string } | { case: "trackingCodeSha256"; value: Uint8Array }): Promise<TrackedShipment | null> {
    return trackedFrom(await this.#call(key));
  }

  async #call(key: { case: "shipmentId"; value: string } | { case: "trackingCodeSha256"; value: Uint8Array }) {
    try {
      return await this.shipments.findTrackedShipment({ key });
    } catch (error) {
      const connect = ConnectError.from(error);
      if (connect.code === Code.NotFound) return null;
      if (OUTAGE.has(connect.code)) throw new DependencyUnavailableError("the shipment service", { cause: connect });
      throw new Error(`the shipment service answered ${Code[connect.code]}`, { cause: connect });
    }
  }
}

function trackedFrom(found: { shipment?: Shipment | undefined; terminalTime?: Timestamp | undefined } | null): TrackedShipment | null {
  return found?.shipment ? trackedFromShipment(found.shipment, found.terminalTime ? timestampDate(found.terminalTime) : null) : null;
}

/**
 * A terminal shipment without a terminal time (a shipment service older than the field, during a
 * rolling deploy) is taken to have ended at its creation, the earliest it can have: its link may
 * expire early, never late.
 */
function trackedFromShipment(shipment: Shipment, terminalTime: Date | null): TrackedShipment {
  const state = ShipmentState[shipment.state];
  if (!isShipmentState(state)) throw new Error(`the shipment service answered state ${state}`);
  const createdAt = shipment.createTime ? timestampDate(shipment.createTime) : null;
  const point = (c: { latitudeMicro: number; longitudeMicro: number } | undefined) => ({ latitudeMicro: c?.latitudeMicro ?? 0, longitudeMicro: c?.longitudeMicro ?? 0 });
  return {
    shipmentId: shipment.shipmentId,
    merchantId: shipment.merchantId,
    state,
    pickup: point(shipment.pickup?.coordinate),
    destination: point(shipment.destination?.coordinate),
    cityCode: shipment.pickup?.cityCode || shipment.destination?.cityCode || "",
    terminalAt: isTerminal(state) ? (terminalTime ?? createdAt ?? new Date(0)) : null,
    reasonCode: shipment.reasonCode || null,
    history: createdAt ? [{ status: "CREATED", at: createdAt }] : [],
    fix: null,
  };
}
