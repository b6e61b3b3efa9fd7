/**
 * What a customer sees of a tracking page, measured in the browser that drew it: the box of every
 * visible label (on the map and on the page), how the page refreshes, and its words. Measured, not
 * read from the HTML: a collision or a clipped label only exists once Chromium has laid text out.
 */
import type { Page } from "playwright-core";

export interface LabelBox {
  readonly text: string;
  readonly onMap: boolean;
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  /** Index of every other label this one is drawn inside (a <time> inside a <p>, say). */
  readonly within: readonly number[];
}

export interface PageFacts {
  readonly status: string | null;
  readonly labels: readonly LabelBox[];
  /** The map's own box, for labels cut off at its edge. */
  readonly map: { left: number; top: number; right: number; bottom: number } | null;
  readonly metaRefresh: string | null;
  readonly scripts: number;
  readonly text: string;
  readonly title: string;
  readonly refreshSentence: string | null;
  readonly pendingSteps: readonly string[];
  readonly outcome: string | null;
  readonly reason: string | null;
  readonly etas: number;
  readonly driverOnMap: boolean;
}

/** Texts drawn on the map, and the page's own text elements (headings, paragraphs, steps, links). */
const LABELS = "svg text, header .brand, header a, main h1, main h2, main p, main li > *";

/**
 * Runs in the page, so it is kept as the page's own JavaScript: the workspace's TypeScript has no
 * DOM types, and esbuild's keepNames would wrap a compiled function in a helper the page lacks.
 */
const MEASURE = `(selector) => {
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && style.visibility !== "hidden" && style.display !== "none" && (el.textContent ?? "").trim() !== "";
  };
  const elements = [...document.querySelectorAll(selector)].filter(visible);
  const labels = elements.map((el) => {
    const r = el.getBoundingClientRect();
    return {
      text: (el.textContent ?? "").trim(),
      onMap: el.closest("svg") !== null,
      left: r.left, top: r.top, right: r.right, bottom: r.bottom,
      within: elements.flatMap((other, i) => (other !== el && other.contains(el) ? [i] : [])),
    };
  });
  const box = document.querySelector("svg.map")?.getBoundingClientRect();
  const text = (sel) => document.querySelector(sel)?.innerText.trim() ?? null;
  return {
    status: document.querySelector("h1#status")?.getAttribute("data-status") ?? null,
    labels,
    map: box ? { left: box.left, top: box.top, right: box.right, bottom: box.bottom } : null,
    metaRefresh: document.querySelector('meta[http-equiv="refresh" i]')?.getAttribute("content") ?? null,
    scripts: document.scripts.length,
    text: document.body.innerText,
    title: document.title,
    refreshSentence: text(".refresh"),
    pendingSteps: [...document.querySelectorAll(".timeline li.pending")].map((li) => li.innerText.replace(/\\s+/g, " ").trim()),
    outcome: text("#outcome"),
    reason: text("#reason"),
    etas: document.querySelectorAll(".eta").length,
    driverOnMap: document.querySelector("svg .driver") !== null,
  };
}`;

export async function pageFacts(page: Page): Promise<PageFacts> {
  return (await page.evaluate(`(${MEASURE})(${JSON.stringify(LABELS)})`)) as PageFacts;
}

/** Pairs of labels whose boxes share more than a pixel each way (one inside the other excepted). */
export function overlappingLabels(labels: readonly LabelBox[]): string[] {
  const pairs: string[] = [];
  labels.forEach((a, i) =>
    labels.slice(i + 1).forEach((b, k) => {
      const j = i + 1 + k;
      if (a.within.includes(j) || b.within.includes(i)) return;
      const width = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const height = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (width > 1 && height > 1) pairs.push(`"${a.text}" overlaps "${b.text}"`);
    }),
  );
  return pairs;
}

/** Map labels drawn (partly) outside the map, where the SVG cuts them off. */
export function clippedMapLabels(facts: PageFacts): string[] {
  const map = facts.map;
  if (!map) return [];
  return facts.labels.filter((l) => l.onMap && (l.left < map.left - 1 || l.right > map.right + 1 || l.top < map.top - 1 || l.bottom > map.bottom + 1)).map((l) => l.text);
}
