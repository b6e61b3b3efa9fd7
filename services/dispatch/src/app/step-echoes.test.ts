import { describe, expect, it } from "vitest";
import { StepEchoes } from "./step-echoes";

describe("the step echoes a replica awaits", () => {
  it("covers the awaited version once, and older ones, never a newer one", () => {
    const echoes = new StepEchoes();
    echoes.awaited("s1", 3n);
    expect(echoes.covers("s1", 4n)).toBe(false);
    expect(echoes.covers("s1", 2n)).toBe(true);
    expect(echoes.covers("s1", 3n)).toBe(true);
    // The echo came: a redelivery of it is applied as before.
    expect(echoes.awaits("s1")).toBe(false);
    expect(echoes.covers("s1", 3n)).toBe(false);
    expect(echoes.covers("s2", 1n)).toBe(false);
  });

  it("keeps the newest version of a shipment stepped twice before its first echo came", () => {
    const echoes = new StepEchoes();
    echoes.awaited("s1", 3n);
    echoes.awaited("s1", 5n);
    expect(echoes.covers("s1", 3n)).toBe(true);
    expect(echoes.covers("s1", 5n)).toBe(true);
  });

  it("forgets the longest awaited first when full", () => {
    const echoes = new StepEchoes(2);
    echoes.awaited("s1", 1n);
    echoes.awaited("s2", 1n);
    echoes.awaited("s1", 2n);
    echoes.awaited("s3", 1n);
    expect([echoes.awaits("s1"), echoes.awaits("s2"), echoes.awaits("s3")]).toEqual([true, false, true]);
  });
});
