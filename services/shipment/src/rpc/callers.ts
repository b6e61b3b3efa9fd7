import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { CallerPolicy, callersOf, operatorService } from "@tawsil/rpc";

/**
 * Which service may call which RPC (the allow-list each request is checked against, and what the
 * network policy of deploy/ must match). The gateway may not reserve or move a shipment: only
 * dispatch decides offers and steps.
 */
export const CALLERS = new CallerPolicy([
  callersOf(ShipmentService, {
    createShipment: ["gateway"],
    getShipment: ["gateway", "dispatch"],
    listShipments: ["gateway"],
    cancelShipment: ["gateway"],
    reserveForOffer: ["dispatch"],
    applyDispatchStep: ["dispatch"],
    findTrackedShipment: ["tracking"],
  }),
  callersOf(MediaAssetService, {
    createMediaAsset: ["gateway"],
    beginMediaUpload: ["gateway"],
    completeMediaUpload: ["gateway"],
    getMediaAsset: ["gateway"],
  }),
  operatorService(ShipmentAdminService),
]);
