import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";
import type { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import { withDomainErrors } from "@tawsil/rpc";
import type { MediaAssets } from "../app/media-assets";
import { shipmentErrorDetails } from "./domain-errors";
import { mediaAssetToProto } from "./media-asset-message";

/** What the gateway calls for the asset resource. Maps and delegates. */
export function mediaAssetService(deps: { mediaAssets: MediaAssets; logger: Logger }): ServiceImpl<typeof MediaAssetService> {
  const { mediaAssets } = deps;
  return withDomainErrors(
    {
      async createMediaAsset(req) {
        const asset = await mediaAssets.create({ merchantId: req.merchantId, purpose: req.purpose, contentType: req.contentType, sizeBytes: Number(req.sizeBytes) });
        return { asset: mediaAssetToProto(asset) };
      },
      async beginMediaUpload(req) {
        const begun = await mediaAssets.beginUpload(req.merchantId, req.mediaAssetId);
        return { asset: mediaAssetToProto(begun.asset), uploadUrl: begun.url, expireTime: timestampFromDate(begun.expiresAt) };
      },
      async completeMediaUpload(req, ctx) {
        return { asset: mediaAssetToProto(await mediaAssets.completeUpload(req.merchantId, req.mediaAssetId, ctx.signal)) };
      },
      async getMediaAsset(req) {
        const found = await mediaAssets.get(req.merchantId, req.mediaAssetId);
        return { asset: mediaAssetToProto(found.asset), downloadUrl: found.downloadUrl ?? "" };
      },
    },
    { logger: deps.logger, details: shipmentErrorDetails },
  );
}
