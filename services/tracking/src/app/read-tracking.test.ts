import { describe, expect, it } from "vitest";
import type { ShipmentState } from "../domain/lifecycle";
import type { TrackedShipment } from "../domain/projection";
import { ReadTracking } from "./read-tracking";

const CODE = "Qm7v2Hx9kL4pT1sW8nB3yC6dF0eG5jK2lM9oP4rS7uV";

function tracked(state: ShipmentState): TrackedShipment {
  return {
    shipmentId: "0190a0b0-0000-7000-8000-000000000001",
    merchantId: "0190a0b0-0000-7000-8000-000000000002",
    state,
    pickup: { latitudeMicro: 24_690_123, longitudeMicro: 46_685_456 },
    destination: { latitudeMicro: 24_666_789, longitudeMicro: 46_730_321 },
    cityCode: "RUH",
    terminalAt: state === "DELIVERED" ? new Date() : null,
    reasonCode: null,
    history: [],
    fix: null,
  };
}

/**
 * A read over a projection in `state`, whose shipment service holds the shipment in `current` (the
 * same state unless given) and tells the PIN while OUT_FOR_DELIVERY; and how often it was asked.
 */
function readingIn(state: ShipmentState, current: TrackedShipment = tracked(state)) {
  const asked: Uint8Array[] = [];
  const read = new ReadTracking({
    projections: { findById: async () => tracked(state), findByCodeHash: async () => tracked(state) },
    fallback: {
      byId: async () => null,
      byCodeHash: async () => null,
      withDeliveryPin: async (hash) => {
        asked.push(hash);
        return { shipment: current, deliveryPin: current.state === "OUT_FOR_DELIVERY" ? "0427" : null };
      },
    },
    clock: () => new Date(),
  });
  return { read, asked };
}

describe("the delivery PIN of the customer's read", () => {
  it("is asked of the shipment service and answered only for the page's read of an OUT_FOR_DELIVERY shipment", async () => {
    const states: ShipmentState[] = ["READY_FOR_DISPATCH", "OFFERED", "ACCEPTED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED", "DELIVERY_FAILED", "CANCELLED"];
    const shown = await Promise.all(
      states.map(async (state) => {
        const { read, asked } = readingIn(state);
        const page = await read.forCustomer(CODE, true);
        const json = await read.forCustomer(CODE);
        return [state, page.deliveryPin, json.deliveryPin, asked.length];
      }),
    );
    expect(shown).toEqual(states.map((state) => (state === "OUT_FOR_DELIVERY" ? [state, "0427", null, 1] : [state, null, null, 0])));
  });

  it("says the shipment service's newer state when the projection still says OUT_FOR_DELIVERY: never that status without its PIN", async () => {
    const deliveredAt = new Date("2026-11-29T08:00:00Z");
    const { read, asked } = readingIn("OUT_FOR_DELIVERY", { ...tracked("DELIVERED"), terminalAt: deliveredAt });
    const page = await read.forCustomer(CODE, true);
    expect(asked).toHaveLength(1);
    expect([page.status, page.deliveryPin, page.history.at(-1)]).toEqual(["DELIVERED", null, { status: "DELIVERED", at: deliveredAt }]);
    // The public JSON asks nobody: the projection's status, as before.
    expect((await read.forCustomer(CODE)).status).toBe("OUT_FOR_DELIVERY");
  });
});
