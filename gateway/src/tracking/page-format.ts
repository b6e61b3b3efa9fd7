import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { Language } from "../request/language";

/**
 * How the page writes numbers, times and plurals in each language, through the Intl APIs.
 *
 * The Arabic page writes every number in Arabic-Indic digits (٠١٢٣٤٥٦٧٨٩), times and counts
 * alike, never mixed with Latin ones: the customers are in Saudi Arabia, where these are the
 * digits of Arabic text (CLDR's default for ar-SA), and the dates already used them. The numbering
 * system is pinned (-u-nu-arab) rather than left to the locale's default, which CLDR has changed
 * for other Arabic regions and could change here with Node's ICU data. The calendar is pinned to
 * the Gregorian one the merchants' timestamps use; times are Riyadh's.
 */
const LOCALE: Record<Language, string> = { en: "en-GB", ar: "ar-SA-u-nu-arab-ca-gregory" };
const TIME_ZONE = "Asia/Riyadh";

export interface PageFormat {
  /** A count in the page's digits. */
  number(n: number): string;
  /** A day and time of day, Riyadh time. */
  time(t: Timestamp): string;
  /** The CLDR plural category of a count (Arabic has all six: zero, one, two, few, many, other). */
  plural(n: number): Intl.LDMLPluralRule;
}

function formatFor(lang: Language): PageFormat {
  const numbers = new Intl.NumberFormat(LOCALE[lang], { useGrouping: false });
  const times = new Intl.DateTimeFormat(LOCALE[lang], { timeZone: TIME_ZONE, day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  const plurals = new Intl.PluralRules(LOCALE[lang]);
  return {
    number: (n) => numbers.format(n),
    time: (t) => times.format(timestampDate(t)),
    plural: (n) => plurals.select(n),
  };
}

/** Built once: an Intl formatter is costly to make and free to reuse. */
export const PAGE_FORMAT: Record<Language, PageFormat> = { en: formatFor("en"), ar: formatFor("ar") };
