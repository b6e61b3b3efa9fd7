import { describe, expect, it } from "vitest";
import { afterWrongPin, assertPinUnlocked, DeliveryPinLockedError, newDeliveryPin, pinMatches, proofViolations, type ProofTarget } from "./proof-of-delivery";

const now = new Date("2026-11-27T12:00:00.000Z");
const target = (fields: Partial<ProofTarget> = {}): ProofTarget => ({
  requirements: ["PIN_ON_DELIVERY"],
  paymentMethod: "PREPAID",
  codAmount: "0.00",
  currency: "SAR",
  deliveryPin: "0042",
  timelineCount: 0,
  ...fields,
});
const proof = { driverId: "0190a0b0-0000-7000-8000-000000000001", pin: "", evidenceIds: [], codCollected: null };

describe("the delivery PIN", () => {
  it("is made for PIN_ON_DELIVERY shipments only, four digits with leading zeros", () => {
    expect(newDeliveryPin(["FRAGILE"])).toBeNull();
    expect(newDeliveryPin(["PIN_ON_DELIVERY"], () => 7)).toBe("0007");
    expect(newDeliveryPin(["PIN_ON_DELIVERY"])).toMatch(/^\d{4}$/);
  });

  it("matches only the shipment's own PIN, and is not asked of a shipment without PIN_ON_DELIVERY", () => {
    expect(pinMatches(target(), "0042")).toBe(true);
    expect(pinMatches(target(), "42")).toBe(false);
    expect(pinMatches(target(), "0043")).toBe(false);
    expect(pinMatches(target(), "")).toBe(false);
    expect(pinMatches(target({ requirements: [], deliveryPin: null }), "")).toBe(true);
    // A PIN_ON_DELIVERY shipment created before PINs existed can never be proven by a guess.
    expect(pinMatches(target({ deliveryPin: null }), "0000")).toBe(false);
  });

  it("holds the step for 10 minutes at the fifth wrong PIN, and starts counting afresh once the hold lapsed", () => {
    let lock = { failures: 0, lockedUntil: null as Date | null };
    for (let i = 0; i < 4; i++) lock = afterWrongPin(lock, now);
    expect(lock).toEqual({ failures: 4, lockedUntil: null });
    lock = afterWrongPin(lock, now);
    expect(lock).toEqual({ failures: 5, lockedUntil: new Date(now.getTime() + 600_000) });
    expect(() => assertPinUnlocked(lock, new Date(now.getTime() + 599_500))).toThrow(DeliveryPinLockedError);
    const held = (() => {
      try {
        assertPinUnlocked(lock, new Date(now.getTime() + 1_000));
        return null;
      } catch (error) {
        return error as DeliveryPinLockedError;
      }
    })();
    expect(held?.retryAfterSeconds).toBe(599);
    const later = new Date(now.getTime() + 600_000);
    expect(() => assertPinUnlocked(lock, later)).not.toThrow();
    expect(afterWrongPin(lock, later)).toEqual({ failures: 1, lockedUntil: null });
  });
});

describe("cash collected", () => {
  const cod = target({ requirements: [], deliveryPin: null, paymentMethod: "COD", codAmount: "120.50" });

  it("must equal the COD amount in amount and currency, however the decimals are written", () => {
    expect(proofViolations(cod, { ...proof, codCollected: { currency: "SAR", amount: "120.5" } })).toEqual([]);
    expect(proofViolations(cod, { ...proof, codCollected: { currency: "SAR", amount: "120.50" } })).toEqual([]);
    expect(proofViolations(cod, { ...proof, codCollected: { currency: "SAR", amount: "120.51" } })).toEqual([
      { field: "cod_collected", code: "INCONSISTENT_VALUE", params: { expected: "120.50 SAR" } },
    ]);
    expect(proofViolations(cod, { ...proof, codCollected: { currency: "SAR", amount: "1.2e2" } })).toHaveLength(1);
    expect(proofViolations(cod, { ...proof, codCollected: { currency: "USD", amount: "120.50" } })).toHaveLength(1);
    expect(proofViolations(cod, proof)).toEqual([{ field: "cod_collected", code: "REQUIRED" }]);
  });

  it("is not asked of a prepaid shipment", () => {
    expect(proofViolations(target({ requirements: [], deliveryPin: null }), proof)).toEqual([]);
  });
});
