/** The fault run's figures: a table on stdout and `.artefacts/faults/report.json`. */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LedgerRow } from "./ledger";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export function writeReport(scale: string, rows: readonly (LedgerRow & Record<string, unknown>)[]): string {
  const dir = path.join(ROOT, ".artefacts", "faults");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "report.json");
  writeFileSync(file, `${JSON.stringify({ scale, at: new Date().toISOString(), scenarios: rows }, null, 2)}\n`);
  const header = ["scenario", "sent", "accepted", "refused (first answer)", "retried", "lost", "dup", "event redeliv.", "webhook repeats", "webhooks checked", "half-existed before retry", "recover s"];
  const lines = rows.map((r) => [
    r.scenario,
    r.sent,
    r.accepted,
    Object.entries(r.refused).map(([k, v]) => `${k}:${v}`).join(" ") || "-",
    r.retried,
    r.lost,
    r.duplicated,
    r.eventRedeliveries,
    r.webhookRepeats,
    r.webhooksChecked,
    r.halfBeforeRetry ?? "-",
    r.recoverSeconds ?? "never",
  ].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ");
  console.log([`fault run (${scale})`, fmt(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...lines.map(fmt)].join("\n"));
  return file;
}
