import { randomUUID } from "node:crypto";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { createKafka, startOutboxRelay } from "@tawsil/events";
import { withTransaction, createPrismaClient, disconnect } from "@tawsil/db";
import { createLogger } from "@tawsil/logging";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PaymentMethod, ShipmentSchema, ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../../packages/testing/src/infra/kafka";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { Code, draft, failure, idempotency, query, startStack, violationsOf, type Stack } from "./support";
import { SHIPMENT_EVENTS_TOPIC, topicSpec } from "@tawsil/topology";

let stack: Stack;
let merchantId = "";
let otherMerchantId = "";

beforeAll(async () => {
  stack = await startStack(inject("databaseAdminUrl"), "create");
  [merchantId, otherMerchantId] = await Promise.all([stack.newMerchant("ACME"), stack.newMerchant("OTHER")]);
});

afterAll(async () => {
  await stack?.close();
});

const create = (reference: string, key = reference, fields = {}, merchant = merchantId) => {
  const body = draft(reference, fields);
  return stack.client.createShipment({ merchantId: merchant, idempotency: idempotency(key, body), draft: body });
};

/** The ShipmentChanged events in the outbox for a shipment, in order. */
async function eventsOf(shipmentId: string) {
  const rows = await query<{ payload: Uint8Array }>(stack.databaseUrl, "SELECT payload FROM outbox_event WHERE key = $1 ORDER BY seq", shipmentId);
  return rows.map((row) => fromBinary(ShipmentChangedSchema, row.payload));
}

describe("CreateShipment", () => {
  it("creates from a saved location, priced, approved for an ACTIVE merchant: one version, one event carrying the tracking URL", async () => {
    const { shipment, replayed } = await create("ORDER-SAVED", "key-saved-location-01", {
      pickup: { case: "savedLocationCode", value: "WAREHOUSE-1" },
      branchCode: "BRANCH-1",
      codAmount: "120.5",
    });
    expect(replayed).toBe(false);
    expect(shipment).toMatchObject({
      state: ShipmentState.READY_FOR_DISPATCH,
      version: 1n,
      maskedRecipientPhone: "*********5678",
      totalWeightKilograms: "1.500",
      codAmount: "120.50",
      paymentMethod: PaymentMethod.COD,
      currency: "SAR",
      branchCode: "BRANCH-1",
      pickup: { addressLine: "King Fahd Rd, Al Olaya", cityCode: "RUH" },
      destination: { addressLine: "Al Malaz, Riyadh", cityCode: "RUH" },
    });
    expect(shipment?.shipmentNumber).toMatch(/^TWS-\d{10}$/);
    expect(shipment?.trackingUrl).toMatch(/^http:\/\/localhost:8080\/t\/[A-Za-z0-9_-]{43}$/);
    const events = await eventsOf(shipment?.shipmentId ?? "");
    // decisions.md section 5: one committed change, one version; the event's sequence is the response's version.
    expect(events.map((e) => [e.previousState, e.shipment?.state, e.shipment?.version, e.publicStatusChanged])).toEqual([
      [ShipmentState.UNSPECIFIED, ShipmentState.READY_FOR_DISPATCH, 1n, true],
    ]);
    expect(events[0]?.shipment?.approveTime).toEqual(shipment?.approveTime);
    // Section 11: the webhook's data.trackingUrl is the create response's link, carried by the event.
    expect(events[0]?.shipment?.trackingUrl).toBe(shipment?.trackingUrl);
    const [row] = await query<{ price: string; rate_card_version: number }>(stack.databaseUrl, "SELECT price::text, rate_card_version FROM shipment WHERE id = $1::uuid", shipment?.shipmentId);
    // Net 15 + (6.854 - 3) x 1.75 + COD fee max(1.5% of 120.50, 5) = 26.74; VAT 4.01.
    expect(row).toEqual({ price: "30.75", rate_card_version: 1 });
  });

  it("refuses an unknown saved location or branch with UNKNOWN_REFERENCE on its own draft fields (the gateway names the caller's)", async () => {
    const call = create("ORDER-UNKNOWN", "key-unknown-ref-0001", { pickup: { case: "savedLocationCode", value: "NOWHERE" }, branchCode: "NOPE" });
    expect(await violationsOf(call)).toEqual([
      { field: "saved_location_code", code: "UNKNOWN_REFERENCE", params: { entity: "saved location" } },
      { field: "branch_code", code: "UNKNOWN_REFERENCE", params: { entity: "branch" } },
    ]);
  });

  it("turns a COD above the agreed maximum into OUT_OF_RANGE on the COD field with the maximum", async () => {
    expect(await violationsOf(create("ORDER-COD", "key-cod-above-max-1", { codAmount: "2000.01" }))).toEqual([{ field: "cod_amount", code: "OUT_OF_RANGE", params: { max: "2000.00" } }]);
  });

  it("keeps a DRAFT merchant's sandbox shipment PENDING_APPROVAL and refuses a SUSPENDED merchant", async () => {
    const draftMerchant = await stack.newMerchant("DRAFTY", MerchantStatus.DRAFT);
    const { shipment } = await create("ORDER-DRAFT", "ORDER-DRAFT", {}, draftMerchant);
    expect([shipment?.state, shipment?.version, shipment?.approveTime]).toEqual([ShipmentState.PENDING_APPROVAL, 1n, undefined]);
    const suspended = await stack.newMerchant("PAUSED");
    await stack.merchant.admin.setMerchantStatus({ merchantCode: "PAUSED", status: MerchantStatus.SUSPENDED });
    expect(await failure(create("ORDER-SUSP", "ORDER-SUSP", {}, suspended))).toMatchObject({ code: Code.PermissionDenied, reason: "MERCHANT_NOT_ACTIVE" });
  });

  it("replays a create after its merchant was suspended (the record answers), and refuses a new one with MERCHANT_NOT_ACTIVE", async () => {
    const later = await stack.newMerchant("LATER");
    const first = await create("ORDER-LATER", "key-later-suspended-1", {}, later);
    await stack.merchant.admin.setMerchantStatus({ merchantCode: "LATER", status: MerchantStatus.SUSPENDED });
    const again = await create("ORDER-LATER", "key-later-suspended-1", {}, later);
    expect([again.replayed, toBinary(ShipmentSchema, again.shipment!)]).toEqual([true, toBinary(ShipmentSchema, first.shipment!)]);
    // The same key with another body is still told so, not told of the status.
    expect(await failure(create("ORDER-LATER-2", "key-later-suspended-1", {}, later))).toMatchObject({ code: Code.FailedPrecondition, reason: "IDEMPOTENCY_KEY_REUSED" });
    expect(await failure(create("ORDER-LATER-3", "key-later-suspended-3", {}, later))).toMatchObject({ code: Code.PermissionDenied, reason: "MERCHANT_NOT_ACTIVE" });
  });

  it("answers 50 concurrent identical creates with one shipment, one creation event and byte-identical snapshots", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => create("ORDER-50", "key-fifty-concurrent-1")));
    await expectOneShipment(results, "ORDER-50");
  });

  it("does the same with the default key, the reference", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => create("ORDER-DEFAULT-KEY")));
    await expectOneShipment(results, "ORDER-DEFAULT-KEY");
  });

  it("refuses the same key with another payload with IDEMPOTENCY_KEY_REUSED", async () => {
    await create("ORDER-REUSE", "key-reused-000000001");
    expect(await failure(create("ORDER-REUSE-2", "key-reused-000000001"))).toMatchObject({ code: Code.FailedPrecondition, reason: "IDEMPOTENCY_KEY_REUSED" });
  });

  it("does not consume the key on a validation failure", async () => {
    const bad = await violationsOf(create("ORDER-FIX", "key-fix-and-retry-01", { paymentMethod: PaymentMethod.COD }));
    expect(bad).toEqual([{ field: "payment_method", code: "INCONSISTENT_VALUE", params: {} }]);
    const { shipment, replayed } = await create("ORDER-FIX", "key-fix-and-retry-01");
    expect([shipment?.externalReference, replayed]).toEqual(["ORDER-FIX", false]);
  });

  it("refuses a reference already used under another key with DUPLICATE_REFERENCE", async () => {
    await create("ORDER-DUP", "key-duplicate-ref-01");
    expect(await failure(create("ORDER-DUP", "key-duplicate-ref-02"))).toMatchObject({ code: Code.AlreadyExists, reason: "DUPLICATE_REFERENCE" });
  });
});

describe("reads and cancels across merchants", () => {
  it("answers another merchant's read and cancel with ACCESS_DENIED and an unknown id with SHIPMENT_NOT_FOUND", async () => {
    const { shipment } = await create("ORDER-MINE", "ORDER-MINE");
    const shipmentId = shipment?.shipmentId ?? "";
    expect(await failure(stack.client.getShipment({ merchantId: otherMerchantId, shipmentId }))).toMatchObject({ code: Code.PermissionDenied, reason: "ACCESS_DENIED" });
    const cancel = (merchant: string, id: string) =>
      stack.client.cancelShipment({ merchantId: merchant, shipmentId: id, reasonCode: "CUSTOMER_REQUEST", idempotency: { key: id, clientId: "", fingerprint: "a".repeat(64) } });
    expect(await failure(cancel(otherMerchantId, shipmentId))).toMatchObject({ code: Code.PermissionDenied, reason: "ACCESS_DENIED" });
    expect(await failure(stack.client.getShipment({ merchantId, shipmentId: randomUUID() }))).toMatchObject({ code: Code.NotFound, reason: "SHIPMENT_NOT_FOUND" });
    expect((await stack.client.getShipment({ merchantId, shipmentId })).shipment?.trackingUrl).toBe(shipment?.trackingUrl);

    const cancelled = await cancel(merchantId, shipmentId);
    expect([cancelled.shipment?.state, cancelled.shipment?.version, cancelled.shipment?.reasonCode, cancelled.replayed]).toEqual([ShipmentState.CANCELLED, 2n, "CUSTOMER_REQUEST", false]);
    const events = await eventsOf(shipmentId);
    expect(events.map((e) => [e.shipment?.version, e.shipment?.trackingUrl])).toEqual([
      [1n, shipment?.trackingUrl],
      [2n, shipment?.trackingUrl],
    ]);
    const again = await cancel(merchantId, shipmentId);
    expect([again.replayed, toBinary(ShipmentSchema, again.shipment ?? cancelled.shipment!)]).toEqual([true, toBinary(ShipmentSchema, cancelled.shipment!)]);
  });
});

async function expectOneShipment(results: { shipment?: unknown; replayed: boolean }[], reference: string): Promise<void> {
  const snapshots = new Set(results.map((r) => Buffer.from(toBinary(ShipmentSchema, r.shipment as never)).toString("base64")));
  expect(snapshots.size).toBe(1);
  expect(results.filter((r) => !r.replayed)).toHaveLength(1);
  const rows = await query<{ id: string }>(stack.databaseUrl, "SELECT id::text FROM shipment WHERE external_reference = $1", reference);
  expect(rows).toHaveLength(1);
  const events = await eventsOf(rows[0]?.id ?? "");
  expect(events.filter((e) => e.previousState === ShipmentState.UNSPECIFIED)).toHaveLength(1);
  expect(events).toHaveLength(1); // the creation, approved by the automatic checks in the same change
  expect(await brokerCreations(rows[0]?.id ?? "")).toBe(1);
}

/** Relays the outbox to the real broker and counts the creation events of the shipment found there. */
async function brokerCreations(shipmentId: string): Promise<number> {
  const brokers = inject("kafkaBrokers");
  await ensureTopics([...brokers], [topicSpec(SHIPMENT_EVENTS_TOPIC)]);
  const logger = createLogger({ service: "shipment-test-relay", level: "silent" });
  const kafka = createKafka({ clientId: `shipment-test-${randomUUID().slice(0, 8)}`, brokers, logger });
  const db = createPrismaClient(PrismaClient, { url: stack.databaseUrl, maxConnections: 2 });
  const relay = await startOutboxRelay({ kafka, logger, runInTransaction: (fn) => withTransaction(db, fn, { timeoutMs: 30_000 }), databaseUrl: stack.databaseUrl });
  const consumer = kafka.consumer({ groupId: `shipment-test-${randomUUID()}` });
  let creations = 0;
  let seen = 0;
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: SHIPMENT_EVENTS_TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (message.key?.toString() !== shipmentId || !message.value) return;
        seen++;
        if (fromBinary(ShipmentChangedSchema, message.value).previousState === ShipmentState.UNSPECIFIED) creations++;
      },
    });
    const deadline = Date.now() + 60_000;
    while (seen < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    // Anything duplicated would arrive with or right after the originals: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } finally {
    await consumer.disconnect();
    await relay.close();
    await disconnect(db);
  }
  return creations;
}
