import { assetIdOfKey, objectKeyOf } from "../domain/media-asset";
import type { MediaAssetStore, ObjectStorage } from "./media-ports";

export interface MediaRetentionDeps {
  readonly store: MediaAssetStore;
  readonly storage: ObjectStorage;
  /** Rows (and their objects) per batch: each batch holds its row locks only while it deletes. */
  readonly batchSize: number;
  /**
   * How old an object without a row must be before it counts as an orphan: an upload in flight has
   * its row already, but a crash between PUT and row (or a row deleted while its bytes were being
   * removed) leaves bytes that only age tells from a write still under way.
   */
  readonly orphanGraceMs: number;
}

/** Leader lock of the orphan sweep: listing the bucket twice at once would only double the work. */
const ORPHAN_SWEEP_LOCK = "shipment.media-orphan-sweep";

/**
 * decisions.md section 18 for media: unattached assets go at their expiry, attached ones 180 days
 * after their shipment's terminal state, each with its bytes; bytes without a row go too.
 */
export class MediaRetention {
  constructor(private readonly deps: MediaRetentionDeps) {}

  /** Deletes every expired unattached asset, batch by batch; returns how many rows went. */
  async purgeUnattached(now: Date): Promise<number> {
    const { store, storage, batchSize } = this.deps;
    let total = 0;
    for (;;) {
      const deleted = await store.deleteExpiredBatch(now, batchSize, (ids) => storage.deleteMany(ids.map(objectKeyOf)));
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }

  /** Deletes every attached asset whose shipment ended more than the retention ago, with its bytes; returns how many rows went. */
  async purgeAttached(now: Date): Promise<number> {
    const { store, storage, batchSize } = this.deps;
    let total = 0;
    for (;;) {
      const deleted = await store.deletePurgeableBatch(now, batchSize, (ids) => storage.deleteMany(ids.map(objectKeyOf)));
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }

  /** Deletes objects older than the grace period that no row names; returns how many, or null when another replica leads. */
  async sweepOrphans(now: Date): Promise<number | null> {
    let removed = 0;
    const led = await this.deps.store.asLeader(ORPHAN_SWEEP_LOCK, async () => {
      const before = new Date(now.getTime() - this.deps.orphanGraceMs);
      let token: string | null = null;
      do {
        const page = await this.deps.storage.listBefore("media/", before, token);
        const ids = page.keys.map(assetIdOfKey).filter((id): id is string => id !== null);
        const known = await this.deps.store.existing(ids);
        // Keys that are not an asset's at all are left alone: this job removes only what it understands.
        const orphans = ids.filter((id) => !known.has(id)).map(objectKeyOf);
        for (let i = 0; i < orphans.length; i += this.deps.batchSize) await this.deps.storage.deleteMany(orphans.slice(i, i + this.deps.batchSize));
        removed += orphans.length;
        token = page.next;
      } while (token !== null);
    });
    return led ? removed : null;
  }
}
