import { randomUUID } from "node:crypto";
import { verifyWebhook } from "@tawsil/sdk";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { MerchantReceiver } from "./support/merchant-receiver";
import { RecordingReceiver } from "./support/recording-receiver";
import { BRISK_DELIVERIES, startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 11 done: a merchant registers a local receiver through the gateway, creates a sandbox
 * shipment, and the receiver gets one signed event per public status, from created to delivered,
 * each verified by the SDK's helper (the official Standard Webhooks library underneath), each
 * carrying the create response's tracking link, which opens.
 * Issue 27 done: the other seeded merchant's receiver follows delivery-api.md's receiver duties
 * to the letter and applies every event of its sandbox shipment without dropping one. The two
 * shipments travel at the same time (each merchant has one webhook).
 */
let testMesh: TestMesh;
const merchantReceiver = new MerchantReceiver();
let merchantReceiverUrl = "";
const receiver = new RecordingReceiver();
const { received } = receiver;
let receiverUrl = "";

beforeAll(async () => {
  receiverUrl = await receiver.listen("/tawsil-hooks");
  merchantReceiverUrl = await merchantReceiver.listen();
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    fleetEnv: BRISK_DELIVERIES,
  });
}, 180_000);
afterAll(async () => {
  await testMesh?.close();
  await receiver.close();
  await merchantReceiver.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("webhooks through the mesh", () => {
  it.concurrent("deliver every public status of a sandbox shipment exactly once, signed, with the shipment's own tracking link", async ({ expect }) => {
    const { credentials } = testMesh;
    const merchant = testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const url = receiverUrl;
    const { signingSecret } = await merchant.webhook.register({ url });

    const created = await merchant.shipments.create({
      reference: `HOOK-${randomUUID().slice(0, 8)}`,
      pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
      destination: { latitude: 24.774265, longitude: 46.738586 },
      recipient: { name: "Huda", mobile: "0512345600" },
    });
    expect(created.replayed).toBe(false);
    const { id } = created.shipment;

    const events = () =>
      received.map((r) => ({
        webhookId: String(r.headers["webhook-id"]),
        event: verifyWebhook({ payload: r.body, headers: r.headers, secret: signingSecret }),
      })).filter(({ event }) => event.data.shipmentId === id);
    const deadline = Date.now() + 150_000;
    while (!events().some(({ event }) => event.type === "shipment.delivered") && Date.now() < deadline) await sleep(500);

    const mine = events();
    expect(mine.map(({ event }) => event.type)).toEqual(["shipment.created", "shipment.assigned", "shipment.picked_up", "shipment.out_for_delivery", "shipment.delivered"]);
    expect(new Set(mine.map(({ webhookId }) => webhookId)).size).toBe(mine.length);
    for (const { webhookId, event } of mine) expect(event.id).toBe(webhookId);
    const sequences = mine.map(({ event }) => event.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    const read = await merchant.shipments.get(id);
    if (read.notModified) throw new Error("an unconditional read answered 304");
    expect({ state: read.shipment.state, lastSequence: sequences.at(-1) }).toEqual({ state: "DELIVERED", lastSequence: read.shipment.version });

    // decisions.md section 11: data.trackingUrl is the shipment's customer link, never empty: the
    // create response's, in every event. It opens: the customer page, and the public projection
    // behind it knows the shipment delivered.
    expect(created.shipment.trackingUrl).toMatch(/\/t\/[A-Za-z0-9_-]{43}$/);
    expect(mine.map(({ event }) => event.data.trackingUrl)).toEqual(mine.map(() => created.shipment.trackingUrl));
    const page = await fetch(created.shipment.trackingUrl);
    expect([page.status, page.headers.get("content-type")]).toEqual([200, expect.stringMatching(/^text\/html/)]);
    const code = new URL(created.shipment.trackingUrl).pathname.split("/t/")[1]!;
    const publicView = await fetch(`${testMesh.gatewayUrl}/v2/public/tracking/${code}`);
    expect([publicView.status, ((await publicView.json()) as { status: string }).status]).toEqual([200, "DELIVERED"]);
  }, 240_000);

  it.concurrent("let a receiver following delivery-api.md's duties apply every event of a sandbox shipment, created to delivered, dropping none", async ({ expect }) => {
    const { credentials } = testMesh;
    const merchant = testMesh.sdkFor(credentials.TAWSIL_CLIENT2_ID!, credentials.TAWSIL_CLIENT2_SECRET!);
    const { signingSecret } = await merchant.webhook.register({ url: merchantReceiverUrl });
    merchantReceiver.useSecret(signingSecret);

    const created = await merchant.shipments.create({
      reference: `DUTY-${randomUUID().slice(0, 8)}`,
      pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
      destination: { latitude: 24.774265, longitude: 46.738586 },
      recipient: { name: "Nora", mobile: "0512345601" },
    });
    const { id, version, status } = created.shipment;
    // What the merchant stores of the create: the shipment, applied at the version it answered.
    merchantReceiver.recordCreated(id, version, status);

    const deadline = Date.now() + 150_000;
    while (merchantReceiver.stateOf(id).status !== "DELIVERED" && Date.now() < deadline) await sleep(500);
    await sleep(1000); // anything redelivered or late arrives with or right after the last event

    const copy = merchantReceiver.stateOf(id);
    // Every public status came, in sequence order; shipment.created is the create response's own
    // change (decisions.md section 5: sequence = the version the change committed), every later
    // one is applied as it comes. Before the fix the create answered version 2 and created
    // carried sequence 1, a change this merchant never applied: dropped.
    expect(copy.handled.map(({ type, outcome }) => [type, outcome])).toEqual([
      ["shipment.created", "already-applied"],
      ["shipment.assigned", "applied"],
      ["shipment.picked_up", "applied"],
      ["shipment.out_for_delivery", "applied"],
      ["shipment.delivered", "applied"],
    ]);
    expect(copy.handled[0]).toMatchObject({ sequence: version, status });
    expect(copy.dropped).toEqual([]);
    expect(merchantReceiver.rejected).toBe(0);
    const read = await merchant.shipments.get(id);
    if (read.notModified) throw new Error("an unconditional read answered 304");
    expect({ sequence: copy.sequence, status: copy.status }).toEqual({ sequence: read.shipment.version, status: "DELIVERED" });

    // The receiver does verify: a delivery nobody signed is refused and changes nothing.
    const forged = await fetch(merchantReceiverUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": "msg_forged", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
      body: JSON.stringify({ id: "msg_forged", type: "shipment.failed", timestamp: new Date().toISOString(), sequence: 99, data: { shipmentId: id, reference: "x", status: "FAILED", occurredAt: new Date().toISOString(), trackingUrl: "x" } }),
    });
    expect([forged.status, merchantReceiver.rejected, merchantReceiver.stateOf(id).status]).toEqual([401, 1, "DELIVERED"]);
  }, 240_000);
});
