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
    // The sandbox fleet's drivers only (the RPC refuses outside the sandbox).
    getSandboxDeliveryProof: ["dispatch"],
  }),
  // dispatch: the sandbox fleet's simulated drivers upload their evidence like a driver's app.
  callersOf(MediaAssetService, {
    createMediaAsset: ["gateway", "dispatch"],
    beginMediaUpload: ["gateway", "dispatch"],
    completeMediaUpload: ["gateway", "dispatch"],
    getMediaAsset: ["gateway"],
  }),
  operatorService(ShipmentAdminService),
]);
