import { NotFoundError, FailedPreconditionError } from "@tawsil/errors";
import { v7 as uuidv7 } from "uuid";
import { accessDeniedTo } from "../domain/errors";
import { declaredAsset, isUuid, objectKeyOf, ownerOf, type MediaAsset, type MediaOwner } from "../domain/media-asset";
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

  async create(input: { owner: MediaOwner; purpose: string; contentType: string; sizeBytes: number }): Promise<MediaAsset> {
    const now = this.clock();
    const asset = declaredAsset({ ...input, id: uuidv7({ msecs: now.getTime() }), now, retentionMs: this.deps.unattachedRetentionMs });
    await this.deps.store.insert(asset);
    return asset;
  }

  async beginUpload(owner: MediaOwner, id: string): Promise<{ asset: MediaAsset; url: string; expiresAt: Date }> {
    const asset = await this.pending(owner, id);
    const url = await this.deps.storage.presignPut(objectKeyOf(id), asset.contentType, asset.sizeBytes, this.deps.presignSeconds);
    return { asset, url, expiresAt: new Date(this.clock().getTime() + this.deps.presignSeconds * 1000) };
  }

  async completeUpload(owner: MediaOwner, id: string, signal: AbortSignal): Promise<MediaAsset> {
    const asset = await this.pending(owner, id);
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

  async get(owner: MediaOwner, id: string): Promise<{ asset: MediaAsset; downloadUrl: string | null }> {
    const asset = await this.owned(owner, id);
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

  private async owned(owner: MediaOwner, id: string): Promise<MediaAsset> {
    const asset = isUuid(id) ? await this.deps.store.find(id.toLowerCase()) : null;
    if (!asset) throw new NotFoundError("media asset");
    const actual = ownerOf(asset);
    if (actual.kind === owner.kind && actual.id === owner.id) return asset;
    // Another merchant's asset is 403 (decisions.md section 16); a driver's asset is invisible to
    // merchants, and a merchant's or another driver's to a driver (section 17): 404.
    if (actual.kind === "merchant" && owner.kind === "merchant") throw accessDeniedTo("media asset");
    throw new NotFoundError("media asset");
  }

  private async pending(owner: MediaOwner, id: string): Promise<MediaAsset> {
    const asset = await this.owned(owner, id);
    if (asset.status !== "PENDING_UPLOAD") throw new FailedPreconditionError("MEDIA_NOT_UPLOADABLE", "the asset's content was already uploaded");
    return asset;
  }
}
