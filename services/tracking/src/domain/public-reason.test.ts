import { describe, expect, it } from "vitest";
import { publicReasonOf } from "./public-reason";

describe("the reason a customer is told", () => {
  it("names the codes that mean the same to everyone, and reads any other as who ended the delivery", () => {
    const said = [
      ["CANCELLED", "CUSTOMER_REQUEST"],
      ["CANCELLED", "REJECTED_BY_OPERATOR"],
      ["CANCELLED", "FRAUD_CHECK"],
      ["CANCELLED", null],
      ["DELIVERY_FAILED", "RECIPIENT_UNREACHABLE"],
      ["DELIVERY_FAILED", "RECIPIENT_UNAVAILABLE"],
      ["DELIVERY_FAILED", "ADDRESS_NOT_FOUND"],
      ["DELIVERY_FAILED", "LATE"],
    ] as const;
    expect(said.map(([state, code]) => publicReasonOf(state, code))).toEqual([
      "CUSTOMER_REQUEST",
      "NOT_ACCEPTED",
      "CANCELLED_BY_SENDER",
      "CANCELLED_BY_SENDER",
      "RECIPIENT_UNREACHABLE",
      "RECIPIENT_UNREACHABLE",
      "ADDRESS_NOT_FOUND",
      "NOT_COMPLETED",
    ]);
  });

  it("gives none while the delivery goes on or once it is delivered, whatever code the shipment carries", () => {
    expect((["READY_FOR_DISPATCH", "OUT_FOR_DELIVERY", "DELIVERED"] as const).map((state) => publicReasonOf(state, "CUSTOMER_REQUEST"))).toEqual([null, null, null]);
  });
});
