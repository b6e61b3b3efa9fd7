/**
 * What every customer tracking page must be, whatever its state, in the words a customer reads
 * (issue 28 point 8). The phrases are written out here, not imported from the gateway: a test
 * that read the page's own texts would agree with any wording, wrong or right.
 */
import { expect } from "vitest";
import { clippedMapLabels, overlappingLabels, type PageFacts } from "./tracking-page-facts";

export type PageLanguage = "en" | "ar";
export const TERMINAL = ["DELIVERED", "FAILED", "CANCELLED"];
const HAPPY_PATH = ["CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"];

/** A step not reached yet reads as something still to come, never as a status already reached. */
const PENDING_STEP: Record<PageLanguage, Record<string, string>> = {
  en: { ASSIGNED: "Driver assignment: still to come", PICKED_UP: "Pickup: still to come", OUT_FOR_DELIVERY: "Out for delivery: still to come", DELIVERED: "Delivery: still to come" },
  ar: { ASSIGNED: "تعيين سائق: لم يتم بعد", PICKED_UP: "الاستلام من المتجر: لم يتم بعد", OUT_FOR_DELIVERY: "الخروج للتوصيل: لم يتم بعد", DELIVERED: "التوصيل: لم يتم بعد" },
};

/** The contract's refresh intervals (decisions.md section 9), with Arabic's plural for each. */
const REFRESH_SENTENCE: Record<PageLanguage, Record<string, string>> = {
  en: {
    "5": "This page refreshes itself every 5 seconds.",
    "15": "This page refreshes itself every 15 seconds.",
    "30": "This page refreshes itself every 30 seconds.",
    "60": "This page refreshes itself every 60 seconds.",
  },
  ar: {
    "5": "تتحدّث هذه الصفحة تلقائيًا كل ٥ ثوانٍ.",
    "15": "تتحدّث هذه الصفحة تلقائيًا كل ١٥ ثانية.",
    "30": "تتحدّث هذه الصفحة تلقائيًا كل ٣٠ ثانية.",
    "60": "تتحدّث هذه الصفحة تلقائيًا كل ٦٠ ثانية.",
  },
};

/** The first words of the outcome a finished delivery states (its date and time follow). */
export const OUTCOME: Record<PageLanguage, Record<string, RegExp>> = {
  en: { DELIVERED: /^Your parcel was delivered on .+\.$/, CANCELLED: /^This delivery was cancelled on .+\.$/, FAILED: /^The driver could not deliver your parcel on .+\.$/ },
  ar: { DELIVERED: /^تم توصيل شحنتك في .+\.$/, CANCELLED: /^أُلغيت هذه الشحنة في .+\.$/, FAILED: /^تعذّر على السائق توصيل شحنتك في .+\.$/ },
};

/** Words that only belong to a delivery still on its way: a position, an estimate, a refresh. */
const LIVE_WORDS: Record<PageLanguage, string[]> = {
  en: ["Where your parcel is", "Driver's area", "Estimated", "arrival estimate", "refreshes itself"],
  ar: ["أين شحنتك", "منطقة السائق", "الوقت المتوقع", "وقت وصول", "تتحدّث هذه الصفحة"],
};

/** Readable in any state: no label on another or cut off, each pending step worded as pending. */
export function expectReadable(facts: PageFacts, lang: PageLanguage): void {
  expect(facts.labels.length).toBeGreaterThan(5);
  expect(overlappingLabels(facts.labels)).toEqual([]);
  expect(clippedMapLabels(facts)).toEqual([]);
  const status = facts.status ?? "";
  const next = HAPPY_PATH.includes(status) ? HAPPY_PATH.slice(HAPPY_PATH.indexOf(status) + 1) : [];
  expect(facts.pendingSteps).toEqual(next.map((step) => PENDING_STEP[lang][step]));
  if (lang === "ar") expectOneDigitSystem(facts);
}

/**
 * Arabic-Indic digits everywhere on the Arabic page, times and counts alike: not one Latin digit
 * (nor an Eastern Arabic-Indic one, the Persian forms) in what the customer reads or in the title.
 */
function expectOneDigitSystem(facts: PageFacts): void {
  const everything = `${facts.title}\n${facts.text}`;
  expect(everything.match(/[0-9\u06F0-\u06F9]+/g) ?? []).toEqual([]);
  expect(everything).toMatch(/[\u0660-\u0669]/);
}

/** A delivery on its way: refreshes by itself and says how often, in the language's own plural. */
export function expectLive(facts: PageFacts, lang: PageLanguage): void {
  expect(REFRESH_SENTENCE[lang]).toHaveProperty(facts.metaRefresh ?? "none");
  expect(facts.refreshSentence).toBe(REFRESH_SENTENCE[lang][facts.metaRefresh!]);
}

/**
 * A finished delivery: states the outcome, stops refreshing (no meta refresh, no script that could
 * poll), and shows nothing live (no map, no driver, no estimate, no word about either).
 */
export function expectFinished(facts: PageFacts, lang: PageLanguage, refreshHeader: string | undefined): void {
  expect(facts.outcome ?? "no outcome").toMatch(OUTCOME[lang][facts.status!]!);
  expect({ meta: facts.metaRefresh, header: refreshHeader, scripts: facts.scripts }).toEqual({ meta: null, header: undefined, scripts: 0 });
  expect({ map: facts.map, driver: facts.driverOnMap, etas: facts.etas, sentence: facts.refreshSentence }).toEqual({ map: null, driver: false, etas: 0, sentence: null });
  for (const words of LIVE_WORDS[lang]) expect(facts.text).not.toContain(words);
}
