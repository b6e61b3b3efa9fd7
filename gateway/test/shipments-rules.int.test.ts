import { problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { accessToken, startStack, type Stack } from "./support/stack";

/**
 * The shipment operations' request rules, answered by the gateway before the shipment service is
 * asked anything (this stack runs none). What the service decides is tested end to end.
 */
const adminUrl = inject("databaseAdminUrl");
let stack: Stack;
let writer: string;
let reader: string;

beforeAll(async () => {
  stack = await startStack({ adminUrl, environment: "sandbox" });
  [writer, reader] = await Promise.all([accessToken(stack.baseUrl, stack.merchant.full), accessToken(stack.baseUrl, stack.merchant.readOnly)]);
});
afterAll(async () => stack?.close());

const SHAPE_A = {
  reference: "ORDER-1001",
  pickup: { savedLocationCode: "RUH-WH-01" },
  destination: { latitude: 24.774265, longitude: 46.738586 },
  recipient: { name: "Noura", mobile: "0512345678" },
};
const SHAPE_B = {
  externalReference: "ORDER-2001",
  pickupLocationCode: "RUH-WH-01",
  recipient: { name: "Fahad", phone: "+966512345678" },
  destination: { latitude: 24.774265, longitude: 46.738586 },
  items: [{ description: "Shoes", quantity: 1, weightKilograms: 1.2 }],
};

function send(path: string, body: unknown, headers: Record<string, string> = {}, token = writer): Promise<Response> {
  return fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function problem(res: Response, status: number, code: string): Promise<{ violations?: { field: string; code: string }[] }> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { code: string; violations?: { field: string; code: string }[] };
  expect(problemSchemaErrors(body)).toEqual([]);
  expect(body.code).toBe(code);
  return body;
}

const fields = (body: { violations?: { field: string; code: string }[] }) => (body.violations ?? []).map((v) => `${v.field} ${v.code}`);

describe("create: request rules", () => {
  it("needs exactly one of reference (shape A) or externalReference (shape B)", async () => {
    expect(fields(await problem(await send("/v2/external/shipments", { recipient: {} }), 422, "VALIDATION_FAILED"))).toEqual(["body REQUIRED"]);
    expect(fields(await problem(await send("/v2/external/shipments", { ...SHAPE_A, externalReference: "X" }), 422, "VALIDATION_FAILED"))).toEqual([
      "externalReference INCONSISTENT_VALUE",
    ]);
  });

  it("checks shape A strictly: pickup forms, mobile pattern, parcel bounds, COD step, unknown properties", async () => {
    const body = {
      ...SHAPE_A,
      pickup: { savedLocationCode: "RUH-WH-01", latitude: 24.7 },
      recipient: { name: "", mobile: "0712345678", email: "x@y" },
      parcel: { pieces: 0, weightKg: 0 },
      codAmount: 10.005,
      pickupWindow: { start: "2026-11-26T10:00:00+03:00" },
      gift: true,
    };
    expect(fields(await problem(await send("/v2/external/shipments", body), 422, "VALIDATION_FAILED"))).toEqual([
      "pickup INCONSISTENT_VALUE",
      "recipient.name TOO_SHORT",
      "recipient.mobile PATTERN_MISMATCH",
      "recipient.email UNKNOWN_PROPERTY",
      "parcel.pieces OUT_OF_RANGE",
      "parcel.weightKg OUT_OF_RANGE",
      "codAmount NOT_MULTIPLE_OF",
      "pickupWindow.start INVALID_FORMAT",
      "pickupWindow.end REQUIRED",
      "gift UNKNOWN_PROPERTY",
    ]);
    expect(fields(await problem(await send("/v2/external/shipments", { ...SHAPE_A, pickup: { latitude: 24.7 } }), 422, "VALIDATION_FAILED"))).toEqual([
      "pickup.longitude REQUIRED",
    ]);
  });

  it("checks shape B strictly: required fields, item bounds, requirements catalogue, window pairs", async () => {
    const body = {
      externalReference: "ORDER-3",
      recipient: { name: "A", phone: "0512345678" },
      destination: { latitude: 24.774265, longitude: 46.738586, cityCode: "Riyadh" },
      items: [{ description: "Box", quantity: 1001, weightKilograms: 1000.5, lengthCentimetres: 0 }],
      requirements: ["COLD_CHAIN", "TELEPORT", "bad"],
      currency: "sar",
      pickupWindowStart: "2026-11-26T10:00:00Z",
    };
    expect(fields(await problem(await send("/v2/external/shipments", body), 422, "VALIDATION_FAILED"))).toEqual([
      "pickupLocationCode REQUIRED",
      "destination.cityCode PATTERN_MISMATCH",
      "currency PATTERN_MISMATCH",
      "items[0].quantity OUT_OF_RANGE",
      "items[0].weightKilograms OUT_OF_RANGE",
      "items[0].lengthCentimetres OUT_OF_RANGE",
      "requirements[1] UNSUPPORTED_VALUE",
      "requirements[2] PATTERN_MISMATCH",
    ]);
    expect(fields(await problem(await send("/v2/external/shipments", { ...SHAPE_B, items: [] }), 422, "VALIDATION_FAILED"))).toEqual(["items TOO_FEW_ITEMS"]);
    expect(fields(await problem(await send("/v2/external/shipments", { ...SHAPE_B, pickupWindowEnd: "2026-11-26T10:00:00Z" }), 422, "VALIDATION_FAILED"))).toEqual([
      "pickupWindowStart REQUIRED",
    ]);
  });

  it("checks the service's weight, dimension and money bounds itself, on the merchant's fields of each shape", async () => {
    const a = { ...SHAPE_A, parcel: { pieces: 2, weightKg: 2000.5 }, codAmount: 10_000_000.01 };
    expect(fields(await problem(await send("/v2/external/shipments", a), 422, "VALIDATION_FAILED"))).toEqual(["parcel.weightKg OUT_OF_RANGE", "codAmount OUT_OF_RANGE"]);
    const b = { ...SHAPE_B, items: [{ description: "Shoes", quantity: 1, weightKilograms: 0.0001, heightCentimetres: 12.3456 }], declaredValue: -1 };
    expect(fields(await problem(await send("/v2/external/shipments", b), 422, "VALIDATION_FAILED"))).toEqual([
      "declaredValue OUT_OF_RANGE",
      "items[0].weightKilograms NOT_MULTIPLE_OF",
      "items[0].heightCentimetres NOT_MULTIPLE_OF",
    ]);
  });

  it("refuses a NUL character in any string of either shape with 422 INVALID_FORMAT, never passing it on (PostgreSQL text cannot hold it)", async () => {
    const a = { ...SHAPE_A, reference: "ORDER\u0000", recipient: { name: "No\u0000ura", mobile: "0512345678" } };
    expect(fields(await problem(await send("/v2/external/shipments", a), 422, "VALIDATION_FAILED"))).toEqual(["reference INVALID_FORMAT", "recipient.name INVALID_FORMAT"]);
    const b = { ...SHAPE_B, items: [{ description: "\u0000", quantity: 1, weightKilograms: 1.2 }] };
    expect(fields(await problem(await send("/v2/external/shipments", b), 422, "VALIDATION_FAILED"))).toEqual(["items[0].description INVALID_FORMAT"]);
  });

  it("rejects an Idempotency-Key outside 16..128 characters with 400 INVALID_PARAMETER", async () => {
    await problem(await send("/v2/external/shipments", SHAPE_A, { "idempotency-key": "too-short" }), 400, "INVALID_PARAMETER");
    await problem(await send("/v2/external/shipments", SHAPE_A, { "idempotency-key": "k".repeat(129) }), 400, "INVALID_PARAMETER");
  });

  it("needs shipments:write", async () => {
    await problem(await send("/v2/external/shipments", SHAPE_A, {}, reader), 403, "ACCESS_DENIED");
  });
});

describe("create: wording a merchant can act on", () => {
  it("words the mobile rule with example numbers, not a regular expression, in both languages and both shapes", async () => {
    const cases = [
      { body: { ...SHAPE_A, recipient: { name: "Noura", mobile: "0712345678" } }, field: "recipient.mobile" },
      { body: { ...SHAPE_B, recipient: { name: "Fahad", phone: "+96651234" } }, field: "recipient.phone" },
      { body: { ...SHAPE_B, recipient: { name: "Fahad", phone: "0512345678", alternateContactPhone: "12" } }, field: "recipient.alternateContactPhone" },
    ];
    for (const { body, field } of cases) {
      for (const language of ["en", "ar"]) {
        const res = await send("/v2/external/shipments", body, { "accept-language": language });
        const problemBody = (await problem(res, 422, "VALIDATION_FAILED")) as { violations: { field: string; code: string; message: string }[] };
        const violation = problemBody.violations.find((v) => v.field === field);
        expect({ field, language, code: violation?.code }).toEqual({ field, language, code: "PATTERN_MISMATCH" });
        expect(violation!.message).toContain("0512345678");
        expect(violation!.message).toContain("+966512345678");
        expect(violation!.message).not.toMatch(/[\\^$[\]{}|]/);
      }
    }
  });
});

describe("read, list and cancel: request rules", () => {
  const get = (path: string, token = reader) => fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it("rejects a malformed shipment id with 400 INVALID_PARAMETER", async () => {
    await problem(await get("/v2/external/shipments/not-a-uuid"), 400, "INVALID_PARAMETER");
    await problem(await send("/v2/external/shipments/12345/cancel", { reason: "CUSTOMER_REQUEST" }), 400, "INVALID_PARAMETER");
  });

  it("rejects list parameters outside the rules with 400, never clamping", async () => {
    for (const query of ["limit=0", "limit=101", "limit=ten", "limit=1.5", "state=LOST", "colour=red", "limit=5&limit=6", `externalReference=${"r".repeat(129)}`]) {
      await problem(await get(`/v2/external/shipments?${query}`), 400, "INVALID_PARAMETER");
    }
    await problem(await get("/v2/external/shipments?cursor=not%20a%20cursor"), 400, "INVALID_CURSOR");
  });

  it("names every bad list parameter, not only the first, in violations and in the detail", async () => {
    const body = (await problem(await get(`/v2/external/shipments?limit=0&state=LOST&colour=red&externalReference=${"r".repeat(129)}`), 400, "INVALID_PARAMETER")) as {
      detail: string;
      violations?: { field: string; code: string; message: string }[];
    };
    expect((body.violations ?? []).map((v) => `${v.field} ${v.code}`)).toEqual([
      "colour UNKNOWN_PROPERTY",
      "limit OUT_OF_RANGE",
      "state UNSUPPORTED_VALUE",
      "externalReference TOO_LONG",
    ]);
    for (const name of ["colour", "limit", "state", "externalReference"]) expect({ name, inDetail: body.detail.includes(name) }).toEqual({ name, inDetail: true });
    const arabic = await fetch(`${stack.baseUrl}/v2/external/shipments?limit=ten&state=LOST`, { headers: { authorization: `Bearer ${reader}`, "accept-language": "ar" } });
    const ar = (await problem(arabic, 400, "INVALID_PARAMETER")) as { detail: string; violations?: { field: string; code: string }[] };
    expect((ar.violations ?? []).map((v) => `${v.field} ${v.code}`)).toEqual(["limit INVALID_TYPE", "state UNSUPPORTED_VALUE"]);
    expect(ar.detail).toMatch(/limit[^]*state/);
    // One bad parameter still answers as before, and a malformed cursor alone is still INVALID_CURSOR.
    expect(((await problem(await get("/v2/external/shipments?limit=101"), 400, "INVALID_PARAMETER")) as { detail: string }).detail).toContain("limit");
    await problem(await get("/v2/external/shipments?cursor=not%20a%20cursor"), 400, "INVALID_CURSOR");
  });

  it("rejects an externalReference holding a NUL character with 400 INVALID_PARAMETER", async () => {
    await problem(await get("/v2/external/shipments?externalReference=%00"), 400, "INVALID_PARAMETER");
    await problem(await get("/v2/external/shipments?externalReference=ORDER%00-1"), 400, "INVALID_PARAMETER");
  });

  it("quotes an unknown query parameter's name only so far: the detail stays within 512 characters", async () => {
    const name = "z".repeat(600);
    const body = (await problem(await get(`/v2/external/shipments?${name}=1`), 400, "INVALID_PARAMETER")) as { detail?: string };
    expect(body.detail?.length).toBeLessThanOrEqual(512);
    expect(body.detail).toContain("z".repeat(32));
    await problem(await get(`/v2/external/shipments?cursor=${"a".repeat(257)}`), 400, "INVALID_CURSOR");
  });

  it("checks both cancel shapes strictly", async () => {
    const path = "/v2/external/shipments/0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b/cancel";
    expect(fields(await problem(await send(path, {}), 422, "VALIDATION_FAILED"))).toEqual(["body REQUIRED"]);
    expect(fields(await problem(await send(path, { reason: "lower case" }), 422, "VALIDATION_FAILED"))).toEqual(["reason PATTERN_MISMATCH"]);
    expect(fields(await problem(await send(path, { reasonCode: "CHANGED_MIND", note: "x" }), 422, "VALIDATION_FAILED"))).toEqual(["note UNKNOWN_PROPERTY"]);
    await problem(await send(path, { reason: "CHANGED_MIND" }, {}, reader), 403, "ACCESS_DENIED");
  });

  it("answers unsupported methods with 405 and Allow", async () => {
    const res = await fetch(`${stack.baseUrl}/v2/external/shipments/0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b`, { method: "DELETE" });
    await problem(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    const list = await fetch(`${stack.baseUrl}/v2/external/shipments`, { method: "PUT" });
    expect(list.headers.get("allow")).toBe("GET, POST, HEAD");
  });
});
