import { describe, expect, it } from "vitest";
import { describeTarget, lagFigures, lagsBehindSchedule, median, medianOfRounds, meets, percentile, ratio, roundFigures } from "./stats";

describe("percentile", () => {
  const values = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100

  it("takes the nearest rank", () => {
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile(values, 1)).toBe(100);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([1, 2, 3], 0.5)).toBe(2);
  });

  it("is NaN without values", () => {
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe("median and ratio", () => {
  it("takes the middle value, or the mean of the middle two", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, Number.NaN, 1, 3])).toBe(3);
    expect(median([])).toBeNaN();
  });

  it("divides, and is NaN for a missing or zero denominator", () => {
    expect(ratio(30, 600)).toBeCloseTo(0.05);
    expect(ratio(30, 0)).toBeNaN();
    expect(ratio(undefined, 3)).toBeNaN();
    expect(ratio(Number.NaN, 3)).toBeNaN();
  });
});

describe("round figures", () => {
  it("counts throughput per second and takes p50/p99 of the latencies", () => {
    const latencies = Array.from({ length: 200 }, (_, i) => 200 - i); // 200..1, unsorted
    const round = roundFigures(latencies, 3, 4, 12.5);
    expect(round).toEqual({ throughput: 50, p50Ms: 100, p99Ms: 198, requests: 200, errors: 3, seconds: 4, clientCpuPercent: 12.5 });
  });

  it("takes each figure's median over the rounds and sums the errors", () => {
    const r = (throughput: number, p50Ms: number, p99Ms: number, errors: number) => ({ throughput, p50Ms, p99Ms, requests: 1, errors, seconds: 1, clientCpuPercent: throughput / 10 });
    expect(medianOfRounds([r(100, 5, 50, 0), r(300, 3, 90, 1), r(200, 4, 70, 2)])).toEqual({ throughput: 200, p50Ms: 4, p99Ms: 70, errors: 3, clientCpuPercent: 20 });
  });
});

describe("targets", () => {
  it("judges a figure against its bound, and not at all without one", () => {
    expect(meets({ what: "ratio", op: ">=", value: 0.4 }, 0.41)).toBe(true);
    expect(meets({ what: "ratio", op: ">=", value: 0.4 }, 0.39)).toBe(false);
    expect(meets({ what: "p99", op: "<=", value: 50, unit: " ms" }, 50)).toBe(true);
    expect(meets({ what: "p99", op: "<=", value: 50, unit: " ms" }, Number.NaN)).toBeUndefined();
    expect(describeTarget({ what: "p99", op: "<=", value: 50, unit: " ms" })).toBe("≤ 50 ms");
    expect(describeTarget({ what: "ratio", op: ">=", value: 0.15 })).toBe("≥ 0.15x");
  });
});

describe("lagFigures", () => {
  const lags = Array.from({ length: 100 }, (_, i) => (i + 1) * 10); // 10..1000 ms, shuffled below

  it("takes p50, p95, p99 and max of the pooled samples, in any order", () => {
    const shuffled = [...lags].reverse();
    expect(lagFigures("create", shuffled, 0)).toEqual({ what: "create", samples: 100, missed: 0, p50Ms: 500, p95Ms: 950, p99Ms: 990, maxMs: 1000, met: true });
    expect(shuffled[0]).toBe(1000); // the caller's array is left as it was
  });

  it("meets section 9 only with p99 <= 1 s, nothing over 2 s and nothing missed", () => {
    expect(lagFigures("a", [...lags.slice(0, 98), 1001, 1001], 0).met).toBe(false); // p99 over 1 s
    expect(lagFigures("a", [...lags.slice(0, 99), 2001], 0).met).toBe(false); // one over 2 s
    expect(lagFigures("a", lags, 1).met).toBe(false); // one never seen
    expect(lagFigures("a", [], 0)).toMatchObject({ samples: 0, p99Ms: NaN, maxMs: NaN, met: undefined });
  });
});

describe("lags behind a schedule", () => {
  it("charges the i-th arrival from its instant on the schedule, in arrival order, and an early one nothing", () => {
    // 500/s from 1000 ms: due at 1000, 1002, 1004, 1006.
    expect(lagsBehindSchedule([1010, 1001, 1003, 1004], 1000, 500)).toEqual([1, 1, 0, 4]);
  });

  it("grows by the shortfall per event when the path is slower than the schedule", () => {
    // 250/s against 500/s: each arrival 2 ms later than the last one's lag.
    expect(lagsBehindSchedule([0, 4, 8, 12], 0, 500)).toEqual([0, 2, 4, 6]);
  });
});
