import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";
import { PublicStatus, ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { DriverPositionSchema, EstimatesSchema, LocationStatus, PublicReason, type TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { withDomainErrors } from "@tawsil/rpc";
import type { ReadTracking } from "../app/read-tracking";
import type { Estimates } from "../domain/eta";
import type { ShownPosition } from "../domain/projection";

const position = (shown: ShownPosition | null) =>
  shown
    ? create(DriverPositionSchema, {
        position: shown.position,
        accuracyMetres: shown.accuracyMetres,
        recordTime: timestampFromDate(shown.recordedAt),
        stale: shown.stale,
        ageSeconds: BigInt(shown.ageSeconds),
      })
    : undefined;

const estimates = (value: Estimates) =>
  create(EstimatesSchema, {
    ...(value.pickupAt ? { pickupTime: timestampFromDate(value.pickupAt) } : {}),
    ...(value.deliveryAt ? { deliveryTime: timestampFromDate(value.deliveryAt) } : {}),
  });

/** What the gateway calls. Maps and delegates. */
export function trackingService(deps: { readTracking: ReadTracking; logger: Logger }): ServiceImpl<typeof TrackingService> {
  return withDomainErrors(
    {
      async getShipmentTracking(req) {
        const view = await deps.readTracking.forMerchant(req.merchantId, req.shipmentId);
        return {
          shipmentId: view.shipmentId,
          lifecycleState: ShipmentState[view.lifecycleState],
          locationStatus: LocationStatus[view.locationStatus],
          recommendedRefreshSeconds: view.recommendedRefreshSeconds,
          driverLocation: position(view.driverLocation),
          estimates: estimates(view.estimates),
        };
      },
      async getPublicTracking(req) {
        const view = await deps.readTracking.forCustomer(req.code, req.includeDeliveryPin);
        return {
          status: PublicStatus[view.status],
          locationStatus: LocationStatus[view.locationStatus],
          recommendedRefreshSeconds: view.recommendedRefreshSeconds,
          history: view.history.map((entry) => ({ status: PublicStatus[entry.status], occurTime: timestampFromDate(entry.at) })),
          driverLocation: position(view.driverLocation),
          estimates: estimates(view.estimates),
          pickupArea: view.pickupArea,
          destinationArea: view.destinationArea,
          reason: view.reason ? PublicReason[view.reason] : PublicReason.UNSPECIFIED,
          deliveryPin: view.deliveryPin ?? "",
        };
      },
    },
    { logger: deps.logger },
  );
}
