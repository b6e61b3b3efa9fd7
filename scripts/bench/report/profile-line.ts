/**
 * A scenario's CPU per request told in one line: its busiest processes, and for each Node process
 * what its profiled round says the time went to, with a link to the profile.
 */
import { isProduct, processMs } from "../cpu-budget";
import type { ProcessProfile } from "../profiler";
import type { ScenarioResult } from "../scenarios/scenario";

/** "fastify 25%, node:http2 15%": the first `count` shares, as % of the process's busy main thread. */
export function describeShares(p: ProcessProfile, which: "owners" | "functions", count: number): string {
  const share = (ms: number) => (p.busyMs > 0 ? `${((100 * ms) / p.busyMs).toFixed(0)}%` : "–");
  return p[which]
    .slice(0, count)
    .map((s) => `${s.name.replaceAll("|", "\\|")} ${share(s.ms)}`)
    .join(", ");
}

/** "@prisma/client 31%, own code 12%; hottest pg-protocol parse 4% ([profile](...))". */
export const profileShares = (p: ProcessProfile): string => `${describeShares(p, "owners", 2)}; hottest ${describeShares(p, "functions", 1)} ([profile](${fromReport(p.file)}))`;

/** Where the report (.bench/report.md) finds a profile kept at `file` (relative to the checkout). */
const fromReport = (file: string) => file.replace(/^\.bench\//, "");

/**
 * "shipment 4.20 ms: @prisma/client 31%, own code 12%; hottest pg-protocol parse 4%
 * ([profile](profiles/create/shipment.cpuprofile)) · postgresql 3.60 ms (not profiled) · ...":
 * the `top` processes of the product by CPU per request (in and after the round), with the owners
 * and hottest function of the profiled round. The broker and PostgreSQL have no profile.
 */
export function profileLine(s: ScenarioResult, top = 3): string {
  if (!s.cpu?.length) return "no CPU readings for this scenario";
  const busiest = s.cpu
    .filter(isProduct)
    .map((p) => ({ name: p.name, ms: processMs(p) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
  const parts = busiest.map(({ name, ms }) => {
    const head = `${name} ${ms.toFixed(2)} ms`;
    if (!s.profile) return head;
    const p = s.profile.processes.find((q) => q.name === name);
    if (!p) return `${head} (not profiled)`;
    return `${head}: ${profileShares(p)}`;
  });
  return `${parts.join(" · ")}${s.profile ? "" : " (no profiled round: --skip profile)"}`;
}
