/**
 * What every fuzzed answer must be: never a 5xx, one the OpenAPI document describes, and any
 * problem a valid one whose status and code are a pair of the catalogue (decisions.md section 12,
 * and the driver API's codes that section 17 adds to it: OFFER_NOT_FOUND, JOB_NOT_FOUND,
 * OFFER_NOT_OPEN, STEP_NOT_ALLOWED, documented in the OpenAPI document).
 */
import { problemSchemaErrors, type ResponseCheck } from "@tawsil/testing";

export const CATALOGUE: Readonly<Record<number, readonly string[]>> = {
  400: ["MALFORMED_REQUEST", "INVALID_PARAMETER", "INVALID_CURSOR"],
  401: ["AUTHENTICATION_REQUIRED"],
  403: ["ACCESS_DENIED", "MERCHANT_NOT_ACTIVE"],
  404: ["SHIPMENT_NOT_FOUND", "WEBHOOK_NOT_FOUND", "TRACKING_LINK_NOT_FOUND", "MEDIA_ASSET_NOT_FOUND", "RESOURCE_NOT_FOUND", "OFFER_NOT_FOUND", "JOB_NOT_FOUND"],
  405: ["METHOD_NOT_ALLOWED"],
  409: ["SHIPMENT_ALREADY_ASSIGNED", "SHIPMENT_NOT_CANCELLABLE", "DUPLICATE_REFERENCE", "IDEMPOTENCY_KEY_IN_USE", "WEBHOOK_ALREADY_EXISTS", "OFFER_NOT_OPEN", "STEP_NOT_ALLOWED"],
  410: ["TRACKING_LINK_EXPIRED"],
  412: ["PRECONDITION_FAILED"],
  413: ["PAYLOAD_TOO_LARGE"],
  415: ["UNSUPPORTED_MEDIA_TYPE"],
  422: ["VALIDATION_FAILED", "IDEMPOTENCY_KEY_REUSED", "OUTSIDE_COVERAGE", "CITY_MISMATCH", "NO_ELIGIBLE_SERVICE", "UNSUPPORTED_CURRENCY", "MEDIA_REJECTED"],
  428: ["PRECONDITION_REQUIRED"],
  429: ["RATE_LIMITED"],
  500: ["INTERNAL_ERROR"],
  503: ["SERVICE_UNAVAILABLE"],
};

export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

export function judge(check: ResponseCheck, request: { method: string; url: string }, answer: Answer): string[] {
  const errors = answer.status >= 500 ? [`a ${answer.status}`] : [];
  errors.push(...check(request, answer));
  const contentType = answer.headers.get("content-type") ?? "";
  if (contentType.startsWith("application/problem+json")) {
    let problem: { status?: number; code?: string } = {};
    try {
      problem = JSON.parse(answer.body.toString("utf8")) as typeof problem;
    } catch {
      return [...errors, "a problem that is not JSON"];
    }
    errors.push(...problemSchemaErrors(problem).map((e) => `problem ${e}`));
    if (problem.status !== answer.status) errors.push(`problem status ${problem.status} on a ${answer.status}`);
    if (!CATALOGUE[answer.status]?.includes(problem.code ?? "")) errors.push(`${answer.status} ${problem.code} is not a pair of the catalogue`);
  }
  return errors;
}
