import { describe, expect, it } from "vitest";
import { Money } from "./money";
import { carrierCost, marginOf } from "./carrier-cost";

describe("carrier cost and margin", () => {
  it("costs a fixed fee per drop plus a fee per km, per service level", () => {
    expect(carrierCost("BIKE", 10_000).toFixed(2)).toBe("11.50");
    expect(carrierCost("CAR", 10_000).toFixed(2)).toBe("17.50");
    expect(carrierCost("VAN", 0).toFixed(2)).toBe("16.00");
    expect(carrierCost("COLD_CHAIN_VAN", 2_500).toFixed(2)).toBe("28.75");
  });

  it("is the price net of VAT minus the carrier cost, negative when the delivery loses money", () => {
    expect(marginOf(new Money("20.00"), "CAR", 10_000).toFixed(2)).toBe("2.50");
    expect(marginOf(new Money("15.00"), "CAR", 10_000).isNegative()).toBe(true);
  });
});
