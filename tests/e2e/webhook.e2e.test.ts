import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "@tawsil/sdk";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 11 done: a merchant registers a local receiver through the gateway, creates a sandbox
 * shipment, and the receiver gets one signed event per public status, from created to delivered,
 * each verified by the SDK's helper (the official Standard Webhooks library underneath).
 */
let testMesh: TestMesh;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    res.writeHead(204).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: inject("kafkaBrokers"),
    serviceEnv: { dispatch: { SANDBOX_FLEET_ENABLED: "true", SANDBOX_FAILURE_RATE: "0" } },
  });
}, 180_000);
afterAll(async () => {
  await testMesh?.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

describe("webhooks through the mesh", () => {
  it("deliver every public status of a sandbox shipment exactly once, signed", async () => {
    const { credentials } = testMesh;
    const merchant = testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tawsil-hooks`;
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
    while (!events().some(({ event }) => event.type === "shipment.delivered") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));

    const mine = events();
    expect(mine.map(({ event }) => event.type)).toEqual(["shipment.created", "shipment.assigned", "shipment.picked_up", "shipment.out_for_delivery", "shipment.delivered"]);
    expect(new Set(mine.map(({ webhookId }) => webhookId)).size).toBe(mine.length);
    for (const { webhookId, event } of mine) expect(event.id).toBe(webhookId);
    const sequences = mine.map(({ event }) => event.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    const read = await merchant.shipments.get(id);
    if (read.notModified) throw new Error("an unconditional read answered 304");
    expect({ state: read.shipment.state, lastSequence: sequences.at(-1) }).toEqual({ state: "DELIVERED", lastSequence: read.shipment.version });
  }, 240_000);
});
