import { randomUUID } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { RetryDelaySchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PaymentMethod, ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { DispatchStep } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Code, draft, failure, idempotency, query, startStack, violationsOf, type DraftInit, type Stack } from "./support";

/**
 * Proof of delivery (decisions.md section 17) judged by ApplyDispatchStep DELIVER, on real
 * PostgreSQL. Evidence assets are inserted READY behind the service's back: what the step checks
 * is their metadata (owner, status, purpose, attachment); the upload path is the media tests'.
 */
let stack: Stack;
let merchantId = "";
const driverId = randomUUID();
const otherDriverId = randomUUID();

beforeAll(async () => {
  stack = await startStack(inject("databaseAdminUrl"), "proof_of_delivery");
  merchantId = await stack.newMerchant("PROVER");
});

afterAll(async () => {
  await stack?.close();
});

/** A new shipment walked to OUT_FOR_DELIVERY; its id and the PIN the merchant's create answer showed. */
async function outForDelivery(reference: string, fields: DraftInit = {}): Promise<{ id: string; pin: string }> {
  const body = draft(reference, fields);
  const { shipment } = await stack.client.createShipment({ merchantId, idempotency: idempotency(reference, body), draft: body });
  const id = shipment?.shipmentId ?? "";
  await stack.client.reserveForOffer({ shipmentId: id, expectedVersion: 1n });
  for (const which of [DispatchStep.ACCEPT, DispatchStep.PICK_UP, DispatchStep.START_LAST_LEG]) await stack.client.applyDispatchStep({ shipmentId: id, step: which });
  return { id, pin: shipment?.deliveryPin ?? "" };
}

type Proof = { deliveryPin?: string; evidenceMediaAssetIds?: string[]; codCollected?: { currency: string; amount: string }; driverId?: string };
const deliver = (shipmentId: string, proof: Proof = {}) => stack.client.applyDispatchStep({ shipmentId, step: DispatchStep.DELIVER, driverId, ...proof });

/** A READY evidence asset of a driver, attached to nothing; its id. */
async function evidence(purpose: "DELIVERY_SIGNATURE" | "DELIVERY_PHOTO", owner = driverId): Promise<string> {
  const id = randomUUID();
  await query(
    stack.databaseUrl,
    `INSERT INTO media_asset (id, driver_id, purpose, content_type, size_bytes, status, sha256, width, height, created_at, expires_at)
     VALUES ($1::uuid, $2::uuid, $3, 'image/png', 68, 'READY', '\\x00'::bytea, 1, 1, now(), now() + interval '1 day')`,
    id,
    owner,
    purpose,
  );
  return id;
}

async function stateOf(id: string): Promise<string | undefined> {
  const [row] = await query<{ state: string }>(stack.databaseUrl, "SELECT state::text FROM shipment WHERE id = $1::uuid", id);
  return row?.state;
}

function otherPin(pin: string): string {
  return String((Number(pin) + 1) % 10_000).padStart(4, "0");
}

describe("the delivery PIN", () => {
  it("is made at create for PIN_ON_DELIVERY only, shown in the merchant's answers and never in an event", async () => {
    const { id, pin } = await outForDelivery("POD-PIN-SHOWN", { requirements: ["PIN_ON_DELIVERY"] });
    expect(pin).toMatch(/^\d{4}$/);
    const read = await stack.client.getShipment({ merchantId, shipmentId: id });
    expect(read.shipment?.deliveryPin).toBe(pin);
    const plain = await outForDelivery("POD-PIN-NONE");
    expect(plain.pin).toBe("");

    const rows = await query<{ payload: Uint8Array }>(stack.databaseUrl, "SELECT payload FROM outbox_event WHERE key = $1 ORDER BY seq", id);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(fromBinary(ShipmentChangedSchema, row.payload).shipment?.deliveryPin).toBe("");
  });

  it("delivers with the right PIN and refuses a missing one (REQUIRED) or a wrong one (INCONSISTENT_VALUE) with 422", async () => {
    const { id, pin } = await outForDelivery("POD-PIN-RIGHT", { requirements: ["PIN_ON_DELIVERY"] });
    expect(await violationsOf(deliver(id))).toEqual([{ field: "delivery_pin", code: "REQUIRED", params: {} }]);
    expect(await violationsOf(deliver(id, { deliveryPin: otherPin(pin) }))).toEqual([{ field: "delivery_pin", code: "INCONSISTENT_VALUE", params: {} }]);
    expect(await stateOf(id)).toBe("OUT_FOR_DELIVERY");
    const { shipment } = await deliver(id, { deliveryPin: pin });
    expect(shipment?.state).toBe(ShipmentState.DELIVERED);
    // The service logs at debug here, refusals included: the PIN is in none of its lines.
    expect(stack.logLines.length).toBeGreaterThan(0);
    expect(stack.logLines.filter((line) => line.includes(`"${pin}"`) || line.includes(`"${otherPin(pin)}"`))).toEqual([]);
  });

  it("holds DELIVERED for 10 minutes after 5 wrong PINs sent at once, each counted exactly once", async () => {
    const { id, pin } = await outForDelivery("POD-PIN-LOCK", { requirements: ["PIN_ON_DELIVERY"] });
    const wrong = otherPin(pin);
    // Seven concurrent wrong attempts: the row lock serialises them, so 5 are counted as wrong
    // PINs (422) and the two that come after the fifth meet the lock (409).
    const outcomes = await Promise.all(Array.from({ length: 7 }, () => failure(deliver(id, { deliveryPin: wrong }))));
    expect(outcomes.filter((o) => o.reason === "VALIDATION_FAILED")).toHaveLength(5);
    expect(outcomes.filter((o) => o.reason === "DELIVERY_PIN_LOCKED")).toHaveLength(2);
    const [counted] = await query<{ failures: number; seconds: number }>(
      stack.databaseUrl,
      "SELECT delivery_pin_failures AS failures, extract(epoch FROM delivery_pin_locked_until - now())::float8 AS seconds FROM shipment WHERE id = $1::uuid",
      id,
    );
    expect(counted?.failures).toBe(5);
    expect(counted?.seconds).toBeGreaterThan(590);
    expect(counted?.seconds).toBeLessThanOrEqual(600);

    // Even the right PIN waits out the hold, told how long to wait.
    try {
      await deliver(id, { deliveryPin: pin });
      expect.unreachable("a held delivery was accepted");
    } catch (error) {
      const connect = ConnectError.from(error);
      expect(connect.code).toBe(Code.FailedPrecondition);
      const seconds = Number(connect.findDetails(RetryDelaySchema)[0]?.seconds ?? 0n);
      expect(seconds).toBeGreaterThan(590);
      expect(seconds).toBeLessThanOrEqual(600);
    }
    expect(await stateOf(id)).toBe("OUT_FOR_DELIVERY");

    // Ten minutes later (the hold moved into the past), the right PIN delivers.
    await query(stack.databaseUrl, "UPDATE shipment SET delivery_pin_locked_until = now() - interval '1 second' WHERE id = $1::uuid", id);
    expect((await deliver(id, { deliveryPin: pin })).shipment?.state).toBe(ShipmentState.DELIVERED);
  });
});

describe("evidence and cash", () => {
  it("refuses a SIGNATURE_ON_DELIVERY delivery without a signature: 422 REQUIRED on the evidence", async () => {
    const { id } = await outForDelivery("POD-SIG-MISSING", { requirements: ["SIGNATURE_ON_DELIVERY"] });
    expect(await violationsOf(deliver(id))).toEqual([{ field: "evidence_media_asset_ids", code: "REQUIRED", params: { purpose: "DELIVERY_SIGNATURE" } }]);
    // A photo is not a signature.
    const photo = await evidence("DELIVERY_PHOTO");
    expect(await violationsOf(deliver(id, { evidenceMediaAssetIds: [photo] }))).toEqual([{ field: "evidence_media_asset_ids", code: "REQUIRED", params: { purpose: "DELIVERY_SIGNATURE" } }]);
    const [photoRow] = await query<{ shipment_id: string | null }>(stack.databaseUrl, "SELECT shipment_id::text FROM media_asset WHERE id = $1::uuid", photo);
    expect(photoRow?.shipment_id).toBeNull();
    expect(await stateOf(id)).toBe("OUT_FOR_DELIVERY");
  });

  it("refuses another driver's signature: 422 UNKNOWN_REFERENCE, and the asset stays unattached", async () => {
    const { id } = await outForDelivery("POD-SIG-OTHER", { requirements: ["SIGNATURE_ON_DELIVERY"] });
    const theirs = await evidence("DELIVERY_SIGNATURE", otherDriverId);
    expect(await violationsOf(deliver(id, { evidenceMediaAssetIds: [theirs] }))).toEqual([
      { field: "evidence_media_asset_ids[0]", code: "UNKNOWN_REFERENCE", params: { entity: "media asset" } },
      { field: "evidence_media_asset_ids", code: "REQUIRED", params: { purpose: "DELIVERY_SIGNATURE" } },
    ]);
    expect(await stateOf(id)).toBe("OUT_FOR_DELIVERY");
  });

  it("delivers with the driver's signature, which joins timelineMedia once, in the answer, the read and the DELIVERED event", async () => {
    const { id } = await outForDelivery("POD-SIG-OK", { requirements: ["SIGNATURE_ON_DELIVERY", "NO_CONTACT"] });
    const signature = await evidence("DELIVERY_SIGNATURE");
    const photo = await evidence("DELIVERY_PHOTO");
    const { shipment } = await deliver(id, { evidenceMediaAssetIds: [signature, photo] });
    const expected = [
      { mediaAssetId: signature, purpose: "DELIVERY_SIGNATURE", sortOrder: 0 },
      { mediaAssetId: photo, purpose: "DELIVERY_PHOTO", sortOrder: 1 },
    ];
    expect(shipment?.timelineMedia.map(({ mediaAssetId, purpose, sortOrder }) => ({ mediaAssetId, purpose, sortOrder }))).toEqual(expected);
    const read = await stack.client.getShipment({ merchantId, shipmentId: id });
    expect(read.shipment?.timelineMedia.map(({ mediaAssetId, purpose, sortOrder }) => ({ mediaAssetId, purpose, sortOrder }))).toEqual(expected);
    const [last] = await query<{ payload: Uint8Array }>(stack.databaseUrl, "SELECT payload FROM outbox_event WHERE key = $1 ORDER BY seq DESC LIMIT 1", id);
    expect(fromBinary(ShipmentChangedSchema, last!.payload).shipment?.timelineMedia.map((m) => m.mediaAssetId)).toEqual([signature, photo]);

    // An asset attaches once: the same signature cannot prove another delivery.
    const second = await outForDelivery("POD-SIG-AGAIN", { requirements: ["SIGNATURE_ON_DELIVERY"] });
    expect(await violationsOf(deliver(second.id, { evidenceMediaAssetIds: [signature] }))).toContainEqual({
      field: "evidence_media_asset_ids[0]",
      code: "UNKNOWN_REFERENCE",
      params: { entity: "media asset" },
    });
    const [attached] = await query<{ count: number }>(stack.databaseUrl, "SELECT count(*)::int AS count FROM media_asset WHERE id = $1::uuid AND shipment_id = $2::uuid", signature, id);
    expect(attached?.count).toBe(1);
    // Attached to a shipment that ended, the evidence lives 180 days more (decisions.md section 18).
    const kept = await query<{ days: number }>(
      stack.databaseUrl,
      "SELECT extract(epoch FROM m.purge_after - s.terminal_at)::float8 / 86400 AS days FROM media_asset m JOIN shipment s ON s.id = m.shipment_id WHERE s.id = $1::uuid",
      id,
    );
    expect(kept).toEqual([{ days: 180 }, { days: 180 }]);
  });

  it("refuses a COD delivery whose cash collected is missing or differs from the COD amount, and delivers with the amount", async () => {
    const { id } = await outForDelivery("POD-COD", { codAmount: "120.50", paymentMethod: PaymentMethod.COD });
    expect(await violationsOf(deliver(id))).toEqual([{ field: "cod_collected", code: "REQUIRED", params: {} }]);
    expect(await violationsOf(deliver(id, { codCollected: { currency: "SAR", amount: "120.00" } }))).toEqual([
      { field: "cod_collected", code: "INCONSISTENT_VALUE", params: { expected: "120.50 SAR" } },
    ]);
    expect(await violationsOf(deliver(id, { codCollected: { currency: "USD", amount: "120.50" } }))).toHaveLength(1);
    expect((await deliver(id, { codCollected: { currency: "SAR", amount: "120.5" } })).shipment?.state).toBe(ShipmentState.DELIVERED);
  });

  it("refuses evidence from a DELIVER step that names no driver", async () => {
    const { id } = await outForDelivery("POD-NO-DRIVER", { requirements: ["SIGNATURE_ON_DELIVERY"] });
    const signature = await evidence("DELIVERY_SIGNATURE");
    expect(await violationsOf(deliver(id, { driverId: "", evidenceMediaAssetIds: [signature] }))).toEqual([{ field: "driver_id", code: "REQUIRED", params: {} }]);
  });
});
