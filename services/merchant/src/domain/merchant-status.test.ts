import { FailedPreconditionError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import { assertStatusTransition, canAuthenticate } from "./merchant-status";

describe("merchant status lifecycle", () => {
  it.each([
    ["DRAFT", "ACTIVE"],
    ["DRAFT", "TERMINATED"],
    ["ACTIVE", "SUSPENDED"],
    ["SUSPENDED", "ACTIVE"],
    ["ACTIVE", "TERMINATED"],
    ["SUSPENDED", "TERMINATED"],
    ["ACTIVE", "ACTIVE"],
  ] as const)("allows %s -> %s", (from, to) => {
    expect(() => assertStatusTransition(from, to)).not.toThrow();
  });

  it.each([
    ["ACTIVE", "DRAFT"],
    ["SUSPENDED", "DRAFT"],
    ["TERMINATED", "ACTIVE"],
    ["TERMINATED", "DRAFT"],
    ["DRAFT", "SUSPENDED"],
  ] as const)("refuses %s -> %s", (from, to) => {
    expect(() => assertStatusTransition(from, to)).toThrow(FailedPreconditionError);
  });

  it("lets every status but TERMINATED authenticate", () => {
    expect(["DRAFT", "ACTIVE", "SUSPENDED", "TERMINATED"].map((s) => canAuthenticate(s as never))).toEqual([true, true, true, false]);
  });
});
