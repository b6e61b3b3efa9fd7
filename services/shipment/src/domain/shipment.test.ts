import { describe, expect, it } from "vitest";
import { cancelVerdict, DISPATCH_STEPS, publicStatusOf, SHIPMENT_STATES, type DispatchStep, type ShipmentState } from "./lifecycle";
import { advance, applyDispatchStep, approve, approveByOperator, cancel, created, maskPhone, reject, reserveForOffer, type Shipment } from "./shipment";

const at = new Date("2026-11-27T10:00:00.000Z");
const shipment = (state: ShipmentState, version = 1n): Shipment => ({
  id: "0193a000-0000-7000-8000-000000000001",
  shipmentNumber: "TWS-0000000001",
  merchantId: "0193a000-0000-7000-8000-0000000000aa",
  externalReference: "ORDER-1",
  state,
  version,
  recipientName: "Sara",
  recipientPhone: "+966512345678",
  alternateContactName: null,
  alternateContactPhone: null,
  totalWeightKilograms: "1.000",
  declaredValue: "0.00",
  codAmount: "0.00",
  currency: "SAR",
  paymentMethod: "PREPAID",
  pickupWindow: null,
  createdAt: at,
  approvedAt: null,
  pickup: { coordinate: { latitudeMicro: 1, longitudeMicro: 1 }, addressLine: "a", cityCode: "RUH" },
  destination: { coordinate: { latitudeMicro: 2, longitudeMicro: 2 }, addressLine: "b", cityCode: "RUH" },
  items: [],
  requirements: [],
  timelineMedia: [],
    deliveryPin: null,
  branchCode: null,
  reasonCode: null,
  terms: { rateCardId: "x", rateCardVersion: 1, serviceLevel: "BIKE", price: "25.00", distanceMetres: 1 },
});

/** decisions.md section 5, written out independently of the implementation's table. */
const ALLOWED: Record<ShipmentState, ShipmentState[]> = {
  PENDING_APPROVAL: ["READY_FOR_DISPATCH", "CANCELLED"],
  READY_FOR_DISPATCH: ["OFFERED", "CANCELLED"],
  DISPATCH_UNRESOLVED: ["OFFERED", "CANCELLED"],
  OFFERED: ["OFFERED", "DISPATCH_UNRESOLVED", "ACCEPTED"],
  ACCEPTED: ["PICKED_UP"],
  PICKED_UP: ["OUT_FOR_DELIVERY", "DELIVERY_FAILED"],
  OUT_FOR_DELIVERY: ["DELIVERED", "DELIVERY_FAILED"],
  DELIVERED: [],
  DELIVERY_FAILED: [],
  CANCELLED: [],
};

describe("the shipment state machine", () => {
  for (const from of SHIPMENT_STATES) {
    for (const to of SHIPMENT_STATES) {
      const allowed = ALLOWED[from].includes(to);
      it(`${allowed ? "allows" : "refuses"} ${from} -> ${to}`, () => {
        if (allowed) {
          const change = advance(shipment(from, 7n), to);
          expect([change.shipment.state, change.shipment.version, change.previousState]).toEqual([to, 8n, from]);
        } else {
          expect(() => advance(shipment(from), to)).toThrow(expect.objectContaining({ reason: "ILLEGAL_TRANSITION" }));
        }
      });
    }
  }

  it("approves with approvedAt and a change that is not public", () => {
    const change = approve(shipment("PENDING_APPROVAL"), at);
    expect(change).toMatchObject({ previousState: "PENDING_APPROVAL", publicStatusChanged: false, shipment: { state: "READY_FOR_DISPATCH", version: 2n, approvedAt: at } });
  });

  it("creates as one change at version 1: held back in PENDING_APPROVAL, or already READY_FOR_DISPATCH when the automatic checks pass", () => {
    expect(created(shipment("PENDING_APPROVAL"))).toEqual({ previousState: null, publicStatusChanged: true, shipment: shipment("PENDING_APPROVAL") });
    expect(created(shipment("PENDING_APPROVAL"), at)).toEqual({
      previousState: null,
      publicStatusChanged: true,
      shipment: { ...shipment("READY_FOR_DISPATCH"), approvedAt: at, version: 1n },
    });
  });

  it("maps every canonical state to its public status", () => {
    expect(Object.fromEntries(SHIPMENT_STATES.map((state) => [state, publicStatusOf(state)]))).toEqual({
      PENDING_APPROVAL: "CREATED",
      READY_FOR_DISPATCH: "CREATED",
      OFFERED: "CREATED",
      DISPATCH_UNRESOLVED: "CREATED",
      ACCEPTED: "ASSIGNED",
      PICKED_UP: "PICKED_UP",
      OUT_FOR_DELIVERY: "OUT_FOR_DELIVERY",
      DELIVERED: "DELIVERED",
      DELIVERY_FAILED: "FAILED",
      CANCELLED: "CANCELLED",
    });
  });

  it("cancels only before an offer, and says why otherwise", () => {
    expect(Object.fromEntries(SHIPMENT_STATES.map((state) => [state, cancelVerdict(state)]))).toEqual({
      PENDING_APPROVAL: "CANCELLABLE",
      READY_FOR_DISPATCH: "CANCELLABLE",
      DISPATCH_UNRESOLVED: "CANCELLABLE",
      OFFERED: "SHIPMENT_ALREADY_ASSIGNED",
      ACCEPTED: "SHIPMENT_ALREADY_ASSIGNED",
      PICKED_UP: "SHIPMENT_ALREADY_ASSIGNED",
      OUT_FOR_DELIVERY: "SHIPMENT_ALREADY_ASSIGNED",
      DELIVERED: "SHIPMENT_NOT_CANCELLABLE",
      DELIVERY_FAILED: "SHIPMENT_NOT_CANCELLABLE",
      CANCELLED: "SHIPMENT_NOT_CANCELLABLE",
    });
    const change = cancel(shipment("READY_FOR_DISPATCH", 2n), "CUSTOMER_REQUEST");
    expect(change).toMatchObject({ publicStatusChanged: true, shipment: { state: "CANCELLED", version: 3n, reasonCode: "CUSTOMER_REQUEST" } });
    expect(() => cancel(shipment("OFFERED"), "X_Y")).toThrow(expect.objectContaining({ reason: "SHIPMENT_ALREADY_ASSIGNED" }));
    expect(() => cancel(shipment("CANCELLED"), "X_Y")).toThrow(expect.objectContaining({ reason: "SHIPMENT_NOT_CANCELLABLE" }));
  });

  it("reserves for an offer only a reservable shipment at the expected version", () => {
    expect(reserveForOffer(shipment("DISPATCH_UNRESOLVED", 4n), 4n).shipment).toMatchObject({ state: "OFFERED", version: 5n });
    expect(() => reserveForOffer(shipment("READY_FOR_DISPATCH", 4n), 3n)).toThrow(expect.objectContaining({ reason: "VERSION_MISMATCH" }));
    expect(() => reserveForOffer(shipment("CANCELLED", 3n), 3n)).toThrow(expect.objectContaining({ reason: "NOT_RESERVABLE" }));
  });

  /** The dispatch steps of decisions.md section 5: where each applies, where it leads, whether it is public. */
  const STEPS: Record<DispatchStep, { from: ShipmentState[]; to: ShipmentState; public: boolean }> = {
    REOFFER: { from: ["OFFERED"], to: "OFFERED", public: false },
    UNRESOLVED: { from: ["OFFERED"], to: "DISPATCH_UNRESOLVED", public: false },
    ACCEPT: { from: ["OFFERED"], to: "ACCEPTED", public: true },
    PICK_UP: { from: ["ACCEPTED"], to: "PICKED_UP", public: true },
    START_LAST_LEG: { from: ["PICKED_UP"], to: "OUT_FOR_DELIVERY", public: true },
    DELIVER: { from: ["OUT_FOR_DELIVERY"], to: "DELIVERED", public: true },
    FAIL: { from: ["PICKED_UP", "OUT_FOR_DELIVERY"], to: "DELIVERY_FAILED", public: true },
  };

  for (const step of DISPATCH_STEPS) {
    for (const from of SHIPMENT_STATES) {
      const rule = STEPS[step];
      const allowed = rule.from.includes(from);
      it(`${allowed ? "applies" : "refuses"} ${step} to a ${from} shipment`, () => {
        const options = { expectedVersion: 0n, reasonCode: step === "FAIL" ? "RECIPIENT_UNREACHABLE" : null };
        if (allowed) {
          const change = applyDispatchStep(shipment(from, 7n), step, options);
          expect(change).toEqual({
            previousState: from,
            publicStatusChanged: rule.public,
            shipment: { ...shipment(from, 7n), state: rule.to, version: 8n, reasonCode: step === "FAIL" ? "RECIPIENT_UNREACHABLE" : null },
          });
        } else {
          expect(() => applyDispatchStep(shipment(from, 7n), step, options)).toThrow(expect.objectContaining({ reason: "STEP_NOT_ALLOWED" }));
        }
      });
    }
  }

  it("checks the expected version of a dispatch step first, unless it is 0", () => {
    expect(() => applyDispatchStep(shipment("OFFERED", 3n), "ACCEPT", { expectedVersion: 2n, reasonCode: null })).toThrow(
      expect.objectContaining({ kind: "aborted", reason: "VERSION_MISMATCH" }),
    );
    expect(() => applyDispatchStep(shipment("CANCELLED", 3n), "ACCEPT", { expectedVersion: 2n, reasonCode: null })).toThrow(
      expect.objectContaining({ reason: "VERSION_MISMATCH" }),
    );
    expect(applyDispatchStep(shipment("OFFERED", 3n), "ACCEPT", { expectedVersion: 3n, reasonCode: null }).shipment.version).toBe(4n);
  });

  it("masks every character of the phone but the last four", () => {
    expect(maskPhone("+966512345678")).toBe("*********5678");
  });
});

describe("an operator's approval decision", () => {
  it("approves a PENDING_APPROVAL shipment: READY_FOR_DISPATCH, approvedAt set, version + 1, public status unchanged", () => {
    const change = approveByOperator(shipment("PENDING_APPROVAL", 1n), at);
    expect(change.shipment).toMatchObject({ state: "READY_FOR_DISPATCH", approvedAt: at, version: 2n });
    expect(change).toMatchObject({ previousState: "PENDING_APPROVAL", publicStatusChanged: false });
  });

  it("rejects a PENDING_APPROVAL shipment: CANCELLED with REJECTED_BY_OPERATOR, a public status change", () => {
    const change = reject(shipment("PENDING_APPROVAL", 1n));
    expect(change.shipment).toMatchObject({ state: "CANCELLED", reasonCode: "REJECTED_BY_OPERATOR", approvedAt: null, version: 2n });
    expect(change.publicStatusChanged).toBe(true);
  });

  it.each(SHIPMENT_STATES.filter((state) => state !== "PENDING_APPROVAL"))("refuses both decisions for a %s shipment", (state) => {
    for (const decide of [(s: Shipment) => approveByOperator(s, at), reject]) {
      expect(() => decide(shipment(state))).toThrow(expect.objectContaining({ reason: "SHIPMENT_NOT_PENDING_APPROVAL" }));
    }
  });
});
