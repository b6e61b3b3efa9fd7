import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, parseRetryAfter, retryDelaySeconds } from "./retry-schedule";

describe("the retry schedule", () => {
  it("waits 30 s doubling after each of the first seven failures, and gives up after the eighth", () => {
    const waits = Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelaySeconds(i + 1));
    expect(waits).toEqual([30, 60, 120, 240, 480, 960, 1920, undefined]);
  });

  it("doubles from a shorter first wait when one is set (the fault suite's schedule)", () => {
    const waits = Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelaySeconds(i + 1, undefined, 1));
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, undefined]);
  });

  it("lets Retry-After set the wait, capped at one hour", () => {
    expect(retryDelaySeconds(1, 7)).toBe(7);
    expect(retryDelaySeconds(3, 7200)).toBe(3600);
    expect(retryDelaySeconds(MAX_ATTEMPTS, 5)).toBeUndefined();
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:30 GMT", now)).toBe(90);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
