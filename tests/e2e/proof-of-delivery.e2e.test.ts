import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { freePort } from "@tawsil/testing";
import { localStorageEnv, startS3, type S3Handle } from "../../packages/testing/src/infra/s3";
import { BRISK_DELIVERIES, startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 30, proof of delivery: the sandbox fleet (in dispatch, failure rate 0) delivers a shipment
 * with each requirement that asks for proof unaided, as decisions.md section 17 says it must: it
 * enters the right PIN, uploads generated evidence as its driver's own media assets (to this
 * file's own S3 server) and hands over the COD amount. The merchant sees the PIN in shape B and
 * the evidence in timelineMedia; the customer page shows the PIN only while OUT_FOR_DELIVERY.
 */
const BUCKET = "media";
let testMesh: TestMesh;
let s3: S3Handle;
let s3Dir: string;
let token = "";

beforeAll(async () => {
  s3Dir = await mkdtemp(path.join(os.tmpdir(), "tawsil-proof-e2e-"));
  s3 = await startS3({ port: await freePort(), httpsPort: await freePort(), bucket: BUCKET, keepIn: s3Dir });
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    serviceEnv: {
      shipment: { ...localStorageEnv(s3.endpoint, BUCKET), S3_TIMEOUT_MS: "5000" },
    },
    fleetEnv: BRISK_DELIVERIES,
    gatewayEnv: () => ({ PEER_HEALTH_TIMEOUT_MS: "5000" }),
  });
  const { credentials } = testMesh;
  token = await testMesh.tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
}, 240_000);
afterAll(async () => {
  await testMesh?.close();
  await s3?.stop();
  if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
});

interface ShapeB {
  shipmentId: string;
  state: string;
  trackingUrl: string;
  deliveryPin: string | null;
  timelineMedia: { mediaAssetId: string; purpose: string; sortOrder: number }[];
}

const headers = () => ({ authorization: `Bearer ${token}` });

async function create(requirements: string[], cod?: string): Promise<ShapeB> {
  const response = await fetch(`${testMesh.gatewayUrl}/v2/external/shipments`, {
    method: "POST",
    headers: { ...headers(), "content-type": "application/json" },
    body: JSON.stringify({
      externalReference: `PROOF-${randomUUID().slice(0, 8)}`,
      pickupLocationCode: testMesh.credentials.TAWSIL_SAVED_LOCATION,
      recipient: { name: "Noura", phone: "+966512345670" },
      destination: { latitude: 24.774265, longitude: 46.738586 },
      items: [{ description: "Abaya", quantity: 1, weightKilograms: 0.5 }],
      requirements,
      ...(cod ? { codAmount: Number(cod) } : {}),
    }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as ShapeB;
}

async function read(id: string): Promise<ShapeB> {
  const response = await fetch(`${testMesh.gatewayUrl}/v2/external/shipments/${id}`, { headers: headers() });
  expect(response.status).toBe(200);
  return (await response.json()) as ShapeB;
}

/** The customer page as the recipient sees it: its status and whether it shows the PIN. */
async function page(url: string, pin: string): Promise<{ status: string; showsPin: boolean }> {
  const html = await (await fetch(url)).text();
  return { status: /<h1 id="status" data-status="([A-Z_]+)"/.exec(html)?.[1] ?? "", showsPin: html.includes(`id="delivery-pin">${pin}<`) };
}

async function delivered(id: string, onTick: () => Promise<void> = async () => {}): Promise<ShapeB> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const shipment = await read(id);
    if (shipment.state === "DELIVERED" || shipment.state === "DELIVERY_FAILED" || Date.now() > deadline) return shipment;
    await onTick();
    // 600 ms: under the page's limit of 120 reads per minute per code.
    await new Promise((r) => setTimeout(r, 600));
  }
}

describe("the sandbox fleet proves its deliveries", () => {
  it("delivers a PIN_ON_DELIVERY shipment with its PIN, which the customer page shows only while OUT_FOR_DELIVERY", async () => {
    const created = await create(["PIN_ON_DELIVERY"]);
    expect(created.deliveryPin).toMatch(/^\d{4}$/);
    const pin = created.deliveryPin!;
    expect((await read(created.shipmentId)).deliveryPin).toBe(pin);
    const seen: { status: string; showsPin: boolean }[] = [];
    const final = await delivered(created.shipmentId, async () => void seen.push(await page(created.trackingUrl, pin)));
    expect(final.state).toBe("DELIVERED");
    seen.push(await page(created.trackingUrl, pin));
    // Every page seen shows the PIN exactly when it says OUT_FOR_DELIVERY, the last one (DELIVERED) never.
    expect(seen.filter((p) => p.showsPin !== (p.status === "OUT_FOR_DELIVERY"))).toEqual([]);
    expect(seen.at(-1)).toEqual({ status: "DELIVERED", showsPin: false });
    // The last leg lasts about 11 s at this file's speed, read every 600 ms: the recipient had time to see it.
    expect(seen.some((p) => p.status === "OUT_FOR_DELIVERY" && p.showsPin)).toBe(true);
    // The public JSON never carries it.
    const code = created.trackingUrl.split("/t/")[1];
    const json = await (await fetch(`${testMesh.gatewayUrl}/v2/public/tracking/${code}`)).text();
    expect(json).not.toContain(pin);
  }, 200_000);

  it("delivers SIGNATURE_ON_DELIVERY and NO_CONTACT shipments with the driver's evidence in timelineMedia, and a COD shipment", async () => {
    const [signature, noContact, cod] = await Promise.all([create(["SIGNATURE_ON_DELIVERY"]), create(["NO_CONTACT"]), create([], "75.25")]);
    for (const shipment of [signature, noContact, cod]) expect(shipment.deliveryPin).toBeNull();
    const [signed, photographed, paid] = await Promise.all([delivered(signature.shipmentId), delivered(noContact.shipmentId), delivered(cod.shipmentId)]);
    expect([signed.state, photographed.state, paid.state]).toEqual(["DELIVERED", "DELIVERED", "DELIVERED"]);
    expect(signed.timelineMedia.map((m) => [m.purpose, m.sortOrder])).toEqual([["DELIVERY_SIGNATURE", 0]]);
    expect(photographed.timelineMedia.map((m) => [m.purpose, m.sortOrder])).toEqual([["DELIVERY_PHOTO", 0]]);
    expect(paid.timelineMedia).toEqual([]);
    // The merchant cannot open the driver's evidence as one of its own assets: it is the driver's.
    const asset = await fetch(`${testMesh.gatewayUrl}/v2/external/media-assets/${signed.timelineMedia[0]!.mediaAssetId}`, { headers: headers() });
    expect(asset.status).toBe(404);
  }, 200_000);
});
