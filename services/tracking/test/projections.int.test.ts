import { createHash, randomBytes, randomUUID } from "node:crypto";
import { problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fromBinary } from "@bufbuild/protobuf";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { accessToken } from "../../../gateway/test/support/stack";
import { idempotency, query } from "../../shipment/test/support";
import { assignmentChanged, driverLocation, PICKUP, shipmentChanged, startTrackingStack, type StateName, type TrackingStack } from "./support";

/**
 * The two tracking projections through the gateway, fed by real Kafka events into the tracking
 * service's own tables, with a clock the test moves (decisions.md section 9).
 */
let stack: TrackingStack;
let token: string;

beforeAll(async () => {
  stack = await startTrackingStack({ adminUrl: inject("databaseAdminUrl"), brokers: inject("kafkaBrokers") });
  token = await accessToken(stack.gateway.baseUrl, stack.gateway.merchant.readOnly);
}, 180_000);
afterAll(async () => stack?.close());

const newCode = () => randomBytes(32).toString("base64url");
const sha256 = (code: string) => new Uint8Array(createHash("sha256").update(code, "ascii").digest());

/** A shipment of the token's merchant (unless told otherwise) that the test moves by events. */
function tracked(merchantId = stack.gateway.merchant.id) {
  const shipmentId = randomUUID();
  const code = newCode();
  let version = 0;
  return {
    shipmentId,
    code,
    move: (state: StateName, at = stack.now, reasonCode?: string) =>
      stack.publish("shipments", shipmentId, shipmentChanged({ shipmentId, merchantId, state, version: ++version, at, codeHash: sha256(code), ...(reasonCode ? { reasonCode } : {}) })),
    accept: (driverRef: string) => stack.publish("assignments", shipmentId, assignmentChanged({ shipmentId, driverRef, change: "ACCEPTED", at: stack.now })),
    fix: (driverRef: string, secondsAgo: number, position = { latitudeMicro: 24_681_234, longitudeMicro: 46_701_987 }) =>
      stack.publish("locations", shipmentId, driverLocation({ shipmentId, driverRef, position, accuracyMetres: 12, at: new Date(stack.now.getTime() - secondsAgo * 1000) })),
  };
}

async function merchantView(shipmentId: string): Promise<Response> {
  return fetch(`${stack.gateway.baseUrl}/v2/external/shipments/${shipmentId}/tracking`, { headers: { authorization: `Bearer ${token}` } });
}

async function merchantBody(shipmentId: string): Promise<Record<string, unknown>> {
  const res = await merchantView(shipmentId);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const publicView = (code: string, headers: Record<string, string> = {}) => fetch(`${stack.gateway.baseUrl}/v2/public/tracking/${code}`, { headers });

async function publicBody(code: string): Promise<Record<string, unknown>> {
  const res = await publicView(code);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function problem(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = (await res.json()) as { code: string };
  expect(problemSchemaErrors(body)).toEqual([]);
  expect(body.code).toBe(code);
}

const summary = (b: Record<string, unknown>) => [b.lifecycleState ?? b.status, b.locationStatus, b.recommendedRefreshSeconds, b.driverLocation === null ? "no position" : "position"];

describe("the merchant's projection", () => {
  it("follows a shipment through every state with a driver: location status, refresh seconds, the exact fix", async () => {
    const s = tracked();
    await s.move("PENDING_APPROVAL");
    expect(summary(await merchantBody(s.shipmentId))).toEqual(["PENDING_APPROVAL", "NOT_ASSIGNED", 60, "no position"]);
    await s.move("READY_FOR_DISPATCH");
    expect(summary(await merchantBody(s.shipmentId))).toEqual(["READY_FOR_DISPATCH", "NOT_ASSIGNED", 30, "no position"]);
    await s.move("OFFERED");
    expect(summary(await merchantBody(s.shipmentId))).toEqual(["OFFERED", "WAITING_FOR_DRIVER_ACCEPTANCE", 30, "no position"]);
    await s.accept("driver-a");
    await s.move("ACCEPTED");
    expect(summary(await merchantBody(s.shipmentId))).toEqual(["ACCEPTED", "LOCATION_UNAVAILABLE", 15, "no position"]);

    await s.fix("driver-b", 1); // another driver's fix is not this shipment's
    expect(summary(await merchantBody(s.shipmentId))).toEqual(["ACCEPTED", "LOCATION_UNAVAILABLE", 15, "no position"]);

    await s.fix("driver-a", 119);
    const live = await merchantBody(s.shipmentId);
    expect(live).toEqual({
      shipmentId: s.shipmentId,
      lifecycleState: "ACCEPTED",
      locationStatus: "AVAILABLE",
      recommendedRefreshSeconds: 15,
      driverLocation: { latitude: 24.681234, longitude: 46.701987, accuracyMetres: 12, recordedAt: new Date(stack.now.getTime() - 119_000).toISOString(), stale: false, ageSeconds: 119 },
      estimatedPickupAt: expect.any(String),
      estimatedDeliveryAt: expect.any(String),
    });
    expect(Date.parse(live.estimatedDeliveryAt as string)).toBeGreaterThan(Date.parse(live.estimatedPickupAt as string));

    stack.now = new Date(stack.now.getTime() + 1000); // the fix is now 120 s old
    const stale = await merchantBody(s.shipmentId);
    expect(summary(stale)).toEqual(["ACCEPTED", "STALE", 15, "position"]);
    expect(stale.driverLocation).toMatchObject({ stale: true, ageSeconds: 120 });
    expect([stale.estimatedPickupAt, stale.estimatedDeliveryAt]).toEqual([null, null]); // a stale fix is no basis

    await s.move("PICKED_UP");
    expect(summary(await merchantBody(s.shipmentId))).toEqual(["PICKED_UP", "STALE", 15, "position"]);
    await s.move("OUT_FOR_DELIVERY");
    await s.fix("driver-a", 3);
    const last = await merchantBody(s.shipmentId);
    expect(summary(last)).toEqual(["OUT_FOR_DELIVERY", "AVAILABLE", 5, "position"]);
    expect([last.estimatedPickupAt === null, typeof last.estimatedDeliveryAt]).toEqual([true, "string"]);
    await s.move("DELIVERED");
    expect(summary(await merchantBody(s.shipmentId))).toEqual(["DELIVERED", "TERMINAL_NO_LIVE_LOCATION", 60, "no position"]);
  });

  it("answers the states without a driver, and the terminal ones, by the rules", async () => {
    const cases: [StateName[], unknown[]][] = [
      [["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED", "DISPATCH_UNRESOLVED"], ["DISPATCH_UNRESOLVED", "NOT_ASSIGNED", 30, "no position"]],
      [["PENDING_APPROVAL", "CANCELLED"], ["CANCELLED", "TERMINAL_NO_LIVE_LOCATION", 60, "no position"]],
      [["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED", "ACCEPTED", "PICKED_UP", "DELIVERY_FAILED"], ["DELIVERY_FAILED", "TERMINAL_NO_LIVE_LOCATION", 60, "no position"]],
    ];
    for (const [states, expected] of cases) {
      const s = tracked();
      for (const state of states) await s.move(state);
      expect(summary(await merchantBody(s.shipmentId))).toEqual(expected);
    }
  });

  it("is 403 ACCESS_DENIED for another merchant's shipment, 404 SHIPMENT_NOT_FOUND for an unknown one, 400 for a malformed id", async () => {
    const other = tracked(randomUUID());
    await other.move("PENDING_APPROVAL");
    await problem(await merchantView(other.shipmentId), 403, "ACCESS_DENIED");
    await problem(await merchantView(randomUUID()), 404, "SHIPMENT_NOT_FOUND");
    await problem(await merchantView("not-a-uuid"), 400, "INVALID_PARAMETER");
    const anonymous = await fetch(`${stack.gateway.baseUrl}/v2/external/shipments/${other.shipmentId}/tracking`);
    await problem(anonymous, 401, "AUTHENTICATION_REQUIRED");
  });
});

describe("the consumers", () => {
  it("apply a redelivered event once, and ignore an older version arriving after a newer one", async () => {
    const s = tracked();
    const first = await s.move("PENDING_APPROVAL");
    await s.move("READY_FOR_DISPATCH");
    const again = await stack.publish("shipments", s.shipmentId, shipmentChanged({ shipmentId: s.shipmentId, merchantId: stack.gateway.merchant.id, state: "PENDING_APPROVAL", version: 1, at: stack.now, codeHash: sha256(s.code) }), first.eventId);
    expect([first.applied, again.applied]).toEqual([true, false]);
    const late = await stack.publish("shipments", s.shipmentId, shipmentChanged({ shipmentId: s.shipmentId, merchantId: stack.gateway.merchant.id, state: "PENDING_APPROVAL", version: 1, at: stack.now, codeHash: sha256(s.code) }));
    expect(late.applied).toBe(true);
    expect((await merchantBody(s.shipmentId)).lifecycleState).toBe("READY_FOR_DISPATCH");
    expect((await publicBody(s.code)).history).toEqual([{ status: "CREATED", at: stack.now.toISOString() }]);
  });

  it("keep the newest fix when an older one arrives later", async () => {
    const s = tracked();
    for (const state of ["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED", "ACCEPTED", "PICKED_UP"] as const) await s.move(state);
    await s.accept("driver-c");
    await s.fix("driver-c", 5, { latitudeMicro: 24_700_001, longitudeMicro: 46_700_001 });
    await s.fix("driver-c", 50, { latitudeMicro: 24_600_001, longitudeMicro: 46_600_001 });
    expect((await merchantBody(s.shipmentId)).driverLocation).toMatchObject({ latitude: 24.700001, longitude: 46.700001, ageSeconds: 5 });
  });
});

/** Keys a public answer may have; anything else (identity, phone, endpoints, carrier) is a leak. */
const PUBLIC_KEYS = ["status", "locationStatus", "recommendedRefreshSeconds", "history", "driverLocation", "estimatedPickupAt", "estimatedDeliveryAt"].sort();

describe("the public projection", () => {
  it("shows the public status and its history, and a coarse position only while the parcel is carried", async () => {
    const s = tracked();
    const t0 = stack.now;
    await s.move("PENDING_APPROVAL", t0);
    await s.move("READY_FOR_DISPATCH", t0);
    await s.move("OFFERED");
    await s.accept("driver-d");
    await s.move("ACCEPTED");
    await s.fix("driver-d", 2);
    const assigned = await publicBody(s.code);
    expect(Object.keys(assigned).sort()).toEqual(PUBLIC_KEYS);
    // A driver on the way to the pickup has a position, but not one the customer sees.
    expect(summary(assigned)).toEqual(["ASSIGNED", "LOCATION_UNAVAILABLE", 15, "no position"]);

    await s.move("PICKED_UP");
    await s.fix("driver-d", 2, { latitudeMicro: 24_681_234, longitudeMicro: 46_701_987 });
    const carried = await publicBody(s.code);
    expect(summary(carried)).toEqual(["PICKED_UP", "AVAILABLE", 15, "position"]);
    expect(carried.driverLocation).toEqual({ latitude: 24.68, longitude: 46.7, accuracyMetres: 500, recordedAt: new Date(stack.now.getTime() - 2000).toISOString(), stale: false, ageSeconds: 2 });

    await s.move("OUT_FOR_DELIVERY");
    await s.fix("driver-d", 0, { latitudeMicro: 24_673_499, longitudeMicro: 46_712_501 });
    const out = await publicBody(s.code);
    expect(summary(out)).toEqual(["OUT_FOR_DELIVERY", "AVAILABLE", 5, "position"]);
    expect(out.driverLocation).toMatchObject({ latitude: 24.675, longitude: 46.715, accuracyMetres: 500 });
    expect(typeof out.estimatedDeliveryAt).toBe("string");

    await s.move("DELIVERED");
    const done = await publicBody(s.code);
    expect(summary(done)).toEqual(["DELIVERED", "TERMINAL_NO_LIVE_LOCATION", 60, "no position"]);
    expect((done.history as { status: string }[]).map((h) => h.status)).toEqual(["CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"]);
    expect((done.history as { at: string }[])[0]!.at).toBe(t0.toISOString());
    const text = JSON.stringify(done) + JSON.stringify(out);
    for (const secret of ["driver-d", "24.681234", "24.673499", "Noura", "5678", stack.gateway.merchant.id, s.shipmentId, "RUH", "King Fahd", String(PICKUP.latitudeMicro / 1e6)]) {
      expect(text).not.toContain(secret);
    }
  });

  it("estimates only from the coarse cell it shows, to the whole minute, and none before pickup, on the JSON answer and the page alike", async () => {
    const page = async (code: string) => {
      const res = await fetch(`${stack.gateway.baseUrl}/t/${code}`, { headers: { "accept-language": "en" } });
      expect(res.status).toBe(200);
      return [...(await res.text()).matchAll(/<p class="eta"[^>]*>.*?<\/p>/g)].map((m) => m[0]);
    };
    // Both fixes lie in the cell of node (24.680, 46.700), about 600 m apart.
    const [near, far] = [tracked(), tracked()];
    const positions = [{ latitudeMicro: 24_678_000, longitudeMicro: 46_698_000 }, { latitudeMicro: 24_682_400, longitudeMicro: 46_702_400 }];
    for (const s of [near, far]) {
      for (const state of ["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED"] as const) await s.move(state);
      await s.accept("driver-e");
      await s.move("ACCEPTED");
    }
    await near.fix("driver-e", 7, positions[0]);
    await far.fix("driver-e", 7, positions[1]);

    // On the way to the pickup: the merchant sees the driver and both estimates, the customer neither.
    const merchantAssigned = await merchantBody(near.shipmentId);
    expect([merchantAssigned.locationStatus, typeof merchantAssigned.estimatedPickupAt, typeof merchantAssigned.estimatedDeliveryAt]).toEqual(["AVAILABLE", "string", "string"]);
    const publicAssigned = await publicBody(near.code);
    expect([publicAssigned.locationStatus, publicAssigned.driverLocation, publicAssigned.estimatedPickupAt, publicAssigned.estimatedDeliveryAt]).toEqual(["LOCATION_UNAVAILABLE", null, null, null]);
    expect(await page(near.code)).toEqual(['<p class="eta">No arrival estimate yet.</p>']);

    for (const s of [near, far]) await s.move("OUT_FOR_DELIVERY");
    // The merchant's estimates come from the exact fixes and tell them apart; the public answers do not.
    expect((await merchantBody(near.shipmentId)).estimatedDeliveryAt).not.toBe((await merchantBody(far.shipmentId)).estimatedDeliveryAt);
    const [nearView, farView] = [await publicBody(near.code), await publicBody(far.code)];
    expect(nearView).toEqual(farView);
    expect(nearView).toMatchObject({ locationStatus: "AVAILABLE", driverLocation: { latitude: 24.68, longitude: 46.7, accuracyMetres: 500 }, estimatedPickupAt: null });
    expect(Date.parse(nearView.estimatedDeliveryAt as string) % 60_000).toBe(0);
    const nearPage = await page(near.code);
    expect(nearPage).toHaveLength(1);
    expect(nearPage[0]).toContain(`datetime="${nearView.estimatedDeliveryAt as string}"`);
    expect(await page(far.code)).toEqual(nearPage);
  });

  it("tells the customer page why a delivery was cancelled or failed in its own words, never the merchant's or driver's code", async () => {
    const ends: [StateName[], string, string][] = [
      [["PENDING_APPROVAL", "CANCELLED"], "CUSTOMER_REQUEST", "The sender cancelled it at the customer's request."],
      [["PENDING_APPROVAL", "CANCELLED"], "REJECTED_BY_OPERATOR", "Tawsil could not accept this delivery."],
      [["PENDING_APPROVAL", "READY_FOR_DISPATCH", "CANCELLED"], "VIP_FRAUD_REVIEW", "The sender cancelled it."],
      [["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED", "ACCEPTED", "PICKED_UP", "DELIVERY_FAILED"], "RECIPIENT_UNREACHABLE", "The driver could not reach the recipient."],
      [["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED", "ACCEPTED", "PICKED_UP", "DELIVERY_FAILED"], "DRIVER_VEHICLE_BREAKDOWN", "The delivery could not be completed."],
    ];
    for (const [states, code, said] of ends) {
      const s = tracked();
      for (const state of states) await s.move(state, stack.now, state === states.at(-1) ? code : undefined);
      const html = await (await fetch(`${stack.gateway.baseUrl}/t/${s.code}`, { headers: { "accept-language": "en" } })).text();
      expect(html.match(/<p id="reason">(.*?)<\/p>/)?.[1]).toBe(said.replace("'", "&#39;"));
      expect(html).not.toContain(code);
      expect(JSON.stringify(await publicBody(s.code))).not.toContain(code);
    }
  });

  it("expires 7 days after the terminal state: 200 until then, 410 TRACKING_LINK_EXPIRED from that instant", async () => {
    const s = tracked();
    const endedAt = new Date(stack.now.getTime());
    await s.move("PENDING_APPROVAL");
    await s.move("CANCELLED", endedAt);
    const saved = stack.now;
    try {
      stack.now = new Date(endedAt.getTime() + 7 * 24 * 3600_000 - 1);
      expect((await publicBody(s.code)).status).toBe("CANCELLED");
      stack.now = new Date(endedAt.getTime() + 7 * 24 * 3600_000);
      await problem(await publicView(s.code), 410, "TRACKING_LINK_EXPIRED");
      const arabic = await publicView(s.code, { "accept-language": "ar" });
      expect(arabic.headers.get("content-language")).toBe("ar");
      expect(((await arabic.json()) as { title: string }).title).toBe("انتهت صلاحية رابط التتبع");
      // The merchant's own read is not a link: it still answers.
      expect((await merchantBody(s.shipmentId)).lifecycleState).toBe("CANCELLED");
    } finally {
      stack.now = saved;
    }
  });

  it("is 404 TRACKING_LINK_NOT_FOUND for a code neither the projection nor the shipment service knows, 400 for a malformed one", async () => {
    await problem(await publicView(newCode()), 404, "TRACKING_LINK_NOT_FOUND");
    await problem(await publicView("too-short"), 400, "INVALID_PARAMETER");
    await problem(await publicView(`${newCode().slice(0, 42)}!`), 400, "INVALID_PARAMETER");
  });
});

describe("the public rate limit", () => {
  it("allows 120 reads per minute per code, then 429 with Retry-After and RateLimit headers; other codes are unaffected", async () => {
    const code = newCode();
    for (let i = 0; i < 120; i++) expect((await publicView(code)).status).toBe(404);
    const limited = await publicView(code);
    await problem(limited.clone(), 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-policy")).toBe('"tracking-link";q=120;w=60');
    expect((await publicView(newCode())).status).toBe(404);
  });
});

/** A shipment created in the shipment service itself, whose events the test never publishes. */
async function unprojected() {
  const merchantId = await stack.shipments.newMerchant(`TRK${randomUUID().slice(0, 6).toUpperCase()}`);
  const reference = `TRK-${randomUUID().slice(0, 8)}`;
  const { shipment } = await stack.shipments.client.createShipment({
    merchantId,
    idempotency: idempotency(`track-${randomUUID()}`, { reference }),
    draft: {
      externalReference: reference,
      pickup: { case: "pickupCoordinate", value: { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 } },
      recipientName: "Sara",
      recipientPhone: "+966512345678",
      destination: { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 },
      items: [{ description: "Shoes", quantity: 1, weightKilograms: "1.000" }],
    },
  });
  return { merchantId, shipment: shipment!, code: shipment!.trackingUrl.split("/t/")[1]! };
}

describe("no window of 404s", () => {
  it("expires a link the shipment service answers, 7 days after its terminal state like any other", async () => {
    const { merchantId, shipment, code } = await unprojected();
    const id = shipment.shipmentId;
    await stack.shipments.client.cancelShipment({ merchantId, shipmentId: id, reasonCode: "CUSTOMER_REQUEST", idempotency: { ...idempotency(id, "cancel"), clientId: "" } });
    const [row] = await query<{ terminal_at: Date }>(stack.shipments.databaseUrl, "SELECT terminal_at FROM shipment WHERE id = $1::uuid", id);
    const endedAt = row!.terminal_at;
    const saved = stack.now;
    try {
      stack.now = new Date(endedAt.getTime() + 7 * 24 * 3600_000 - 1);
      expect(summary(await publicBody(code))).toEqual(["CANCELLED", "TERMINAL_NO_LIVE_LOCATION", 60, "no position"]);
      stack.now = new Date(endedAt.getTime() + 7 * 24 * 3600_000);
      await problem(await publicView(code), 410, "TRACKING_LINK_EXPIRED");
    } finally {
      stack.now = saved;
    }
  });

  it("answers a shipment the projection has not seen yet from the shipment service, then from the projection", async () => {
    const { shipment, code } = await unprojected();
    // The shipment service publishes nothing here: only the fallback can know this shipment.
    const early = await publicBody(code);
    expect(summary(early)).toEqual(["CREATED", "NOT_ASSIGNED", 30, "no position"]);
    expect((early.history as { status: string }[]).map((h) => h.status)).toEqual(["CREATED"]);
    await problem(await merchantView(shipment.shipmentId), 403, "ACCESS_DENIED"); // the token's merchant is another one

    // The shipment service's own outbox events carry the code's hash: once they are applied, the
    // projection answers, and the merchant's view of them is its own.
    const events = await query<{ event_id: string; payload: Uint8Array }>(
      stack.shipments.databaseUrl,
      "SELECT event_id::text, payload FROM outbox_event WHERE key = $1 ORDER BY seq",
      shipment.shipmentId,
    );
    expect(events.map((e) => fromBinary(ShipmentChangedSchema, e.payload).trackingCodeSha256)).toEqual(events.map(() => sha256(code)));
    for (const e of events) await stack.publish("shipments", shipment.shipmentId, new Uint8Array(e.payload), e.event_id);
    const { shipment: found } = await stack.shipments.client.findTrackedShipment({ key: { case: "trackingCodeSha256", value: sha256(code) } });
    expect(found?.shipmentId).toBe(shipment.shipmentId);
    await stack.shipments.close(); // the projection alone answers now
    stack.shipmentsClosed = true;
    expect(summary(await publicBody(code))).toEqual(["CREATED", "NOT_ASSIGNED", 30, "no position"]);
  });
});
