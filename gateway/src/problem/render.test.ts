import { problemSchemaErrors } from "@tawsil/testing";
import { describe, expect, it } from "vitest";
import { ProblemError } from "./problem-error";
import { problemBody } from "./render";

const context = { baseUrl: "https://api.tawsil.test", requestId: "4d0c4a53-3f6b-4f0e-9a56-0c1f3e0b6f11", correlationId: "9b7f2f1e-2d43-4e52-8c2e-6f9d9b8e7a10" };

describe("problemBody", () => {
  it("cuts detail, violation fields and messages to the contract's bounds and keeps 20 violations", () => {
    const violations = Array.from({ length: 25 }, (_, i) => ({
      field: `items[${i}].${"f".repeat(200)}`,
      code: "OUT_OF_RANGE",
      message: { en: "m".repeat(300), ar: "م".repeat(300) },
    }));
    const problem = new ProblemError("VALIDATION_FAILED", { en: "d".repeat(600), ar: "د".repeat(600) }, { violations });
    for (const language of ["en", "ar"] as const) {
      const body = problemBody(problem, { ...context, language, url: `/v2/${"x".repeat(3000)}` }) as { detail: string; violations: { field: string; message: string }[]; instance: string };
      expect(problemSchemaErrors(body)).toEqual([]);
      expect(body.detail).toHaveLength(512);
      expect(body.detail.endsWith("…")).toBe(true);
      expect(body.violations).toHaveLength(20);
      expect(body.violations.every((v) => v.field.length <= 128 && v.message.length <= 256)).toBe(true);
      expect(body.instance.length).toBeLessThanOrEqual(1024);
    }
  });

  it("never splits a surrogate pair when it cuts", () => {
    const detail = "a".repeat(510) + "😀😀";
    const body = problemBody(new ProblemError("MALFORMED_REQUEST", { en: detail, ar: detail }), { ...context, language: "en", url: "/" }) as { detail: string };
    expect(body.detail).toBe(`${"a".repeat(510)}…`);
    expect(problemSchemaErrors(body)).toEqual([]);
  });

  it("keeps the instance a uri-reference whatever the raw path holds", () => {
    const body = problemBody(new ProblemError("INVALID_PARAMETER"), { ...context, language: "en", url: "/v2/external/shipments/%E0%A4%A<é>?q=1" });
    expect(body.instance).toBe("/v2/external/shipments/%E0%A4%25A%3C%C3%A9%3E");
    expect(problemSchemaErrors(body)).toEqual([]);
  });
});
