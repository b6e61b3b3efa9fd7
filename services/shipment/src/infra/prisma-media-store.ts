import { withTransaction } from "@tawsil/db";
import type { MediaAssetStore } from "../app/media-ports";
import type { MediaAsset, MediaContentType, VerifiedContent } from "../domain/media-asset";
import type { MediaAsset as MediaRow, PrismaClient } from "./prisma/generated/client";

/** A batch's transaction: its row locks are held while the batch's objects are deleted, no longer. */
const BATCH_TRANSACTION = { timeoutMs: 60_000, maxWaitMs: 10_000 };

function assetOf(row: MediaRow): MediaAsset {
  return {
    id: row.id,
    merchantId: row.merchantId,
    driverId: row.driverId,
    purpose: row.purpose,
    contentType: row.contentType as MediaContentType,
    sizeBytes: row.sizeBytes,
    status: row.status,
    content: row.status === "READY" && row.sha256 ? { sha256: new Uint8Array(row.sha256), width: row.width, height: row.height } : null,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    shipmentId: row.shipmentId,
  };
}

/** Media asset metadata in the shipment database (attachment is the create statement's). */
export class PrismaMediaStore implements MediaAssetStore {
  constructor(private readonly db: PrismaClient) {}

  async insert(asset: MediaAsset): Promise<void> {
    await this.db.mediaAsset.create({
      data: {
        id: asset.id,
        merchantId: asset.merchantId,
        driverId: asset.driverId,
        purpose: asset.purpose,
        contentType: asset.contentType,
        sizeBytes: asset.sizeBytes,
        status: asset.status,
        createdAt: asset.createdAt,
        expiresAt: asset.expiresAt,
      },
    });
  }

  async find(id: string): Promise<MediaAsset | null> {
    const row = await this.db.mediaAsset.findUnique({ where: { id } });
    return row ? assetOf(row) : null;
  }

  async markReady(id: string, content: VerifiedContent): Promise<boolean> {
    const { count } = await this.db.mediaAsset.updateMany({
      where: { id, status: "PENDING_UPLOAD" },
      data: { status: "READY", sha256: Buffer.from(content.sha256), width: content.width, height: content.height },
    });
    return count === 1;
  }

  deleteExpiredBatch(now: Date, limit: number, removeBytes: (ids: readonly string[]) => Promise<void>): Promise<number> {
    return withTransaction(
      this.db,
      async (tx) => {
        // SKIP LOCKED: another replica's batch, and a create attaching one of these rows right now,
        // are passed over instead of waited for (the create's UPDATE wins that row).
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT id::text AS id FROM media_asset
          WHERE shipment_id IS NULL AND expires_at <= ${now}::timestamptz
          ORDER BY expires_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED`;
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => r.id);
        await removeBytes(ids);
        const { count } = await tx.mediaAsset.deleteMany({ where: { id: { in: ids } } });
        return count;
      },
      BATCH_TRANSACTION,
    );
  }

  deletePurgeableBatch(now: Date, limit: number, removeBytes: (ids: readonly string[]) => Promise<void>): Promise<number> {
    return withTransaction(
      this.db,
      async (tx) => {
        const rows = await tx.$queryRaw<{ id: string }[]>`
          SELECT id::text AS id FROM media_asset
          WHERE purge_after IS NOT NULL AND purge_after <= ${now}::timestamptz
          ORDER BY purge_after LIMIT ${limit}::int FOR UPDATE SKIP LOCKED`;
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => r.id);
        await removeBytes(ids);
        const { count } = await tx.mediaAsset.deleteMany({ where: { id: { in: ids } } });
        return count;
      },
      BATCH_TRANSACTION,
    );
  }

  async existing(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.mediaAsset.findMany({ where: { id: { in: [...ids] } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  /** A transaction-scoped advisory lock taken without waiting: the replica that gets it leads this run. */
  asLeader(name: string, fn: () => Promise<void>): Promise<boolean> {
    return withTransaction(
      this.db,
      async (tx) => {
        const [row] = await tx.$queryRaw<{ led: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) AS led`;
        if (!row?.led) return false;
        await fn();
        return true;
      },
      BATCH_TRANSACTION,
    );
  }
}
