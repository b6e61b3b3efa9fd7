import { formatDegrees as degrees } from "@tawsil/domain";
import { describe, expect, it } from "vitest";
import { microdegrees, UsageError } from "./commands";

describe("coordinates on the command line", () => {
  it("turns decimal degrees into exact microdegrees and back", () => {
    expect(microdegrees("lat", "24.7136")).toBe(24_713_600);
    expect(microdegrees("lng", "46.675300")).toBe(46_675_300);
    expect(microdegrees("lng", "-0.000001")).toBe(-1);
    expect(microdegrees("lat", "90")).toBe(90_000_000);
    expect(degrees(24_713_600)).toBe("24.713600");
    expect(degrees(-1)).toBe("-0.000001");
  });

  it("refuses more than 6 decimals and anything that is not a number", () => {
    for (const value of ["24.1234567", "abc", "1e5", "", "24,7"]) expect(() => microdegrees("lat", value)).toThrow(UsageError);
  });
});
