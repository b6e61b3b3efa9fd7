import { NotFoundError, FailedPreconditionError } from "@tawsil/errors";
import { v7 as uuidv7 } from "uuid";
import { accessDeniedTo } from "../domain/errors";
import { declaredAsset, isUuid, objectKeyOf, type MediaAsset } from "../domain/media-asset";
import { ContentInspection } from "../domain/media-content";
import type { MediaAssetStore, ObjectStorage } from "./media-ports";

export interface MediaAssetsDeps {
  readonly store: MediaAssetStore;
  readonly storage: ObjectStorage;
  /** How long an asset no create attached lives (decisions.md section 18: 24 h). */
  readonly unattachedRetentionMs: number;
  /** How long a presigned URL works: an upload or a download must start within it. */
  readonly presignSeconds: number;
  readonly clock?: () => Date;
  /** Why an upload was refused, for the logs (never for the merchant). */
  readonly onRejected?: (assetId: string, reason: string) => void;
}

/**
 * The asset resource of decisions.md section 16. The bytes never pass through this service's RPCs:
 * the gateway PUTs them to a presigned URL and asks for them to be checked, which streams the
 * stored object back through a ContentInspection (bounded memory). An object that fails the checks
 * is deleted before the refusal, so nothing of it is kept.
 */
export class MediaAssets {
  private readonly clock: () => Date;

  constructor(private readonly deps: MediaAssetsDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async create(input: { merchantId: string; purpose: string; contentType: string; sizeBytes: number }): Promise<MediaAsset> {
    const now = this.clock();
    const asset = declaredAsset({ ...input, id: uuidv7({ msecs: now.getTime() }), now, retentionMs: this.deps.unattachedRetentionMs });
    await this.deps.store.insert(asset);
    return asset;
  }

  async beginUpload(merchantId: string, id: string): Promise<{ asset: MediaAsset; url: string; expiresAt: Date }> {
    const asset = await this.pending(merchantId, id);
    const url = await this.deps.storage.presignPut(objectKeyOf(id), asset.contentType, asset.sizeBytes, this.deps.presignSeconds);
    return { asset, url, expiresAt: new Date(this.clock().getTime() + this.deps.presignSeconds * 1000) };
  }

  async completeUpload(merchantId: string, id: string, signal: AbortSignal): Promise<MediaAsset> {
    const asset = await this.pending(merchantId, id);
    const key = objectKeyOf(id);
    const verdict = await this.inspect(key, asset, signal);
    if (!verdict.ok) {
      await this.deps.storage.deleteMany([key]);
      this.deps.onRejected?.(id, verdict.reason);
      throw new FailedPreconditionError("MEDIA_REJECTED", "the uploaded bytes do not match the declared asset");
    }
    // A concurrent completion of the same upload may have won; either way the asset is READY.
    await this.deps.store.markReady(id, verdict.content);
    return { ...asset, status: "READY", content: verdict.content };
  }

  async get(merchantId: string, id: string): Promise<{ asset: MediaAsset; downloadUrl: string | null }> {
    const asset = await this.owned(merchantId, id);
    const downloadUrl = asset.status === "READY" ? await this.deps.storage.presignGet(objectKeyOf(id), this.deps.presignSeconds) : null;
    return { asset, downloadUrl };
  }

  /** Reads at most one byte past the declared size: a longer object is refused without reading it all. */
  private async inspect(key: string, asset: MediaAsset, signal: AbortSignal) {
    const inspection = new ContentInspection();
    const bytes = await this.deps.storage.read(key, signal);
    if (bytes) {
      for await (const chunk of bytes) {
        inspection.push(chunk);
        if (inspection.bytesRead > asset.sizeBytes) break;
      }
    }
    return inspection.verdict(asset);
  }

  private async owned(merchantId: string, id: string): Promise<MediaAsset> {
    const asset = isUuid(id) ? await this.deps.store.find(id.toLowerCase()) : null;
    if (!asset) throw new NotFoundError("media asset");
    if (asset.merchantId !== merchantId) throw accessDeniedTo("media asset");
    return asset;
  }

  private async pending(merchantId: string, id: string): Promise<MediaAsset> {
    const asset = await this.owned(merchantId, id);
    if (asset.status !== "PENDING_UPLOAD") throw new FailedPreconditionError("MEDIA_NOT_UPLOADABLE", "the asset's content was already uploaded");
    return asset;
  }
}
