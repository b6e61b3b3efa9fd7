import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";
import type { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import { currentCaller, withDomainErrors } from "@tawsil/rpc";
import { PermissionDeniedError, ValidationError } from "@tawsil/errors";
import type { MediaAssets } from "../app/media-assets";
import { isUuid, type MediaOwner } from "../domain/media-asset";
import { shipmentErrorDetails } from "./domain-errors";
import { mediaAssetToProto } from "./media-asset-message";

/**
 * Exactly one of merchant_id and driver_id names the owner. Dispatch (the sandbox fleet's drivers)
 * may act for drivers only, never for a merchant.
 */
function ownerFromRequest(req: { merchantId: string; driverId: string }): MediaOwner {
  if ((req.merchantId === "") === (req.driverId === "")) throw new ValidationError("merchant_id", "exactly one of merchant_id and driver_id is required");
  if (req.merchantId !== "" && currentCaller() === "dispatch") throw new PermissionDeniedError("ACCESS_DENIED", "dispatch acts for drivers only");
  if (req.driverId !== "" && !isUuid(req.driverId)) throw new ValidationError("driver_id", "must be a uuid");
  return req.driverId !== "" ? { kind: "driver", id: req.driverId.toLowerCase() } : { kind: "merchant", id: req.merchantId };
}

/** What the gateway (merchants' and drivers' routes) and the sandbox fleet call for the asset resource. Maps and delegates. */
export function mediaAssetService(deps: { mediaAssets: MediaAssets; logger: Logger }): ServiceImpl<typeof MediaAssetService> {
  const { mediaAssets } = deps;
  return withDomainErrors(
    {
      async createMediaAsset(req) {
        const asset = await mediaAssets.create({ owner: ownerFromRequest(req), purpose: req.purpose, contentType: req.contentType, sizeBytes: Number(req.sizeBytes) });
        return { asset: mediaAssetToProto(asset) };
      },
      async beginMediaUpload(req) {
        const begun = await mediaAssets.beginUpload(ownerFromRequest(req), req.mediaAssetId);
        return { asset: mediaAssetToProto(begun.asset), uploadUrl: begun.url, expireTime: timestampFromDate(begun.expiresAt) };
      },
      async completeMediaUpload(req, ctx) {
        return { asset: mediaAssetToProto(await mediaAssets.completeUpload(ownerFromRequest(req), req.mediaAssetId, ctx.signal)) };
      },
      async getMediaAsset(req) {
        const found = await mediaAssets.get(ownerFromRequest(req), req.mediaAssetId);
        return { asset: mediaAssetToProto(found.asset), downloadUrl: found.downloadUrl ?? "" };
      },
    },
    { logger: deps.logger, details: shipmentErrorDetails },
  );
}
