import { randomUUID } from "node:crypto";
import { createPeerClient } from "@tawsil/rpc";
import { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import { MediaAssetStatus } from "@tawsil/proto/tawsil/shipment/v1/media_asset_pb";
import { png } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createBucket, localStorageEnv } from "../../../packages/testing/src/infra/s3";
import { Code, failure, query, startStack, violationsOf, type Stack } from "./support";

/**
 * Drivers' own media assets (decisions.md section 17) through MediaAssetService, on real
 * PostgreSQL and the run's S3 server: a driver's evidence is invisible to merchants and to other
 * drivers (404), and a merchant's to drivers.
 */
let stack: Stack;
let media: ReturnType<typeof createPeerClient<typeof MediaAssetService>>;
let merchantId = "";
const driverId = randomUUID();
const otherDriverId = randomUUID();

beforeAll(async () => {
  const s3 = inject("s3");
  if (!s3) throw new Error("this run started no S3 server");
  const bucket = `driver-media-${randomUUID().slice(0, 8)}`;
  await createBucket(s3.endpoint, bucket);
  stack = await startStack(inject("databaseAdminUrl"), "driver_media", localStorageEnv(s3.endpoint, bucket));
  merchantId = await stack.newMerchant("DRIVERMEDIA");
  media = createPeerClient(MediaAssetService, stack.shipment.url, { timeoutMs: 30_000 });
});

afterAll(async () => {
  await stack?.close();
});

/** A driver's READY asset, uploaded as the driver's app does: create, PUT to the presigned URL, complete. */
async function uploaded(owner: string, purpose: string): Promise<string> {
  const bytes = png(24, 12);
  const { asset } = await media.createMediaAsset({ driverId: owner, purpose, contentType: "image/png", sizeBytes: BigInt(bytes.length) });
  expect(asset).toMatchObject({ driverId: owner, merchantId: "", purpose, status: MediaAssetStatus.PENDING_UPLOAD });
  const id = asset?.mediaAssetId ?? "";
  const { uploadUrl } = await media.beginMediaUpload({ driverId: owner, mediaAssetId: id });
  const put = await fetch(uploadUrl, { method: "PUT", headers: { "content-type": "image/png" }, body: bytes });
  expect(put.ok).toBe(true);
  const done = await media.completeMediaUpload({ driverId: owner, mediaAssetId: id });
  expect(done.asset?.status).toBe(MediaAssetStatus.READY);
  return id;
}

describe("a driver's media assets", () => {
  it("are created, uploaded and read by their driver, stored with the driver as owner and no merchant", async () => {
    const id = await uploaded(driverId, "DELIVERY_SIGNATURE");
    const read = await media.getMediaAsset({ driverId, mediaAssetId: id });
    expect(read.asset).toMatchObject({ mediaAssetId: id, driverId, merchantId: "", status: MediaAssetStatus.READY });
    expect(read.downloadUrl).not.toBe("");
    const [row] = await query<{ driver_id: string; merchant_id: string | null }>(stack.databaseUrl, "SELECT driver_id::text, merchant_id::text FROM media_asset WHERE id = $1::uuid", id);
    expect(row).toEqual({ driver_id: driverId, merchant_id: null });
  });

  it("are NOT_FOUND to a merchant and to another driver, and a merchant's asset is NOT_FOUND to a driver", async () => {
    const id = await uploaded(driverId, "DELIVERY_PHOTO");
    expect(await failure(media.getMediaAsset({ merchantId, mediaAssetId: id }))).toMatchObject({ code: Code.NotFound, reason: "MEDIA_ASSET_NOT_FOUND" });
    expect(await failure(media.getMediaAsset({ driverId: otherDriverId, mediaAssetId: id }))).toMatchObject({ code: Code.NotFound, reason: "MEDIA_ASSET_NOT_FOUND" });
    expect(await failure(media.beginMediaUpload({ driverId: otherDriverId, mediaAssetId: id }))).toMatchObject({ code: Code.NotFound, reason: "MEDIA_ASSET_NOT_FOUND" });

    const { asset } = await media.createMediaAsset({ merchantId, purpose: "SHIPMENT_CREATION_EVIDENCE", contentType: "application/pdf", sizeBytes: 100n });
    expect(await failure(media.getMediaAsset({ driverId, mediaAssetId: asset?.mediaAssetId ?? "" }))).toMatchObject({ code: Code.NotFound, reason: "MEDIA_ASSET_NOT_FOUND" });
  });

  it("take the drivers' purposes and image types only, and exactly one owner per request", async () => {
    expect(await violationsOf(media.createMediaAsset({ driverId, purpose: "SHIPMENT_CREATION_EVIDENCE", contentType: "image/png", sizeBytes: 10n }))).toEqual([
      { field: "purpose", code: "UNSUPPORTED_VALUE", params: {} },
    ]);
    expect(await violationsOf(media.createMediaAsset({ driverId, purpose: "DELIVERY_SIGNATURE", contentType: "application/pdf", sizeBytes: 10n }))).toEqual([
      { field: "content_type", code: "UNSUPPORTED_VALUE", params: {} },
    ]);
    expect(await violationsOf(media.createMediaAsset({ merchantId, purpose: "DELIVERY_PHOTO", contentType: "image/png", sizeBytes: 10n }))).toEqual([
      { field: "purpose", code: "UNSUPPORTED_VALUE", params: {} },
    ]);
    expect(await failure(media.createMediaAsset({ merchantId, driverId, purpose: "DELIVERY_PHOTO", contentType: "image/png", sizeBytes: 10n }))).toMatchObject({ code: Code.InvalidArgument });
    expect(await failure(media.createMediaAsset({ purpose: "DELIVERY_PHOTO", contentType: "image/png", sizeBytes: 10n }))).toMatchObject({ code: Code.InvalidArgument });
    expect(await failure(media.createMediaAsset({ driverId: "not-a-uuid", purpose: "DELIVERY_PHOTO", contentType: "image/png", sizeBytes: 10n }))).toMatchObject({ code: Code.InvalidArgument });
  });
});
