import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { png, problemSchemaErrors } from "@tawsil/testing";
import { TawsilDriverClient, verifyWebhook } from "@tawsil/sdk";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { putFleetOnShift } from "../../services/dispatch/test/support";
import { registerDriver, tawsilDrivers as drivers, type RegisteredDriver as Driver } from "./support/drivers";
import { laneBrokers } from "./support/lane";
import { RecordingReceiver } from "./support/recording-receiver";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 30, the driver API: a driver registered by an operator (the CLI's code path against the
 * admin listeners) delivers a merchant's shipment through the gateway alone, with its own OAuth
 * credentials; the merchant's webhook and tracking follow. The sandbox fleet is off, and the only
 * other drivers on shift are busy, so every offer goes to the drivers registered here.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const RIYADH_OLAYA = { latitude: 24.7136, longitude: 46.6753 };
const RIYADH_MALQA = { latitude: 24.774265, longitude: 46.738586 };

let testMesh: TestMesh;
const receiver = new RecordingReceiver();
let receiverUrl = "";

beforeAll(async () => {
  receiverUrl = await receiver.listen("/driver-hooks");
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    fleet: false,
    // Creates need a driver on shift in the city (decisions.md section 2); busy ones are offered nothing.
    beforeStart: (databaseUrls) => putFleetOnShift(databaseUrls.dispatch, { cities: ["RUH"], busy: true }),
  });
}, 180_000);

afterAll(async () => {
  await testMesh?.close();
  await receiver.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const tawsilDrivers = (...args: string[]) => drivers(testMesh, ...args);
const addDriver = (name: string) => registerDriver(testMesh, { name, city: "RUH", carrier: "SAQR", vehicle: "CAR" });

async function call(token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${testMesh.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

function expectProblem(res: { status: number; body: Record<string, unknown> }, status: number, code: string): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
  expect(problemSchemaErrors(res.body)).toEqual([]);
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

describe("the driver API", () => {
  let driverA: Driver;
  let driverB: Driver;
  let tokenA: string;
  let tokenB: string;
  let merchantToken: string;

  beforeAll(async () => {
    driverA = await addDriver("Driver A");
    driverB = await addDriver("Driver B");
    tokenA = await testMesh.tokenFor(driverA.clientId, driverA.clientSecret);
    tokenB = await testMesh.tokenFor(driverB.clientId, driverB.clientSecret);
    const { credentials } = testMesh;
    merchantToken = await testMesh.tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
  }, 60_000);

  it("registers drivers with credentials shown once and lists them without their secrets", async () => {
    expect(driverA.driverId).toMatch(/^[0-9a-f-]{36}$/);
    expect(driverA.clientSecret).not.toBe("");
    const listed = await tawsilDrivers("list");
    const lineOfA = listed.find((line) => line.startsWith(driverA.driverId));
    expect(lineOfA).toContain(`${driverA.clientId} enabled`);
    expect(listed.join("\n")).not.toContain(driverA.clientSecret);
  });

  it("refuses a merchant's token on a driver route and a driver's token on a merchant route with 403 ACCESS_DENIED", async () => {
    expectProblem(await call(merchantToken, "GET", "/v2/driver/offers"), 403, "ACCESS_DENIED");
    expectProblem(await call(tokenA, "GET", "/v2/external/shipments"), 403, "ACCESS_DENIED");
    expectProblem(await call(tokenA, "GET", "/v2/external/me"), 403, "ACCESS_DENIED");
  });

  it("refuses a long poll beyond 20 s, a malformed one and an unknown query parameter with 400 INVALID_PARAMETER naming it", async () => {
    for (const [query, field, code] of [["waitSeconds=21", "waitSeconds", "OUT_OF_RANGE"], ["waitSeconds=soon", "waitSeconds", "INVALID_TYPE"], ["wait=5", "wait", "UNKNOWN_PROPERTY"]] as const) {
      const res = await call(tokenA, "GET", `/v2/driver/offers?${query}`);
      expectProblem(res, 400, "INVALID_PARAMETER");
      expect(res.body.violations).toEqual([expect.objectContaining({ field, code })]);
    }
  });

  it("refuses a batch of 101 fixes with 422 and a violation on fixes", async () => {
    const fixes = Array.from({ length: 101 }, () => ({ ...RIYADH_OLAYA }));
    const res = await call(tokenA, "POST", "/v2/driver/locations", { fixes });
    expectProblem(res, 422, "VALIDATION_FAILED");
    expect(res.body.violations).toEqual([expect.objectContaining({ field: "fixes", code: "TOO_MANY_ITEMS" })]);
  });

  it("delivers a merchant's cash-on-delivery shipment from offer to DELIVERED, the merchant's webhook and tracking following; another driver's offer and job are 404", { timeout: 180_000 }, async () => {
    const merchant = testMesh.sdkFor(testMesh.credentials.TAWSIL_CLIENT_ID!, testMesh.credentials.TAWSIL_CLIENT_SECRET!);
    const { signingSecret } = await merchant.webhook.register({ url: receiverUrl });

    // Shift and fixes through the SDK's driver client, as a driver's app would send them.
    const appA = new TawsilDriverClient({ baseUrl: testMesh.gatewayUrl, clientId: driverA.clientId, clientSecret: driverA.clientSecret, retry: { maxAttempts: 1 } });
    expect(await appA.setAvailability({ onShift: true, position: RIYADH_OLAYA })).toEqual({ onShift: true });
    const fixes = [
      { ...RIYADH_OLAYA, accuracyMetres: 12, recordedAt: new Date(Date.now() - 2_000).toISOString() },
      { latitude: 24.7137, longitude: 46.6754, accuracyMetres: 8 },
    ];
    expect(await appA.reportLocations(fixes)).toBe(2);

    // The app's long poll, outstanding before the shipment exists: it is answered by the offer.
    const longPoll = call(tokenA, "GET", "/v2/driver/offers?waitSeconds=20");
    const created = await merchant.shipments.create({
      reference: `DRV-${randomUUID().slice(0, 8)}`,
      pickup: RIYADH_OLAYA,
      destination: RIYADH_MALQA,
      recipient: { name: "Huda", mobile: "0512345600" },
      codAmount: 149.5,
    });
    const shipmentId = created.shipment.id;

    const polled = await longPoll;
    expect(polled.status).toBe(200);
    const offer = (polled.body.offers as Record<string, unknown>[]).find((o) => o.shipmentId === shipmentId)!;
    expect(offer).toMatchObject({ cityCode: "RUH", pickup: RIYADH_OLAYA, destination: RIYADH_MALQA, requirements: [], cashOnDelivery: true, codAmount: 149.5 });
    expect(offer.pickupAddress).not.toBe("");
    expect(offer.destinationAddress).not.toBe("");
    // The recipient is not the driver's to know before the job is.
    expect(JSON.stringify(offer)).not.toContain("Huda");
    expect(JSON.stringify(offer)).not.toContain("512345600");
    expect(Date.parse(String(offer.expiresAt))).toBeGreaterThan(Date.now());
    // Driver B sees nothing of it, and cannot take or refuse it.
    expect((await call(tokenB, "GET", "/v2/driver/offers")).body).toEqual({ offers: [] });
    expectProblem(await call(tokenB, "POST", `/v2/driver/offers/${String(offer.offerId)}/accept`), 404, "OFFER_NOT_FOUND");
    expectProblem(await call(tokenB, "POST", `/v2/driver/offers/${String(offer.offerId)}/decline`), 404, "OFFER_NOT_FOUND");

    expect(await call(tokenA, "POST", `/v2/driver/offers/${String(offer.offerId)}/accept`)).toEqual({ status: 200, body: { offerId: offer.offerId, status: "ACCEPTED" } });
    // Now the driver's: the recipient's name and phone (E.164), to call at the door.
    expect((await call(tokenA, "GET", "/v2/driver/jobs")).body).toEqual({ jobs: [expect.objectContaining({ shipmentId, recipient: { name: "Huda", phone: "+966512345600" }, codAmount: 149.5 })] });
    expect((await call(tokenB, "GET", "/v2/driver/jobs")).body).toEqual({ jobs: [] });

    const step = (token: string, key: string, body: unknown) => call(token, "POST", `/v2/driver/jobs/${shipmentId}/steps`, body, { "idempotency-key": key });
    expectProblem(await step(tokenB, randomUUID(), { step: "PICKED_UP" }), 404, "JOB_NOT_FOUND");
    expectProblem(await call(tokenA, "POST", `/v2/driver/jobs/${shipmentId}/steps`, { step: "PICKED_UP" }), 400, "INVALID_PARAMETER");

    // The same step sent twice with one key: answered alike, applied once; another body under it is a reuse.
    const pickedUpKey = randomUUID();
    const first = await step(tokenA, pickedUpKey, { step: "PICKED_UP" });
    expect(first).toEqual({ status: 200, body: { shipmentId, step: "PICKED_UP" } });
    expect(await step(tokenA, pickedUpKey, { step: "PICKED_UP" })).toEqual(first);
    expectProblem(await step(tokenA, pickedUpKey, { step: "OUT_FOR_DELIVERY" }), 422, "IDEMPOTENCY_KEY_REUSED");
    // A step out of order changes nothing and is a conflict.
    expectProblem(await step(tokenA, randomUUID(), { step: "PICKED_UP" }), 409, "STEP_NOT_ALLOWED");

    expect((await step(tokenA, randomUUID(), { step: "OUT_FOR_DELIVERY" })).status).toBe(200);
    // Cash on delivery: the driver says what it collected (ReportProgress's cod_collected).
    // The wrong amount, or none, is refused with the field named; the shipment stays out for delivery.
    for (const body of [{ step: "DELIVERED", codCollected: { amount: 140, currency: "SAR" } }, { step: "DELIVERED" }]) {
      const refused = await step(tokenA, randomUUID(), body);
      expectProblem(refused, 422, "VALIDATION_FAILED");
      expect((refused.body.violations as { field: string }[]).map((v) => v.field)).toEqual(["codCollected"]);
    }
    expect((await step(tokenA, randomUUID(), { step: "DELIVERED", codCollected: { amount: 149.5, currency: "SAR" } })).body).toEqual({ shipmentId, step: "DELIVERED" });

    // The merchant's webhook follows, each status once (the replayed PICKED_UP changed nothing).
    const events = () =>
      receiver.received.map((r) => verifyWebhook({ payload: r.body, headers: r.headers, secret: signingSecret })).filter((event) => event.data.shipmentId === shipmentId);
    await until("shipment.delivered reaches the merchant", 60_000, async () => (events().some((e) => e.type === "shipment.delivered") ? true : undefined));
    expect(events().map((e) => e.type)).toEqual(["shipment.created", "shipment.assigned", "shipment.picked_up", "shipment.out_for_delivery", "shipment.delivered"]);
    const read = await merchant.shipments.get(shipmentId);
    if (read.notModified) throw new Error("an unconditional read answered 304");
    expect(read.shipment.state).toBe("DELIVERED");
    const finalTracking = await until("the merchant's tracking shows it delivered", 30_000, async () => {
      const view = (await merchant.tracking.get(shipmentId)) as unknown as Record<string, unknown>;
      return JSON.stringify(view).includes("DELIVERED") ? view : undefined;
    });
    expect(JSON.stringify(finalTracking)).toContain("DELIVERED");
    // Finished: the job is gone from the driver's list, and no further step is taken.
    expect((await call(tokenA, "GET", "/v2/driver/jobs")).body).toEqual({ jobs: [] });
    expectProblem(await step(tokenA, randomUUID(), { step: "DELIVERED" }), 404, "JOB_NOT_FOUND");
  });

  it("delivers a PIN and signature shipment only with its PIN and the driver's own signature, uploaded through the driver's media routes", { timeout: 180_000 }, async () => {
    const created = await call(merchantToken, "POST", "/v2/external/shipments", {
      externalReference: `DRV-PROOF-${randomUUID().slice(0, 8)}`,
      pickupLocationCode: testMesh.credentials.TAWSIL_SAVED_LOCATION,
      recipient: { name: "Noura", phone: "+966512345670" },
      destination: RIYADH_MALQA,
      items: [{ description: "Abaya", quantity: 1, weightKilograms: 0.5 }],
      requirements: ["PIN_ON_DELIVERY", "SIGNATURE_ON_DELIVERY"],
    });
    expect(created.status).toBe(201);
    const shipmentId = String(created.body.shipmentId);
    const pin = String(created.body.deliveryPin);
    expect(pin).toMatch(/^\d{4}$/);

    const appA = new TawsilDriverClient({ baseUrl: testMesh.gatewayUrl, clientId: driverA.clientId, clientSecret: driverA.clientSecret, retry: { maxAttempts: 1 } });
    const appB = new TawsilDriverClient({ baseUrl: testMesh.gatewayUrl, clientId: driverB.clientId, clientSecret: driverB.clientSecret, retry: { maxAttempts: 1 } });
    await appA.setAvailability({ onShift: true, position: RIYADH_OLAYA });
    const offer = await until("the offer reaches driver A", 30_000, async () => (await appA.offers()).find((o) => o.shipmentId === shipmentId));
    expect(offer.requirements).toEqual(expect.arrayContaining(["PIN_ON_DELIVERY", "SIGNATURE_ON_DELIVERY"]));
    await appA.acceptOffer(offer.offerId);
    await appA.reportStep(shipmentId, { step: "PICKED_UP" });
    await appA.reportStep(shipmentId, { step: "OUT_FOR_DELIVERY" });

    // A signature photographed by each driver, through the drivers' media routes.
    const signature = async (app: TawsilDriverClient) => {
      const bytes = png(40, 20);
      const declared = await app.media.create({ purpose: "DELIVERY_SIGNATURE", contentType: "image/png", sizeBytes: bytes.length });
      return (await app.media.upload(declared.mediaAssetId, bytes, "image/png")).mediaAssetId;
    };
    const signedByA = await signature(appA);
    const signedByB = await signature(appB);
    // The merchant cannot read a driver's evidence as its own asset.
    expectProblem(await call(merchantToken, "GET", `/v2/external/media-assets/${signedByA}`), 404, "MEDIA_ASSET_NOT_FOUND");

    const step = (body: unknown) => call(tokenA, "POST", `/v2/driver/jobs/${shipmentId}/steps`, body, { "idempotency-key": randomUUID() });
    const wrongPin = pin === "0000" ? "1111" : "0000";
    // Another driver's signature is refused as evidence, and leaves the signature still missing.
    const refusals = [
      [await step({ step: "DELIVERED", deliveryPin: wrongPin, evidenceMediaAssetIds: [signedByA] }), ["deliveryPin"]],
      [await step({ step: "DELIVERED", deliveryPin: pin }), ["evidenceMediaAssetIds"]],
      [await step({ step: "DELIVERED", deliveryPin: pin, evidenceMediaAssetIds: [signedByB] }), ["evidenceMediaAssetIds[0]", "evidenceMediaAssetIds"]],
    ] as const;
    for (const [res, fields] of refusals) {
      expectProblem(res, 422, "VALIDATION_FAILED");
      expect((res.body.violations as { field: string }[]).map((v) => v.field)).toEqual(fields);
    }
    expect(await step({ step: "DELIVERED", deliveryPin: pin, evidenceMediaAssetIds: [signedByA] })).toEqual({ status: 200, body: { shipmentId, step: "DELIVERED" } });
    const read = await call(merchantToken, "GET", `/v2/external/shipments/${shipmentId}`);
    expect(read.body.state).toBe("DELIVERED");
    expect(read.body.timelineMedia).toEqual([expect.objectContaining({ mediaAssetId: signedByA, purpose: "DELIVERY_SIGNATURE" })]);
  });

  it("holds a job's DELIVERED step after 5 wrong PINs: 409 DELIVERY_PIN_LOCKED with Retry-After, the right PIN refused too until it lapses", { timeout: 180_000 }, async () => {
    const created = await call(merchantToken, "POST", "/v2/external/shipments", {
      externalReference: `DRV-PIN-${randomUUID().slice(0, 8)}`,
      pickupLocationCode: testMesh.credentials.TAWSIL_SAVED_LOCATION,
      recipient: { name: "Noura", phone: "+966512345670" },
      destination: RIYADH_MALQA,
      items: [{ description: "Abaya", quantity: 1, weightKilograms: 0.5 }],
      requirements: ["PIN_ON_DELIVERY"],
    });
    expect(created.status).toBe(201);
    const shipmentId = String(created.body.shipmentId);
    const pin = String(created.body.deliveryPin);
    const appA = new TawsilDriverClient({ baseUrl: testMesh.gatewayUrl, clientId: driverA.clientId, clientSecret: driverA.clientSecret, retry: { maxAttempts: 1 } });
    await appA.setAvailability({ onShift: true, position: RIYADH_OLAYA });
    const offer = await until("the offer reaches driver A", 30_000, async () => (await appA.offers()).find((o) => o.shipmentId === shipmentId));
    await appA.acceptOffer(offer.offerId);
    await appA.reportStep(shipmentId, { step: "PICKED_UP" });
    await appA.reportStep(shipmentId, { step: "OUT_FOR_DELIVERY" });

    const step = (deliveryPin: string) => call(tokenA, "POST", `/v2/driver/jobs/${shipmentId}/steps`, { step: "DELIVERED", deliveryPin }, { "idempotency-key": randomUUID() });
    const wrongPin = pin === "0000" ? "1111" : "0000";
    for (let i = 0; i < 5; i++) {
      const res = await step(wrongPin);
      expectProblem(res, 422, "VALIDATION_FAILED");
      expect((res.body.violations as { field: string }[]).map((v) => v.field)).toEqual(["deliveryPin"]);
    }
    // Held for 10 minutes: the right PIN too, with when to try again.
    const held = await fetch(`${testMesh.gatewayUrl}/v2/driver/jobs/${shipmentId}/steps`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokenA}`, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ step: "DELIVERED", deliveryPin: pin }),
    });
    const body = (await held.json()) as Record<string, unknown>;
    expectProblem({ status: held.status, body }, 409, "DELIVERY_PIN_LOCKED");
    const retryAfter = Number(held.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect((await call(merchantToken, "GET", `/v2/external/shipments/${shipmentId}`)).body.state).toBe("OUT_FOR_DELIVERY");
    // Out of the next test's way: the driver fails the delivery instead.
    expect((await call(tokenA, "POST", `/v2/driver/jobs/${shipmentId}/steps`, { step: "DELIVERY_FAILED", reasonCode: "RECIPIENT_UNAVAILABLE" }, { "idempotency-key": randomUUID() })).status).toBe(200);
  });

  it("takes a shipment from offer to DELIVERED with a PIN and a signature by examples/driver-delivery.sh, curl alone", { timeout: 180_000 }, async () => {
    const driver = await addDriver("Driver D");
    // Driver A would be as near to the pickup: off shift, the offer is D's.
    await new TawsilDriverClient({ baseUrl: testMesh.gatewayUrl, clientId: driverA.clientId, clientSecret: driverA.clientSecret, retry: { maxAttempts: 1 } }).setAvailability({ onShift: false });
    const { credentials } = testMesh;
    const run = spawnSync("bash", [path.join(ROOT, "examples/driver-delivery.sh")], {
      encoding: "utf8",
      timeout: 150_000,
      env: {
        PATH: process.env.PATH,
        TAWSIL_BASE_URL: testMesh.gatewayUrl,
        TAWSIL_CLIENT_ID: credentials.TAWSIL_CLIENT_ID,
        TAWSIL_CLIENT_SECRET: credentials.TAWSIL_CLIENT_SECRET,
        TAWSIL_SAVED_LOCATION: credentials.TAWSIL_SAVED_LOCATION,
        DRIVER_CLIENT_ID: driver.clientId,
        DRIVER_CLIENT_SECRET: driver.clientSecret,
      },
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    // Its last line: the merchant's read of the shipment, state and timeline media.
    const final = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { state: string; timelineMedia: { purpose: string }[] };
    expect(final).toEqual({ state: "DELIVERED", timelineMedia: [expect.objectContaining({ purpose: "DELIVERY_SIGNATURE" })] });
  });

  it("refuses a disabled driver's live token within 60 s, and its client gets no new token", { timeout: 120_000 }, async () => {
    const driver = await addDriver("Driver C");
    const token = await testMesh.tokenFor(driver.clientId, driver.clientSecret);
    expect((await call(token, "GET", "/v2/driver/offers")).status).toBe(200);
    const disabledAt = Date.now();
    await tawsilDrivers("disable", driver.driverId);
    const refused = await until("the disabled driver's token refused", 60_000, async () => {
      const res = await call(token, "GET", "/v2/driver/offers");
      return res.status === 200 ? undefined : res;
    });
    console.log(`[driver-api] disabled driver's token refused after ${Date.now() - disabledAt} ms`);
    expectProblem(refused, 401, "AUTHENTICATION_REQUIRED");
    await expect(testMesh.tokenFor(driver.clientId, driver.clientSecret)).rejects.toThrow();
    // Rotated and enabled again, only the new secret works.
    const rotated = await tawsilDrivers("rotate", driver.driverId);
    const newSecret = rotated.find((line) => line.startsWith("client_secret "))!.slice("client_secret ".length).trim();
    await tawsilDrivers("enable", driver.driverId);
    await sleep(1_100);
    await expect(testMesh.tokenFor(driver.clientId, driver.clientSecret)).rejects.toThrow();
    expect((await call(await testMesh.tokenFor(driver.clientId, newSecret), "GET", "/v2/driver/offers")).status).toBe(200);
  });
});
