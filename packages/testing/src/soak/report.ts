/** The soak's summary, as printed and written to .soak/report.md (its figures go to .soak/results.json). */
import type { SoakSettings } from "./settings";
import { mib, parkedEvents, startMiddleEnd, type SoakFigures } from "./verdict";

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)}` : "-");

export function renderSoakReport(settings: SoakSettings, f: SoakFigures, failures: readonly string[]): string {
  const { start, middle, end } = startMiddleEnd(f.samples);
  const lines: string[] = [];
  lines.push(`# make soak: ${settings.minutes} min, ${settings.windowSeconds} s windows${settings.windowSeconds < 300 ? " (shorter than 5 min: a short run has six)" : ""}, retention periods ${settings.retentionSeconds} s`);
  lines.push("", `Samples at ${start.second} s (start), ${middle.second} s (middle), ${end.second} s (end) of the load.`);
  lines.push("", "## Memory per process (RSS / V8 heap used / heap kept after the last major collection, start, middle, end)", "", "| process | RSS | heap | heap kept |", "|---|---|---|---|");
  for (const name of Object.keys(end.processes).sort()) {
    const at = (s: typeof start) => s.processes[name];
    const row = (pick: (p: NonNullable<ReturnType<typeof at>>) => number) => [start, middle, end].map((s) => (at(s) ? mib(pick(at(s)!)) : "-")).join(" / ");
    lines.push(`| ${name} | ${row((p) => p.rssBytes)} | ${row((p) => p.heapUsedBytes)} | ${row((p) => p.heapAfterGcBytes)} |`);
  }
  lines.push("", "## Tables (rows start, middle, end; size at the end)", "", "| table | rows | size |", "|---|---|---|");
  for (const key of Object.keys(end.tables).sort()) {
    const rows = [start, middle, end].map((s) => s.tables[key]?.rows ?? "-").join(" / ");
    lines.push(`| ${key} | ${rows} | ${(end.tables[key]!.bytes / 1024).toFixed(0)} KiB |`);
  }
  lines.push("", "## Latency per route per window (p50 / p99 ms, requests, unexpected answers)", "", "| route | gateway | " + windowsOf(f).map((w) => `w${w}`).join(" | ") + " |", "|---|---|" + windowsOf(f).map(() => "---|").join(""));
  const keys = [...new Set(f.routes.map((r) => `${r.route}\u0000${r.gateway}`))];
  for (const key of keys) {
    const [route, gateway] = key.split("\u0000");
    const cells = windowsOf(f).map((w) => {
      const r = f.routes.find((x) => x.route === route && x.gateway === gateway && x.window === w);
      return r ? `${ms(r.figures.p50Ms)} / ${ms(r.figures.p99Ms)} (${r.figures.requests}${r.figures.errors ? `, ${r.figures.errors} bad` : ""})` : "-";
    });
    lines.push(`| ${route} | ${gateway} | ${cells.join(" | ")} |`);
  }
  const wh = f.webhooks;
  lines.push("", "## Webhooks", "", `Healthy receiver: ${wh.delivered} deliveries, ${wh.duplicateIds.length} duplicated event ids, ${wh.missingCreated.length} shipment.created and ${wh.missingCancelled.length} shipment.cancelled missing. Failing receivers' requests: ${Object.entries(wh.failingAttempts).map(([k, v]) => `${k} ${v}`).join(", ")}.`);
  lines.push("", "| window | shipment.created deliveries | p50 ms | p99 ms |", "|---|---|---|---|");
  for (const w of wh.windows) lines.push(`| ${w.window < 0 ? "warm-up" : `w${w.window}`} | ${w.deliveries} | ${ms(w.p50Ms)} | ${ms(w.p99Ms)} |`);
  lines.push(`| the load | ${wh.overall.deliveries} | ${ms(wh.overall.p50Ms)} | ${ms(wh.overall.p99Ms)} |`);
  const s = f.shipments;
  lines.push("", "## Effects, lag, parked events", "", `Shipments: ${s.answered} answered 201, ${s.stored} stored, ${s.missing.length} missing, ${s.duplicatedReferences.length} references duplicated.`);
  lines.push(`Consumer lag (start / middle / end): ${Object.keys(end.lag).sort().map((g) => `${g} ${[start, middle, end].map((x) => x.lag[g] ?? "-").join("/")}`).join("; ") || "no groups"}.`);
  lines.push(`Parked events at the end: ${Object.entries(parkedEvents(end)).map(([k, v]) => `${k} ${v}`).join(", ") || "none"}.`);
  const bad = f.routes.reduce((n, r) => n + r.figures.errors, 0);
  lines.push(`Unexpected answers (5xx among them) over the run: ${bad}.`);
  lines.push("", failures.length ? `## FAILED (${failures.length})\n\n${failures.map((x) => `- ${x}`).join("\n")}` : "## PASSED");
  return `${lines.join("\n")}\n`;
}

function windowsOf(f: SoakFigures): number[] {
  return [...new Set(f.routes.map((r) => r.window))].sort((a, b) => a - b);
}
