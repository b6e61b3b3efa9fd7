import { problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { accessToken, startStack, type Stack } from "./support/stack";

/**
 * The estimate's request rules, answered by the gateway before pricing is asked anything. Prices
 * themselves are checked against the real pricing service in the pricing stack's tests.
 */
const adminUrl = inject("databaseAdminUrl");
let stack: Stack;
let token: string;

beforeAll(async () => {
  stack = await startStack({ adminUrl, environment: "sandbox" });
  token = await accessToken(stack.baseUrl, stack.merchant.readOnly);
});
afterAll(async () => stack?.close());

const RIYADH_A = { latitude: 24.7136, longitude: 46.6753 };
const RIYADH_B = { latitude: 24.774265, longitude: 46.738586 };

function estimate(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${stack.baseUrl}/v2/external/shipment-price-estimates`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function violations(res: Response): Promise<string[]> {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { code: string; violations: { field: string; code: string; message: string }[] };
  expect(problemSchemaErrors(body)).toEqual([]);
  expect(body.code).toBe("VALIDATION_FAILED");
  return body.violations.map((v) => `${v.field} ${v.code}`);
}

describe("POST /v2/external/shipment-price-estimates: request rules", () => {
  it("requires pickup and delivery", async () => {
    expect(await violations(await estimate({}))).toEqual(["pickup REQUIRED", "delivery REQUIRED"]);
  });

  it("rejects unknown properties anywhere", async () => {
    expect(await violations(await estimate({ pickup: { ...RIYADH_A, altitude: 600 }, delivery: RIYADH_B, weight: 3 }))).toEqual([
      "pickup.altitude UNKNOWN_PROPERTY",
      "weight UNKNOWN_PROPERTY",
    ]);
  });

  it("enforces coordinate bounds, type and the 0.000001 step", async () => {
    expect(
      await violations(await estimate({ pickup: { latitude: 90.000001, longitude: -180.5 }, delivery: { latitude: "24.7", longitude: 46.1234567 } })),
    ).toEqual(["pickup.latitude OUT_OF_RANGE", "pickup.longitude OUT_OF_RANGE", "delivery.latitude INVALID_TYPE", "delivery.longitude NOT_MULTIPLE_OF"]);
  });

  it("checks the city code's format", async () => {
    expect(await violations(await estimate({ pickup: RIYADH_A, delivery: RIYADH_B, destinationCityCode: "riyadh" }))).toEqual([
      "destinationCityCode PATTERN_MISMATCH",
    ]);
  });

  it("localizes violation messages, never codes", async () => {
    const res = await estimate({}, { "accept-language": "ar" });
    expect(res.headers.get("content-language")).toBe("ar");
    const body = (await res.json()) as { title: string; violations: { code: string; message: string }[] };
    expect(body.title).toBe("فشل التحقق من صحة البيانات");
    expect(body.violations[0]).toMatchObject({ code: "REQUIRED", message: "هذا الحقل مطلوب" });
  });

  it("answers unparsable JSON with 400 and a non-object body with 422", async () => {
    const malformed = await estimate('{"pickup":');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { code: string }).code).toBe("MALFORMED_REQUEST");
    expect(await violations(await estimate("[1,2]"))).toEqual(["body INVALID_TYPE"]);
  });

  it("needs shipments:read", async () => {
    const client = await stack.admin.createClient({ merchantCode: stack.merchant.code, name: "webhooks only", scopes: ["webhooks:manage"] });
    const webhooksOnly = await accessToken(stack.baseUrl, { clientId: client.client!.clientId, clientSecret: client.clientSecret });
    const res = await estimate({ pickup: RIYADH_A, delivery: RIYADH_B }, { authorization: `Bearer ${webhooksOnly}` });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("ACCESS_DENIED");
    const anonymous = await fetch(`${stack.baseUrl}/v2/external/shipment-price-estimates`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    // Authentication comes before the body is read: an anonymous caller's body is never parsed.
    const anonymousGarbage = await fetch(`${stack.baseUrl}/v2/external/shipment-price-estimates`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{" });
    expect(anonymousGarbage.status).toBe(401);
  });

  it("fails closed with 503 when pricing cannot be reached", async () => {
    // This stack runs no pricing service: its address refuses connections.
    const res = await estimate({ pickup: RIYADH_A, delivery: RIYADH_B });
    expect(res.status).toBe(503);
    const body = (await res.json()) as Record<string, unknown>;
    expect(problemSchemaErrors(body)).toEqual([]);
    expect(body.code).toBe("SERVICE_UNAVAILABLE");
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:9\b/);
  });
});
