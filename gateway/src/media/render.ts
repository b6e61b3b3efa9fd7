import { timestampDate } from "@bufbuild/protobuf/wkt";
import { MediaAssetStatus, type MediaAsset } from "@tawsil/proto/tawsil/shipment/v1/media_asset_pb";

const iso = (t: Parameters<typeof timestampDate>[0] | undefined) => (t ? timestampDate(t).toISOString() : null);

/** An asset as merchants read it (decisions.md section 16); downloadUrl only on the read, once READY. */
export function renderAsset(asset: MediaAsset | undefined, downloadUrl?: string) {
  if (!asset) throw new Error("the shipment service answered without an asset");
  return {
    mediaAssetId: asset.mediaAssetId,
    purpose: asset.purpose,
    contentType: asset.contentType,
    sizeBytes: Number(asset.sizeBytes),
    status: asset.status === MediaAssetStatus.READY ? "READY" : "PENDING_UPLOAD",
    createdAt: iso(asset.createTime),
    expiresAt: iso(asset.expireTime),
    ...(asset.status === MediaAssetStatus.READY ? { sha256: Buffer.from(asset.sha256).toString("hex") } : {}),
    ...(asset.width > 0 ? { width: asset.width, height: asset.height } : {}),
    ...(downloadUrl ? { downloadUrl } : {}),
  };
}

/** The file name a download suggests: the asset's id and the extension of its own type. */
export function fileNameOf(asset: MediaAsset): string {
  const extension = { "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "application/pdf": "pdf" }[asset.contentType] ?? "bin";
  return `${asset.mediaAssetId}.${extension}`;
}
