import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { MediaAssetSchema, MediaAssetStatus, type MediaAsset as MediaAssetMessage } from "@tawsil/proto/tawsil/shipment/v1/media_asset_pb";
import type { MediaAsset } from "../domain/media-asset";

/** An asset as the gateway reads it; where its bytes are is never part of it. */
export function mediaAssetToProto(asset: MediaAsset): MediaAssetMessage {
  return create(MediaAssetSchema, {
    mediaAssetId: asset.id,
    merchantId: asset.merchantId ?? "",
    driverId: asset.driverId ?? "",
    purpose: asset.purpose,
    contentType: asset.contentType,
    sizeBytes: BigInt(asset.sizeBytes),
    status: MediaAssetStatus[asset.status],
    createTime: timestampFromDate(asset.createdAt),
    expireTime: timestampFromDate(asset.expiresAt),
    sha256: asset.content?.sha256 ?? new Uint8Array(),
    width: asset.content?.width ?? 0,
    height: asset.content?.height ?? 0,
  });
}
