import { parseCoordinate } from "@tawsil/domain";
import { describe, expect, it } from "vitest";
import { parseCityCode, parseCode, parseName } from "./codes";

describe("codes, names and coordinates", () => {
  it("accepts codes of ^[A-Z0-9][A-Z0-9_-]{1,63}$ only", () => {
    for (const code of ["AB", "DEMO-RIYADH", "RUH_WH-1", "9X", "A".repeat(64)]) expect(parseCode("code", code)).toBe(code);
    for (const code of ["", "A", "-AB", "ab", "DEMO RIYADH", "A".repeat(65), "ÄB"]) expect(() => parseCode("code", code)).toThrow("code: must match");
  });

  it("accepts three-letter city codes", () => {
    expect(parseCityCode("city_code", "RUH")).toBe("RUH");
    expect(() => parseCityCode("city_code", "Ruh")).toThrow("city_code: must match");
  });

  it("trims names and refuses empty, overlong or control characters", () => {
    expect(parseName("name", "  Acme  ")).toBe("Acme");
    expect(() => parseName("name", "   ")).toThrow("name: is required");
    expect(() => parseName("name", "x".repeat(201))).toThrow("name: must be at most 200 characters");
    expect(() => parseName("name", "a\nb")).toThrow("name: must not contain control characters");
  });

  it("bounds coordinates in microdegrees", () => {
    expect(parseCoordinate("coordinate", { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 })).toEqual({ latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 });
    expect(() => parseCoordinate("coordinate", undefined)).toThrow("coordinate: is required");
    expect(() => parseCoordinate("coordinate", { latitudeMicro: 90_000_001, longitudeMicro: 0 })).toThrow("coordinate.latitude_micro");
    expect(() => parseCoordinate("coordinate", { latitudeMicro: 0, longitudeMicro: -180_000_001 })).toThrow("coordinate.longitude_micro");
  });
});
