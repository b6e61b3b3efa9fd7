import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema, FieldViolationsSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { describe, expect, it } from "vitest";
import { ProblemError } from "../problem/problem-error";
import { inRequestShape, merchantField } from "./violation-fields";

/** Every field the shipment service reports a violation on (services/shipment: draft rules, create, cancel). */
const SERVICE_FIELDS: Record<string, { A: string; B: string }> = {
  external_reference: { A: "reference", B: "externalReference" },
  pickup: { A: "pickup", B: "pickupLocationCode" },
  saved_location_code: { A: "pickup.savedLocationCode", B: "pickupLocationCode" },
  pickup_coordinate: { A: "pickup", B: "body" },
  branch_code: { A: "body", B: "branchCode" },
  recipient_name: { A: "recipient.name", B: "recipient.name" },
  recipient_phone: { A: "recipient.mobile", B: "recipient.phone" },
  alternate_contact_name: { A: "body", B: "recipient.alternateContactName" },
  alternate_contact_phone: { A: "body", B: "recipient.alternateContactPhone" },
  destination: { A: "destination", B: "destination" },
  items: { A: "parcel", B: "items" },
  "items[0].description": { A: "parcel.description", B: "items[0].description" },
  "items[0].quantity": { A: "parcel.pieces", B: "items[0].quantity" },
  "items[0].weight_kilograms": { A: "parcel.weightKg", B: "items[0].weightKilograms" },
  "items[7].length_centimetres": { A: "parcel", B: "items[7].lengthCentimetres" },
  "items[7].width_centimetres": { A: "parcel", B: "items[7].widthCentimetres" },
  "items[7].height_centimetres": { A: "parcel", B: "items[7].heightCentimetres" },
  total_weight_kilograms: { A: "parcel.weightKg", B: "items" },
  declared_value: { A: "body", B: "declaredValue" },
  cod_amount: { A: "codAmount", B: "codAmount" },
  payment_method: { A: "codAmount", B: "paymentMethod" },
  pickup_window_start: { A: "pickupWindow.start", B: "pickupWindowStart" },
  pickup_window_end: { A: "pickupWindow.end", B: "pickupWindowEnd" },
  requirements: { A: "body", B: "requirements" },
  "requirements[3]": { A: "body", B: "requirements[3]" },
  reason_code: { A: "reason", B: "reasonCode" },
};

describe("merchantField", () => {
  it("names every field the shipment service reports as the merchant's field of each shape", () => {
    for (const [field, expected] of Object.entries(SERVICE_FIELDS)) {
      expect({ field, A: merchantField("A", field), B: merchantField("B", field) }).toEqual({ field, ...expected });
    }
  });

  it("never lets an internal name through: an unknown field is the body", () => {
    expect(merchantField("B", "carrier_margin")).toBe("body");
    expect(merchantField("A", "items[0].secret_field")).toBe("parcel");
  });
});

describe("inRequestShape", () => {
  const refusal = (violations: { field: string; code: string; params?: Record<string, string> }[]) =>
    new ConnectError("the shipment breaks rules", Code.InvalidArgument, undefined, [
      { desc: ErrorReasonSchema, value: create(ErrorReasonSchema, { reason: "VALIDATION_FAILED" }) },
      { desc: FieldViolationsSchema, value: create(FieldViolationsSchema, { violations: violations.map((v) => ({ params: {}, ...v })) }) },
    ]);

  it("rewords the service's violations in the request's shape, messages from code and params", () => {
    const error = refusal([
      { field: "items[0].weight_kilograms", code: "NOT_MULTIPLE_OF", params: { multipleOf: "0.001" } },
      { field: "cod_amount", code: "OUT_OF_RANGE", params: { min: "0", max: "10000000" } },
      { field: "total_weight_kilograms", code: "OUT_OF_RANGE", params: { min: "0", exclusive: "true" } },
      { field: "destination", code: "OUT_OF_RANGE" },
    ]);
    const problem = inRequestShape("A", error) as ProblemError;
    expect(problem).toBeInstanceOf(ProblemError);
    expect(problem.code).toBe("VALIDATION_FAILED");
    expect(problem.extra.violations?.map((v) => ({ field: v.field, code: v.code, en: v.message.en }))).toEqual([
      { field: "parcel.weightKg", code: "NOT_MULTIPLE_OF", en: "must be a multiple of 0.001" },
      { field: "codAmount", code: "OUT_OF_RANGE", en: "must be between 0 and 10000000" },
      { field: "parcel.weightKg", code: "OUT_OF_RANGE", en: "must be greater than 0" },
      { field: "destination", code: "OUT_OF_RANGE", en: "is out of range" },
    ]);
    const inB = inRequestShape("B", error) as ProblemError;
    expect(inB.extra.violations?.map((v) => v.field)).toEqual(["items[0].weightKilograms", "codAmount", "items", "destination"]);
  });

  it("leaves any other error as it was", () => {
    const other = new ConnectError("down", Code.Unavailable);
    expect(inRequestShape("A", other)).toBe(other);
  });
});
