import { describe, expect, it } from "vitest";
import type { ScenarioResult } from "../scenarios/scenario";
import { lagFigures } from "../../../packages/testing/src/load/stats";
import { figures, RESULTS, round, SCENARIOS } from "./fixture";
import { renderReport, renderSummary } from "./markdown";
import { renderSvg } from "./svg";
import { targetRows } from "./targets";

describe("targets", () => {
  it("judges each target of the issue on this run's figures, and says what was not run", () => {
    expect(targetRows(RESULTS).map((r) => [r.figure, r.met])).toEqual([
      ["0.040x", false],
      ["48.0 ms", true],
      ["not run", undefined],
      ["not run", undefined],
      ["not run", undefined],
      ["not run", undefined],
      ["6.5%", false],
      ["1.29 GiB", false],
      ["18.4 s", true],
    ]);
  });
});

describe("the markdown report", () => {
  const report = renderReport(RESULTS);

  it("opens with the date, the commit and the machine", () => {
    expect(report.split("\n")[0]).toBe("# make bench — 2026-11-26T02:00:00.000Z");
    expect(report).toContain("Commit 4b65e5b00000 (with uncommitted changes) · 2 cores (Test CPU)");
  });

  it("puts each target's figure beside the one the issue was filed with", () => {
    expect(report).toContain("| idle RSS of the mesh (seven + broker) ≤ 1.2 GiB | 1.8 GiB | 1.29 GiB | no |  |");
  });

  it("says what bounds a throughput target not met: the CPU per request and the most it allows", () => {
    // 20 ms per create on 2 cores: at most 100/s, against the baseline's median 775/s.
    expect(report).toContain(
      "| create ≥ 0.4x the one-process baseline | 0.038x (23-39/s) | 0.040x | no | 20.00 ms CPU per request (shipment 10.50, dispatch 7.50, gateway 2.00): at most 100/s on 2 cores = 0.129x |",
    );
    expect(report).toContain("| create p99 ≤ 50 ms at half the mesh's max rate | – | 48.0 ms | yes |  |");
  });

  it("puts medians, the ratio and the verdict in the scenario's row", () => {
    expect(report).toContain("| create (shape A, unique key) | 31.0 | 195.0 ms | 425.0 ms | one process, raw pg | 775.0 | 8.50 ms | 19.0 ms | 0.040x | ≥ 0.4x → 0.040x no |");
    expect(report).toContain("| create at half the mesh's max rate (15.5/s) | 15.5 | 30.0 ms | 48.0 ms | – | – | – | – | – | ≤ 50 ms → 48.0 ms yes |");
  });

  it("says why an unavailable scenario did not run", () => {
    expect(report).toContain("| public <tracking> | not available yet: GET /v2/public/tracking/{code} answers 404 RESOURCE_NOT_FOUND |");
  });

  it("lists the idle figures per process with the sums, and the Prisma ratios", () => {
    expect(report).toContain("| dispatch | 6.0 | – | 200 | 6.0 6.0 |  |  |  |");
    expect(report).toContain("| **the seven processes** | **6.5** | – | **300** |  |  |  |  |");
    expect(report).toContain("| read by primary key | 1 | 400 | 200 | 2.00x | 250 | 80 | 3.13x |");
  });

  it("adds up the CPU each process spends per request into the ceiling it sets on this machine", () => {
    // 2 + 10 + 1 during, 7 after: 20 ms of CPU per create, so 2 cores serve at most 100 a second;
    // 4 + 12 + 8 thread wake-ups per create while the round ran, at 13 ms over 24: 542 µs each.
    expect(report).toContain("| create (shape A, unique key) | 2.00 | 10.00 | 1.00 | 7.00 | **20.00** | 100 | 31.0 | 24.0 | 542 |");
  });

  it("shows each profiled process's CPU per request and what it went to, busiest first", () => {
    const rows = report.split("\n").filter((line) => line.includes(".bench/profiles/create/"));
    expect(rows).toEqual([
      "| shipment | 11.00 | @prisma/client 25% | a\\|b (own code) 2% | `.bench/profiles/create/shipment.cpuprofile` |",
      "| gateway | 2.50 | fastify 25%, node:http2 15% | writev (node:net) 5% | `.bench/profiles/create/gateway.cpuprofile` |",
    ]);
    expect(renderSummary(RESULTS)).not.toContain("Where the CPU goes");
  });

  it("keeps every round, and the summary leaves them out", () => {
    expect(report).toContain("| baseline | 2 | 800.0 | 8.00 ms | 18.0 ms | 6400 | 0 | 10 |");
    expect(renderSummary(RESULTS)).not.toContain("Every round");
  });
});

describe("the freshness of the projections", () => {
  const lags = [lagFigures("create to tracking projection", [40, 60, 2500], 0), { ...lagFigures("cancel to tracking projection", [30, 50], 1), note: "2 cancels refused" }];
  const freshness: ScenarioResult = {
    name: "tracking-freshness",
    title: "tracking freshness",
    status: "ran",
    mesh: figures(round(12, 40, 60)),
    target: { what: "create-to-projection p99", op: "<=", value: 1000, unit: " ms" },
    figure: lags[0]!.p99Ms,
    met: false,
    lags,
  };
  const report = renderReport({ ...RESULTS, scenarios: [...SCENARIOS, freshness] });

  it("puts p50, p95, p99 and max of each change beside section 9's promise, a miss failing it", () => {
    expect(report).toContain("| create to tracking projection | 3 | 0 | 60.0 ms | 2500.0 ms | 2500.0 ms | 2500.0 ms | p99 ≤ 1000 ms, max ≤ 2000 ms | no |  |");
    expect(report).toContain("| cancel to tracking projection | 2 | 1 | 30.0 ms | 50.0 ms | 50.0 ms | 50.0 ms | p99 ≤ 1000 ms, max ≤ 2000 ms | no | 2 cancels refused |");
  });

  it("judges the create's p99 among the targets", () => {
    expect(report).toContain("| create to tracking projection p99 ≤ 1000 ms (decisions.md section 9; cancel and max in the freshness table) | 23-67 ms, idle (issue 27) | 2500.0 ms | no |  |");
  });

  it("is left out of a run without it", () => {
    expect(renderReport(RESULTS)).not.toContain("Freshness of the projections");
  });
});

describe("the plot", () => {
  const svg = renderSvg(SCENARIOS, "mesh & baseline");

  it("is a standalone SVG with escaped text and no outside references", () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain("mesh &#38; baseline");
    expect(svg).not.toMatch(/href|<image|url\(/);
  });

  it("draws one bar per target that ran, and none for an unavailable scenario", () => {
    // Three bars (create's two, the paced create's one) and the mesh legend swatch start at x=260.
    expect(svg.match(/<rect x="260" y="\d+"/g)).toHaveLength(3 + 1);
    expect(svg).not.toContain("tracking");
  });
});
