/** .bench/plot.svg: mesh vs baseline throughput per scenario, as plain SVG (log scale, no outside assets). */
import type { ScenarioResult } from "../scenarios/scenario";

const WIDTH = 900;
const LABEL = 260;
const BAR = 16;
const GAP = 14;
const TOP = 60;
const COLORS = { mesh: "#2f6db5", baseline: "#a0a0a0" } as const;

const escape = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderSvg(scenarios: readonly ScenarioResult[], title: string): string {
  const ran = scenarios.filter((s) => s.status === "ran" && s.mesh);
  const values = ran.flatMap((s) => [s.mesh?.median.throughput, s.baseline?.median.throughput]).filter((v): v is number => v !== undefined && v > 0);
  const decades = Math.max(1, Math.ceil(Math.log10(Math.max(10, ...values))));
  const plot = WIDTH - LABEL - 80;
  const x = (v: number) => LABEL + (Math.log10(Math.max(1, v)) / decades) * plot;
  const rowHeight = 2 * BAR + GAP;
  const height = TOP + ran.length * rowHeight + 40;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
    `<rect x="${LABEL}" y="32" width="12" height="12" fill="${COLORS.mesh}"/><text x="${LABEL + 18}" y="42">mesh</text>`,
    `<rect x="${LABEL + 70}" y="32" width="12" height="12" fill="${COLORS.baseline}"/><text x="${LABEL + 88}" y="42">baseline (same run)</text>`,
    `<text x="${WIDTH - 10}" y="42" text-anchor="end" fill="#555">requests/s, log scale</text>`,
  ];
  for (let d = 0; d <= decades; d++) {
    const gx = x(10 ** d);
    out.push(`<line x1="${gx}" y1="${TOP - 6}" x2="${gx}" y2="${height - 30}" stroke="#e0e0e0"/>`);
    out.push(`<text x="${gx}" y="${height - 14}" text-anchor="middle" fill="#555">${(10 ** d).toLocaleString("en")}</text>`);
  }
  ran.forEach((s, i) => {
    const y = TOP + i * rowHeight;
    out.push(`<text x="${LABEL - 8}" y="${y + BAR - 3}" text-anchor="end">${escape(s.title)}</text>`);
    const against = s.baselineTitle ? `vs ${s.baselineTitle}` : s.rate === undefined ? "mesh only" : `mesh only, paced at ${s.rate.toFixed(1)}/s`;
    out.push(`<text x="${LABEL - 8}" y="${y + BAR + 11}" text-anchor="end" font-size="10" fill="#666">${escape(against)}</text>`);
    const bars: [keyof typeof COLORS, number | undefined][] = [
      ["mesh", s.mesh?.median.throughput],
      ["baseline", s.baseline?.median.throughput],
    ];
    bars.forEach(([kind, value], j) => {
      if (value === undefined || !Number.isFinite(value)) return;
      const by = y + j * BAR;
      const w = Math.max(1, x(value) - LABEL);
      out.push(`<rect x="${LABEL}" y="${by}" width="${w.toFixed(1)}" height="${BAR - 2}" fill="${COLORS[kind]}"/>`);
      out.push(`<text x="${(LABEL + w + 4).toFixed(1)}" y="${by + BAR - 4}" fill="#333">${value.toFixed(value < 100 ? 1 : 0)}</text>`);
    });
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
