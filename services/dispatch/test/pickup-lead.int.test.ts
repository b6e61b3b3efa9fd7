import { randomUUID } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AL_MALAZ, eventually, SAQR_BIKE, startDispatchStack, type DispatchStack } from "./stack";
import { query } from "./support";

// decisions.md section 4: a shipment whose pickup window starts later is offered no earlier than
// the lead time before the window. Here the lead is 3 s, and the safety net an hour away: only the
// dispatcher's release timer can offer a held job.
const LEAD_MS = 3_000;
let stack: DispatchStack;
let driver: string;

beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "lead", {
    PICKUP_OFFER_LEAD_MS: String(LEAD_MS),
    DISPATCHER_SAFETY_NET_MS: "3600000",
  });
  driver = randomUUID();
  await query(stack.dispatchDb.url, `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at) VALUES ($1::uuid, $2::uuid, 'RUH', 'free', now())`, driver, SAQR_BIKE);
  await stack.drivers.setAvailability({ driverId: driver, available: true, position: AL_MALAZ });
});

afterAll(async () => {
  await stack?.close();
});

const windowFrom = (startInMs: number) => ({
  pickupWindowStart: timestampFromDate(new Date(Date.now() + startInMs)),
  pickupWindowEnd: timestampFromDate(new Date(Date.now() + startInMs + 3_600_000)),
});

const jobOf = async (shipmentId: string) =>
  (await query<{ state: string; offerable_at: Date | null }>(stack.dispatchDb.url, `SELECT state::text AS state, offerable_at FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId))[0];

const offersOf = async (shipmentId: string) =>
  query<{ created_at: Date }>(stack.dispatchDb.url, `SELECT created_at FROM offer WHERE shipment_id = $1::uuid`, shipmentId);

describe("a shipment whose pickup window starts later", () => {
  it("is not offered to a free driver, even one who comes on duty, and can be cancelled", async () => {
    const shipmentId = await stack.createShipment("LEAD-LATER", windowFrom(2 * 3_600_000));
    const job = await eventually(() => jobOf(shipmentId), "the held job");
    expect(job.state).toBe("WAITING");
    expect(job.offerable_at?.getTime()).toBeGreaterThan(Date.now() + 3_600_000);
    // A driver coming on duty looks for the oldest job it can take: the held one is not offered.
    await stack.drivers.setAvailability({ driverId: driver, available: false });
    await stack.drivers.setAvailability({ driverId: driver, available: true, position: AL_MALAZ });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await offersOf(shipmentId)).toEqual([]);
    const { shipment } = await stack.shipments.client.cancelShipment({
      merchantId: stack.merchantId,
      shipmentId,
      reasonCode: "CUSTOMER_REQUEST",
      idempotency: { key: `cancel-${shipmentId}`, clientId: "", fingerprint: "a".repeat(64) },
    });
    expect(shipment?.shipmentId).toBe(shipmentId);
    await eventually(async () => ((await jobOf(shipmentId))?.state === "CANCELLED" ? true : undefined), "the cancelled job", 30_000);
  }, 60_000);

  it("is offered by the release timer once the lead time before its window has come, not before", async () => {
    const shipmentId = await stack.createShipment("LEAD-SOON", windowFrom(LEAD_MS + 4_000));
    const job = await eventually(() => jobOf(shipmentId), "the held job");
    const offerableAt = job.offerable_at;
    expect(job.state).toBe("WAITING");
    expect(offerableAt).not.toBeNull();
    const [offer] = await eventually(async () => {
      const offers = await offersOf(shipmentId);
      return offers.length > 0 ? offers : undefined;
    }, "the offer at the offerable instant", 30_000);
    expect(offer!.created_at.getTime()).toBeGreaterThanOrEqual(offerableAt!.getTime());
    expect(await jobOf(shipmentId)).toMatchObject({ state: "OFFERED", offerable_at: null });
  }, 60_000);
});
