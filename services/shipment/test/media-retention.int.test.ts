import { randomUUID } from "node:crypto";
import { createPrismaClient, disconnect } from "@tawsil/db";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createBucket } from "../../../packages/testing/src/infra/s3";
import { MediaRetention } from "../src/app/media-retention";
import { declaredAsset, objectKeyOf } from "../src/domain/media-asset";
import { PrismaMediaStore } from "../src/infra/prisma-media-store";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { S3ObjectStorage } from "../src/infra/s3-object-storage";
import { createShipmentDatabase } from "./support";
import type { TestDatabase } from "@tawsil/testing";

/**
 * decisions.md section 18 for media, on real PostgreSQL and the run's real S3 server (a bucket of
 * this file's own), with the clock given: unattached assets go with their bytes at expiry and not
 * before; attached ones stay; bytes no row names go once older than the grace period; keys that
 * are not an asset's are never touched; two replicas running at once delete each row once.
 */
const HOUR = 3600_000;
let db: TestDatabase;
let client: PrismaClient;
let store: PrismaMediaStore;
let storage: S3ObjectStorage;
let endpoint = "";
const bucket = `retention-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const s3 = inject("s3");
  if (!s3) throw new Error("this run started no S3 server");
  endpoint = s3.endpoint;
  await createBucket(endpoint, bucket);
  db = await createShipmentDatabase(inject("databaseAdminUrl"), "media_retention");
  client = createPrismaClient(PrismaClient, { url: db.url, maxConnections: 4 });
  store = new PrismaMediaStore(client);
  storage = new S3ObjectStorage({ endpoint, region: "us-east-1", bucket, accessKeyId: "test", secretAccessKey: "test-secret", forcePathStyle: true, timeoutMs: 5000 });
});

afterAll(async () => {
  if (client) await disconnect(client);
  await db?.drop();
});

/** An asset created at `createdAt` (24 h retention) with its bytes stored. */
async function storedAsset(createdAt: Date): Promise<string> {
  const asset = declaredAsset({ id: randomUUID(), owner: { kind: "merchant", id: randomUUID() }, purpose: "SHIPMENT_CREATION_EVIDENCE", contentType: "application/pdf", sizeBytes: 8, now: createdAt, retentionMs: 24 * HOUR });
  await store.insert(asset);
  await putObject(objectKeyOf(asset.id));
  return asset.id;
}

/** S3Mock takes an unsigned PUT. */
async function putObject(key: string): Promise<void> {
  const response = await fetch(`${endpoint}/${bucket}/${key}`, { method: "PUT", body: "%PDF-1.4", headers: { "content-type": "application/pdf" } });
  expect(response.status).toBe(200);
}

async function objectExists(key: string): Promise<boolean> {
  return (await fetch(`${endpoint}/${bucket}/${key}`, { method: "HEAD" })).status === 200;
}

const rowExists = async (id: string) => (await client.mediaAsset.count({ where: { id } })) === 1;

describe("media retention", () => {
  it("deletes unattached assets with their bytes at expiry, in batches, and nothing else", async () => {
    const now = new Date();
    const expired = await Promise.all([1, 2, 3].map(() => storedAsset(new Date(now.getTime() - 25 * HOUR))));
    const young = await storedAsset(new Date(now.getTime() - 23 * HOUR));
    const attached = await storedAsset(new Date(now.getTime() - 25 * HOUR));
    // Attachment is the create statement's; a shipment row is needed for the foreign key, so the
    // column is set behind the constraint's back for this test only.
    await client.$executeRawUnsafe("ALTER TABLE media_asset DROP CONSTRAINT media_asset_shipment_id_fkey");
    await client.mediaAsset.update({ where: { id: attached }, data: { shipmentId: randomUUID(), sortOrder: 0 } });

    const retention = new MediaRetention({ store, storage, batchSize: 2, orphanGraceMs: HOUR });
    expect(await retention.purgeUnattached(now)).toBe(3);
    for (const id of expired) {
      expect(await rowExists(id)).toBe(false);
      expect(await objectExists(objectKeyOf(id))).toBe(false);
    }
    for (const id of [young, attached]) {
      expect(await rowExists(id)).toBe(true);
      expect(await objectExists(objectKeyOf(id))).toBe(true);
    }
    expect(await retention.purgeUnattached(now)).toBe(0);
  });

  it("deletes attached assets with their bytes once their shipment's retention passed, and keeps those of shipments that move or ended lately", async () => {
    const now = new Date();
    const [due, ended, moving] = await Promise.all([1, 2, 3].map(() => storedAsset(new Date(now.getTime() - 200 * 24 * HOUR))));
    // The first test dropped the foreign key: attached to shipments that need no row here.
    await client.$executeRawUnsafe("ALTER TABLE media_asset DROP CONSTRAINT IF EXISTS media_asset_shipment_id_fkey");
    await client.mediaAsset.update({ where: { id: due! }, data: { shipmentId: randomUUID(), sortOrder: 0, purgeAfter: new Date(now.getTime() - HOUR) } });
    await client.mediaAsset.update({ where: { id: ended! }, data: { shipmentId: randomUUID(), sortOrder: 0, purgeAfter: new Date(now.getTime() + HOUR) } });
    await client.mediaAsset.update({ where: { id: moving! }, data: { shipmentId: randomUUID(), sortOrder: 0 } });

    const retention = new MediaRetention({ store, storage, batchSize: 2, orphanGraceMs: HOUR });
    expect(await retention.purgeAttached(now)).toBe(1);
    expect(await rowExists(due!)).toBe(false);
    expect(await objectExists(objectKeyOf(due!))).toBe(false);
    for (const id of [ended!, moving!]) {
      expect(await rowExists(id)).toBe(true);
      expect(await objectExists(objectKeyOf(id))).toBe(true);
    }
    // Unattached retention never takes an attached asset, however old.
    expect(await retention.purgeUnattached(now)).toBe(0);
    expect(await rowExists(moving!)).toBe(true);
  });

  it("has two replicas delete each expired row once", async () => {
    const now = new Date();
    const ids = await Promise.all(Array.from({ length: 7 }, () => storedAsset(new Date(now.getTime() - 30 * HOUR))));
    const replica = () => new MediaRetention({ store, storage, batchSize: 2, orphanGraceMs: HOUR });
    const [a, b] = await Promise.all([replica().purgeUnattached(now), replica().purgeUnattached(now)]);
    expect(a + b).toBe(7);
    for (const id of ids) expect(await rowExists(id)).toBe(false);
  });

  it("deletes bytes without a row once older than the grace period, and leaves younger ones and foreign keys alone", async () => {
    const orphan = objectKeyOf(randomUUID());
    const kept = await storedAsset(new Date());
    const foreign = "exports/not-an-asset.pdf";
    await putObject(orphan);
    await putObject(foreign);
    const retention = new MediaRetention({ store, storage, batchSize: 100, orphanGraceMs: HOUR });
    // Within the grace period (a write may still be under way): nothing goes.
    expect(await retention.sweepOrphans(new Date())).toBe(0);
    expect(await objectExists(orphan)).toBe(true);
    // Later than the grace period, as the clock says.
    expect(await retention.sweepOrphans(new Date(Date.now() + 2 * HOUR))).toBe(1);
    expect(await objectExists(orphan)).toBe(false);
    expect(await objectExists(objectKeyOf(kept))).toBe(true);
    expect(await objectExists(foreign)).toBe(true);
  });

  it("leads the orphan sweep from one replica at a time: while one holds the lock, another skips", async () => {
    let inner: boolean | undefined;
    const led = await store.asLeader("shipment.media-orphan-sweep", async () => {
      inner = await new PrismaMediaStore(client).asLeader("shipment.media-orphan-sweep", async () => undefined);
    });
    expect(led).toBe(true);
    expect(inner).toBe(false);
    const retention = new MediaRetention({ store, storage, batchSize: 100, orphanGraceMs: HOUR });
    let skipped: number | null | undefined;
    await store.asLeader("shipment.media-orphan-sweep", async () => {
      skipped = await retention.sweepOrphans(new Date());
    });
    expect(skipped).toBeNull();
  });
});
