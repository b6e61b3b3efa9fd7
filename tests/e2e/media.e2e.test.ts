import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import os from "node:os";
import path from "node:path";
import { verifyWebhook } from "@tawsil/sdk";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { freePort, jpeg, pdfHtmlPolyglot, pdfOfSize, png } from "@tawsil/testing";
import { createBucket, localStorageEnv, startS3, type S3Handle } from "../../packages/testing/src/infra/s3";
import { RecordingReceiver } from "./support/recording-receiver";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 29: media assets through the gateway, on a real S3 server (S3Mock) of this file's own, so
 * that one test can stop it mid-upload without touching the run's other meshes. Download links
 * live 3 s here (MEDIA_DOWNLOAD_TTL_SECONDS) so their expiry is seen without a long wait.
 */
const BUCKET = "media";
const MiB = 1024 * 1024;
let testMesh: TestMesh;
let s3: S3Handle;
let s3Dir: string;
let s3Ports: { port: number; httpsPort: number };
/** The merchant's webhook receiver: every delivery, as received. */
const receiver = new RecordingReceiver();
let receiverUrl = "";
const tokens: Record<"merchant" | "other", string> = { merchant: "", other: "" };

beforeAll(async () => {
  s3Dir = await mkdtemp(path.join(os.tmpdir(), "tawsil-media-e2e-"));
  s3Ports = { port: await freePort(), httpsPort: await freePort() };
  s3 = await startS3({ ...s3Ports, bucket: BUCKET, keepIn: s3Dir });
  receiverUrl = await receiver.listen("/hooks");
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    serviceEnv: { shipment: { ...localStorageEnv(s3.endpoint, BUCKET), S3_TIMEOUT_MS: "2000" } },
    // A health answer may be slow while a JVM (this file's S3 server) starts on a saturated
    // machine; a 1 s deadline then takes the shipment service for down and creates answer 503.
    gatewayEnv: () => ({ MEDIA_DOWNLOAD_TTL_SECONDS: "3", PEER_HEALTH_TIMEOUT_MS: "5000" }),
  });
  const { credentials } = testMesh;
  tokens.merchant = await testMesh.tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
  tokens.other = await testMesh.tokenFor(credentials.TAWSIL_CLIENT2_ID!, credentials.TAWSIL_CLIENT2_SECRET!);
}, 240_000);
afterAll(async () => {
  await testMesh?.close();
  await s3?.stop();
  await receiver.close();
  if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
});

type Who = keyof typeof tokens;
const call = (who: Who, method: string, url: string, body?: unknown) =>
  fetch(`${testMesh.gatewayUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${tokens[who]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function declare(who: Who, contentType: string, sizeBytes: number): Promise<{ mediaAssetId: string; status: string; expiresAt: string }> {
  const response = await call(who, "POST", "/v2/external/media-assets", { purpose: "SHIPMENT_CREATION_EVIDENCE", contentType, sizeBytes });
  expect(response.status).toBe(201);
  return (await response.json()) as { mediaAssetId: string; status: string; expiresAt: string };
}

const upload = (who: Who, id: string, bytes: Buffer, contentType = "application/octet-stream") =>
  fetch(`${testMesh.gatewayUrl}/v2/external/media-assets/${id}/content`, { method: "PUT", headers: { authorization: `Bearer ${tokens[who]}`, "content-type": contentType }, body: bytes });

async function readyAsset(who: Who, contentType: string, bytes: Buffer): Promise<string> {
  const { mediaAssetId } = await declare(who, contentType, bytes.length);
  const response = await upload(who, mediaAssetId, bytes, contentType);
  expect(response.status, await response.clone().text()).toBe(200);
  return mediaAssetId;
}

/**
 * PUTs `total` bytes (declared in Content-Length) in 64 KiB chunks with a pause between them, as a
 * slow uplink does: the answer may come while the client is still sending. Resolves with the
 * status it read once the whole body is sent, or rejects with the socket error (EPIPE, ECONNRESET) if the gateway cut it off.
 */
function trickle(id: string, total: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${testMesh.gatewayUrl}/v2/external/media-assets/${id}/content`, {
      method: "PUT",
      headers: { authorization: `Bearer ${tokens.merchant}`, "content-type": "application/pdf", "content-length": String(total) },
    });
    // Both the answer read and the whole body sent: nothing of it still flows when this resolves.
    let read: number | undefined;
    let sentAll = false;
    const settle = () => read !== undefined && sentAll && resolve(read);
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => ((read = res.statusCode ?? 0), settle()));
    });
    req.on("finish", () => ((sentAll = true), settle()));
    req.on("error", reject);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const next = () => {
      if (sent >= total) return req.end();
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      req.write(piece, () => setTimeout(next, 2));
    };
    next();
  });
}

async function problem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { code: string; violations?: { field: string; code: string }[] };
  expect(body.code).toBe(code);
  return body;
}

/** What the bucket holds under an asset's key (S3Mock lists without a signature). */
async function storedKeys(id: string): Promise<string[]> {
  const xml = await (await fetch(`${s3.endpoint}/${BUCKET}?list-type=2&prefix=media/${id}`)).text();
  return [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]!);
}

const shapeB = (reference: string, timelineMedia: unknown[]) => ({
  externalReference: reference,
  pickupLocationCode: testMesh.credentials.TAWSIL_SAVED_LOCATION,
  recipient: { name: "Noura", phone: "+966512345670" },
  destination: { latitude: 24.774265, longitude: 46.738586 },
  items: [{ description: "Abaya", quantity: 1, weightKilograms: 0.5 }],
  timelineMedia,
});
const shapeA = (reference: string, timelineMedia: unknown[]) => ({
  reference,
  pickup: { savedLocationCode: testMesh.credentials.TAWSIL_SAVED_LOCATION },
  destination: { latitude: 24.774265, longitude: 46.738586 },
  recipient: { name: "Noura", mobile: "0512345670" },
  timelineMedia,
});
const evidence = (mediaAssetId: string, sortOrder = 0) => ({ mediaAssetId, purpose: "SHIPMENT_CREATION_EVIDENCE", sortOrder });

describe("media assets through the gateway", () => {
  it("uploads a photo, reads it with the dimensions of its bytes, downloads it through the signed link, attaches it in shape B and announces it in shipment.created", async () => {
    const merchant = testMesh.sdkFor(testMesh.credentials.TAWSIL_CLIENT_ID!, testMesh.credentials.TAWSIL_CLIENT_SECRET!);
    const { signingSecret } = await merchant.webhook.register({ url: receiverUrl });
    const photo = png(7, 5);
    const declared = await declare("merchant", "image/png", photo.length);
    expect(declared.status).toBe("PENDING_UPLOAD");
    const uploaded = await upload("merchant", declared.mediaAssetId, photo, "image/png");
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toMatchObject({ mediaAssetId: declared.mediaAssetId, status: "READY", width: 7, height: 5, sizeBytes: photo.length });

    const read = (await (await call("merchant", "GET", `/v2/external/media-assets/${declared.mediaAssetId}`)).json()) as { downloadUrl: string; sha256: string };
    expect(read.sha256).toMatch(/^[0-9a-f]{64}$/);
    const download = await fetch(read.downloadUrl.replace(/^https?:\/\/[^/]+/, testMesh.gatewayUrl));
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="${declared.mediaAssetId}.png"`);
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await download.arrayBuffer()).equals(photo)).toBe(true);

    const reference = `MEDIA-B-${randomUUID().slice(0, 8)}`;
    const created = await call("merchant", "POST", "/v2/external/shipments", shapeB(reference, [evidence(declared.mediaAssetId, 1)]));
    expect(created.status).toBe(201);
    const shipment = (await created.json()) as { shipmentId: string; trackingUrl: string; timelineMedia: unknown[] };
    expect(shipment.timelineMedia).toEqual([evidence(declared.mediaAssetId, 1)]);
    // The customer's page and its JSON never show the merchant's evidence.
    const code = new URL(shipment.trackingUrl).pathname.split("/t/")[1]!;
    for (const publicPath of [`/t/${code}`, `/v2/public/tracking/${code}`]) {
      const page = await fetch(`${testMesh.gatewayUrl}${publicPath}`);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(declared.mediaAssetId);
    }
    const again = await call("merchant", "POST", "/v2/external/shipments", shapeB(reference, [evidence(declared.mediaAssetId, 1)]));
    expect(again.status).toBe(200);
    expect(((await again.json()) as { timelineMedia: unknown[] }).timelineMedia).toEqual([evidence(declared.mediaAssetId, 1)]);
    const readBack = (await (await call("merchant", "GET", `/v2/external/shipments/${shipment.shipmentId}`)).json()) as { timelineMedia: unknown[] };
    expect(readBack.timelineMedia).toEqual([evidence(declared.mediaAssetId, 1)]);

    const createdEvent = () =>
      receiver.received.map((r) => verifyWebhook({ payload: r.body, headers: r.headers, secret: signingSecret })).find((e) => e.type === "shipment.created" && e.data.shipmentId === shipment.shipmentId);
    const deadline = Date.now() + 60_000;
    while (!createdEvent() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    expect(createdEvent()?.data.timelineMedia).toEqual([evidence(declared.mediaAssetId, 1)]);
  }, 120_000); // the webhook alone may take its 60 s above

  it("uploads through the SDK, attaches in shape A too, and an attached asset cannot be named again", async () => {
    // Through the SDK, as a merchant would: create and upload in one call.
    const merchant = testMesh.sdkFor(testMesh.credentials.TAWSIL_CLIENT_ID!, testMesh.credentials.TAWSIL_CLIENT_SECRET!);
    const asset = await merchant.uploadMediaAsset(new Blob([jpeg(640, 480)], { type: "image/jpeg" }));
    expect(asset).toMatchObject({ status: "READY", contentType: "image/jpeg", width: 640, height: 480 });
    const id = asset.mediaAssetId;
    const created = await call("merchant", "POST", "/v2/external/shipments", shapeA(`MEDIA-A-${randomUUID().slice(0, 8)}`, [evidence(id)]));
    expect(created.status).toBe(201);
    const again = await call("merchant", "POST", "/v2/external/shipments", shapeB(`MEDIA-A2-${randomUUID().slice(0, 8)}`, [evidence(id)]));
    const refused = await problem(again, 422, "VALIDATION_FAILED");
    expect(refused.violations).toEqual([expect.objectContaining({ field: "timelineMedia[0].mediaAssetId", code: "UNKNOWN_REFERENCE" })]);
  });

  it("refuses bytes of another type than declared, a PNG declared as JPEG, and truncated bytes, keeping nothing", async () => {
    const photo = png(3, 3);
    const text = Buffer.from("just some text, not an image at all");
    const cases = [
      { contentType: "image/png", bytes: text },
      { contentType: "image/jpeg", bytes: photo },
      { contentType: "image/png", bytes: photo.subarray(0, photo.length - 6) },
    ];
    for (const { contentType, bytes } of cases) {
      const { mediaAssetId } = await declare("merchant", contentType, bytes.length);
      await problem(await upload("merchant", mediaAssetId, bytes, contentType), 422, "MEDIA_REJECTED");
      const after = (await (await call("merchant", "GET", `/v2/external/media-assets/${mediaAssetId}`)).json()) as Record<string, unknown>;
      expect(after.status).toBe("PENDING_UPLOAD");
      expect(after.downloadUrl).toBeUndefined();
      expect(await storedKeys(mediaAssetId)).toEqual([]);
      const named = await call("merchant", "POST", "/v2/external/shipments", shapeB(`MEDIA-X-${randomUUID().slice(0, 8)}`, [evidence(mediaAssetId)]));
      expect((await problem(named, 422, "VALIDATION_FAILED")).violations?.[0]?.field).toBe("timelineMedia[0].mediaAssetId");
    }
    // A body shorter than declared never reaches storage.
    const { mediaAssetId } = await declare("merchant", "image/png", photo.length);
    await problem(await upload("merchant", mediaAssetId, photo.subarray(0, 10)), 422, "MEDIA_REJECTED");
    expect(await storedKeys(mediaAssetId)).toEqual([]);
  });

  it("takes 10 MiB exactly, streamed, and refuses a body of 10 MiB + 1 with 413, whether its length is announced or streamed", async () => {
    // First, while no refused body is still being read and thrown away: the memory of 12 uploads of
    // 10 MiB at once. Buffering would hold 120 MiB; streaming holds socket buffers and the garbage
    // they leave, which V8's young generation bounds (2 x 16 MiB semi-spaces): one upload alone
    // grew RSS by 0-10 MiB, too close to its own size to tell the two apart.
    const gateway = testMesh.mesh.processes.find((p) => p.name === "gateway")!;
    const rss = async () => Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${gateway.child.pid}/status`, "utf8"))![1]) * 1024;
    const uploads = 12;
    const fitting = await Promise.all(Array.from({ length: uploads }, () => declare("merchant", "application/pdf", 10 * MiB)));
    const body = pdfOfSize(10 * MiB);
    const before = await rss();
    let peak = before;
    const sampler = setInterval(() => void rss().then((v) => (peak = Math.max(peak, v))), 10);
    const fits = await Promise.all(fitting.map(({ mediaAssetId }) => upload("merchant", mediaAssetId, body, "application/pdf")));
    clearInterval(sampler);
    expect(fits.map((r) => r.status)).toEqual(Array(uploads).fill(200));
    console.log(`gateway RSS during ${uploads} concurrent uploads of 10 MiB: ${(before / MiB).toFixed(1)} MiB before, ${(peak / MiB).toFixed(1)} MiB peak (+${((peak - before) / MiB).toFixed(1)} MiB)`);
    // The bodies stream: the gateway never grows by half of what went through it.
    expect(peak - before).toBeLessThan((uploads * 10 * MiB) / 2);

    const { mediaAssetId } = await declare("merchant", "application/pdf", 10 * MiB);
    const tooBig = pdfOfSize(10 * MiB + 1);
    await problem(await upload("merchant", mediaAssetId, tooBig), 413, "PAYLOAD_TOO_LARGE");
    const chunked = await fetch(`${testMesh.gatewayUrl}/v2/external/media-assets/${mediaAssetId}/content`, {
      method: "PUT",
      headers: { authorization: `Bearer ${tokens.merchant}`, "content-type": "application/pdf" },
      body: new Blob([tooBig]).stream(),
      duplex: "half",
    } as RequestInit);
    await problem(chunked, 413, "PAYLOAD_TOO_LARGE");
    // A client still sending when the 413 comes reads it: the gateway reads and discards the rest
    // (a closed connection reset it mid-send, and fetch failed with EPIPE instead).
    expect(await trickle(mediaAssetId, 10 * MiB + 1)).toBe(413);
    expect(await storedKeys(mediaAssetId)).toEqual([]);
  });

  it("serves a PDF that is also HTML as an attachment of type application/pdf that cannot render as a page", async () => {
    const id = await readyAsset("merchant", "application/pdf", pdfHtmlPolyglot());
    const { downloadUrl } = (await (await call("merchant", "GET", `/v2/external/media-assets/${id}`)).json()) as { downloadUrl: string };
    const download = await fetch(downloadUrl.replace(/^https?:\/\/[^/]+/, testMesh.gatewayUrl));
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(download.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="[0-9a-f-]{36}\.pdf"$/);
  });

  it("answers another merchant's asset with 403 at read and as a violation at create, an unknown one with 404", async () => {
    const id = await readyAsset("merchant", "image/png", png(2, 2));
    await problem(await call("other", "GET", `/v2/external/media-assets/${id}`), 403, "ACCESS_DENIED");
    await problem(await upload("other", id, png(2, 2)), 403, "ACCESS_DENIED");
    const named = await call("other", "POST", "/v2/external/shipments", shapeB(`MEDIA-O-${randomUUID().slice(0, 8)}`, [evidence(id)]));
    expect((await problem(named, 422, "VALIDATION_FAILED")).violations).toEqual([expect.objectContaining({ field: "timelineMedia[0].mediaAssetId" })]);
    await problem(await call("merchant", "GET", `/v2/external/media-assets/${randomUUID()}`), 404, "MEDIA_ASSET_NOT_FOUND");
  });

  it("attaches an asset named by two concurrent creates to exactly one of them", async () => {
    const id = await readyAsset("merchant", "image/png", png(4, 4));
    const answers = await Promise.all(
      ["1", "2", "3"].map((n) => call("merchant", "POST", "/v2/external/shipments", shapeB(`MEDIA-RACE-${n}-${randomUUID().slice(0, 8)}`, [evidence(id)]))),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422, 422]);
  });

  it("lets a download link expire, and refuses an altered one", async () => {
    const id = await readyAsset("merchant", "image/png", png(2, 3));
    const { downloadUrl } = (await (await call("merchant", "GET", `/v2/external/media-assets/${id}`)).json()) as { downloadUrl: string };
    const url = downloadUrl.replace(/^https?:\/\/[^/]+/, testMesh.gatewayUrl);
    expect((await fetch(url)).status).toBe(200);
    // Its signature's first character changed (to "A" it was already, one link in 64, the link was the same).
    const altered = url.replace(/signature=(.)/, (_, first: string) => `signature=${first === "A" ? "B" : "A"}`);
    expect(altered).not.toBe(url);
    await problem(await fetch(altered), 403, "ACCESS_DENIED");
    await new Promise((resolve) => setTimeout(resolve, 4200));
    await problem(await fetch(url), 403, "ACCESS_DENIED");
  });

  // Last: it stops this file's S3 server.
  it("answers 503 with Retry-After when storage stops during an upload, and keeps nothing of it", async () => {
    const size = 4 * MiB;
    const { mediaAssetId } = await declare("merchant", "application/pdf", size);
    const bytes = pdfOfSize(size);
    const answer = new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = httpRequest(`${testMesh.gatewayUrl}/v2/external/media-assets/${mediaAssetId}/content`, {
        method: "PUT",
        headers: { authorization: `Bearer ${tokens.merchant}`, "content-type": "application/pdf", "content-length": String(size) },
      });
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      });
      req.on("error", reject);
      // Half the body, then storage goes away, then the rest.
      req.write(bytes.subarray(0, size / 2));
      setTimeout(() => {
        void s3.stop().then(() => req.end(bytes.subarray(size / 2)));
      }, 300);
    });
    const { status, headers, body } = await answer;
    expect(status).toBe(503);
    expect(headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(JSON.parse(body)).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    // Storage back on the same data: nothing was kept, and the asset still waits for its bytes.
    s3 = await startS3({ ...s3Ports, bucket: BUCKET, keepIn: s3Dir });
    await createBucket(s3.endpoint, BUCKET);
    expect(await storedKeys(mediaAssetId)).toEqual([]);
    const after = (await (await call("merchant", "GET", `/v2/external/media-assets/${mediaAssetId}`)).json()) as Record<string, unknown>;
    expect(after.status).toBe("PENDING_UPLOAD");
  }, 300_000);
});
