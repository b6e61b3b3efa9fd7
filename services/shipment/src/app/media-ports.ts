import type { MediaAsset, VerifiedContent } from "../domain/media-asset";

/**
 * Object storage (S3 API). Every method fails with DependencyUnavailableError when storage is
 * down or answers nonsense; a missing object is not a failure (null, or a no-op for delete).
 */
export interface ObjectStorage {
  /** A URL that PUTs exactly this object (its type and length signed in) until `expiresInSeconds`. */
  presignPut(key: string, contentType: string, sizeBytes: number, expiresInSeconds: number): Promise<string>;
  /** A URL that GETs this object until `expiresInSeconds`. */
  presignGet(key: string, expiresInSeconds: number): Promise<string>;
  /** The object's bytes as they arrive, or null when there is no such object. */
  read(key: string, signal: AbortSignal): Promise<AsyncIterable<Uint8Array> | null>;
  deleteMany(keys: readonly string[]): Promise<void>;
  /** One page of keys under `prefix` last modified before `before`, and where the next page starts. */
  listBefore(prefix: string, before: Date, pageToken: string | null): Promise<{ keys: string[]; next: string | null }>;
}

export interface MediaAssetStore {
  insert(asset: MediaAsset): Promise<void>;
  find(id: string): Promise<MediaAsset | null>;
  /** PENDING_UPLOAD -> READY with the verified facts; false when it was not PENDING_UPLOAD any more. */
  markReady(id: string, content: VerifiedContent): Promise<boolean>;
  /**
   * Up to `limit` unattached assets past their expiry, claimed FOR UPDATE SKIP LOCKED (another
   * replica claims others), handed to `removeBytes` and deleted in the same transaction: when
   * removing the bytes fails, the rows stay for the next run. Returns how many rows went.
   */
  deleteExpiredBatch(now: Date, limit: number, removeBytes: (ids: readonly string[]) => Promise<void>): Promise<number>;
  /** The same for attached assets whose shipment ended longer ago than the retention: purge_after passed. */
  deletePurgeableBatch(now: Date, limit: number, removeBytes: (ids: readonly string[]) => Promise<void>): Promise<number>;
  /** Which of `ids` have a row. */
  existing(ids: readonly string[]): Promise<Set<string>>;
  /** Runs `fn` only if no other replica holds the named leader lock now; false when skipped. */
  asLeader(name: string, fn: () => Promise<void>): Promise<boolean>;
}
