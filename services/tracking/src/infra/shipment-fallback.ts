import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { DependencyUnavailableError } from "@tawsil/errors";
import type { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { ShipmentState, type Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import type { ShipmentFallback } from "../app/ports";
import { isShipmentState } from "../domain/lifecycle";
import type { TrackedShipment } from "../domain/projection";

/** Codes that mean the shipment service could not answer now: the read fails closed with 503. */
const OUTAGE = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted, Code.Aborted, Code.Canceled, Code.Internal, Code.Unknown]);

/**
 * The shipment service's FindTrackedShipment, for a shipment the projection has not seen yet.
 * What it answers is only the state now: the history holds the creation, and neither a driver
 * fix nor a terminal time is known (the projection supplies both moments later).
 */
export class ShipmentServiceFallback implements ShipmentFallback {
  constructor(private readonly shipments: Client<typeof ShipmentService>) {}

  byId(shipmentId: string): Promise<TrackedShipment | null> {
    return this.#find({ case: "shipmentId", value: shipmentId });
  }

  byCodeHash(hash: Uint8Array): Promise<TrackedShipment | null> {
    return this.#find({ case: "trackingCodeSha256", value: hash });
  }

  async #find(key: { case: "shipmentId"; value: string } | { case: "trackingCodeSha256"; value: Uint8Array }): Promise<TrackedShipment | null> {
    try {
      const { shipment } = await this.shipments.findTrackedShipment({ key });
      return shipment ? trackedFromShipment(shipment) : null;
    } catch (error) {
      const connect = ConnectError.from(error);
      if (connect.code === Code.NotFound) return null;
      if (OUTAGE.has(connect.code)) throw new DependencyUnavailableError("the shipment service", { cause: connect });
      throw new Error(`the shipment service answered ${Code[connect.code]}`, { cause: connect });
    }
  }
}

function trackedFromShipment(shipment: Shipment): TrackedShipment {
  const state = ShipmentState[shipment.state];
  if (!isShipmentState(state)) throw new Error(`the shipment service answered state ${state}`);
  const point = (c: { latitudeMicro: number; longitudeMicro: number } | undefined) => ({ latitudeMicro: c?.latitudeMicro ?? 0, longitudeMicro: c?.longitudeMicro ?? 0 });
  return {
    shipmentId: shipment.shipmentId,
    merchantId: shipment.merchantId,
    state,
    pickup: point(shipment.pickup?.coordinate),
    destination: point(shipment.destination?.coordinate),
    cityCode: shipment.pickup?.cityCode || shipment.destination?.cityCode || "",
    terminalAt: null,
    history: shipment.createTime ? [{ status: "CREATED", at: timestampDate(shipment.createTime) }] : [],
    fix: null,
  };
}
