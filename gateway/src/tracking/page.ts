import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { GetPublicTrackingResponse } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import type { Language } from "../request/language";
import { PUBLIC_NAMES } from "../shipments/render";
import { mapSketch } from "./page-map";
import { PAGE_TEXTS, type PageTexts, type StatusName } from "./page-texts";

/** The page's one stylesheet, served by the gateway itself (the CSP allows 'self' and nothing else). */
export const STYLESHEET_PATH = "/t/assets/page.css";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The happy path; a failed or cancelled delivery ends the timeline where it stopped. */
const HAPPY_PATH: readonly StatusName[] = ["CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"];

function formatTime(t: Timestamp, lang: Language): string {
  const locale = lang === "ar" ? "ar-SA-u-ca-gregory-nu-arab" : "en-GB";
  return new Intl.DateTimeFormat(locale, { timeZone: "Asia/Riyadh", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }).format(timestampDate(t));
}

function timeTag(t: Timestamp, lang: Language): string {
  return `<time datetime="${timestampDate(t).toISOString()}">${escapeHtml(formatTime(t, lang))}</time>`;
}

function languageSwitch(lang: Language, texts: PageTexts): string {
  const link = (to: Language, label: string) =>
    `<a href="?lang=${to}" lang="${to}" hreflang="${to}"${to === lang ? ' aria-current="true"' : ""}>${label}</a>`;
  return `<nav aria-label="${texts.languages}"><ul class="languages"><li>${link("en", "English")}</li><li>${link("ar", "العربية")}</li></ul></nav>`;
}

function shell(opts: { lang: Language; title: string; refreshSeconds?: number; body: string }): string {
  const texts = PAGE_TEXTS[opts.lang];
  const refresh = opts.refreshSeconds ? `<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : "";
  return `<!doctype html>
<html lang="${opts.lang}" dir="${opts.lang === "ar" ? "rtl" : "ltr"}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}<meta name="referrer" content="no-referrer"><title>${escapeHtml(opts.title)} · ${texts.brand}</title><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><header><p class="brand">${texts.brand}</p>${languageSwitch(opts.lang, texts)}</header>
<main id="main">${opts.body}</main>
</body></html>`;
}

function timeline(t: GetPublicTrackingResponse, lang: Language, texts: PageTexts): string {
  const reached = new Map(t.history.flatMap((h) => (PUBLIC_NAMES[h.status] && h.occurTime ? [[PUBLIC_NAMES[h.status] as StatusName, h.occurTime] as const] : [])));
  const current = PUBLIC_NAMES[t.status] as StatusName;
  const ended = current === "FAILED" || current === "CANCELLED";
  const steps = ended ? [...HAPPY_PATH.filter((s) => reached.has(s)), current] : HAPPY_PATH;
  const items = steps.map((step) => {
    const at = reached.get(step);
    const state = step === current ? "current" : at ? "done" : "pending";
    return `<li class="${state}" data-status="${step}"${step === current ? ' aria-current="step"' : ""}><span class="step">${texts.status[step]}</span> ${at ? timeTag(at, lang) : `<span class="pending">${texts.pending}</span>`}</li>`;
  });
  return `<section aria-labelledby="progress-title"><h2 id="progress-title">${texts.progress}</h2><ol class="timeline">${items.join("")}</ol></section>`;
}

function eta(t: GetPublicTrackingResponse, lang: Language, texts: PageTexts): string {
  const lines = [
    t.estimates?.pickupTime ? `<p class="eta" data-eta="pickup">${texts.etaPickup}: ${timeTag(t.estimates.pickupTime, lang)}</p>` : "",
    t.estimates?.deliveryTime ? `<p class="eta" data-eta="delivery">${texts.etaDelivery}: ${timeTag(t.estimates.deliveryTime, lang)}</p>` : "",
  ].join("");
  const active = !["DELIVERED", "FAILED", "CANCELLED"].includes(PUBLIC_NAMES[t.status] ?? "");
  return lines || (active ? `<p class="eta">${texts.noEta}</p>` : "");
}

function map(t: GetPublicTrackingResponse, texts: PageTexts): string {
  if (!t.pickupArea || !t.destinationArea) return "";
  const driver = t.driverLocation?.position ?? null;
  const note = !driver ? texts.noDriverPosition : t.driverLocation?.stale ? texts.staleNote : "";
  const sketch = mapSketch({
    pickup: t.pickupArea,
    destination: t.destinationArea,
    driver,
    labels: { pickup: texts.pickupArea, destination: texts.destinationArea, driver: texts.driverArea, description: texts.mapDescription },
  });
  return `<section aria-labelledby="map-title"><h2 id="map-title">${texts.map}</h2>${sketch}${note ? `<p class="note">${note}</p>` : ""}</section>`;
}

/** The tracking page of one shipment, refreshing itself at the recommended interval. */
export function trackingPage(t: GetPublicTrackingResponse, lang: Language): string {
  const texts = PAGE_TEXTS[lang];
  const status = PUBLIC_NAMES[t.status] as StatusName;
  const body = `<h1 id="status" data-status="${status}">${texts.status[status]}</h1>${eta(t, lang, texts)}${map(t, texts)}${timeline(t, lang, texts)}<p class="refresh">${texts.refresh(t.recommendedRefreshSeconds)}</p>`;
  return shell({ lang, title: texts.status[status], refreshSeconds: t.recommendedRefreshSeconds, body });
}

export type ErrorPage = "notFound" | "expired" | "busy" | "unavailable";

/** The pages for an unknown, expired, over-used or unanswerable link. */
export function errorPage(kind: ErrorPage, lang: Language): string {
  const texts = PAGE_TEXTS[lang];
  const title = texts[`${kind}Title`];
  return shell({ lang, title, body: `<h1 id="status" data-status="${kind}">${title}</h1><p>${texts[kind]}</p>` });
}

/** Large type, strong contrast (WCAG AA), logical properties so the same sheet serves both directions. */
export const STYLESHEET = `
:root{color-scheme:light;--ink:#1b1f23;--muted:#4a5560;--accent:#0b5d3b;--line:#c9d1d9;--bg:#ffffff;--soft:#f1f5f3}
*{box-sizing:border-box}
body{margin:0;font:1rem/1.5 system-ui,"Segoe UI",Tahoma,"Noto Sans Arabic",sans-serif;color:var(--ink);background:var(--bg)}
header{display:flex;justify-content:space-between;align-items:center;padding:.75rem 1rem;border-block-end:1px solid var(--line)}
.brand{margin:0;font-weight:700;color:var(--accent)}
.languages{display:flex;gap:.75rem;list-style:none;margin:0;padding:0}
.languages a{color:var(--accent);font-weight:600}
.languages a[aria-current]{color:var(--ink);text-decoration:none}
main{max-inline-size:40rem;margin-inline:auto;padding:1rem}
h1{font-size:1.6rem;margin-block:.5rem}
h2{font-size:1.1rem;margin-block:1.25rem .5rem}
.eta{font-weight:600;margin-block:.25rem}
.map{inline-size:100%;block-size:auto;border:1px solid var(--line);border-radius:.5rem}
.map .ground{fill:var(--soft)}
.map .route{stroke:var(--muted);stroke-width:1.5;stroke-dasharray:4 4}
.map .pickup rect{fill:#d8e7ff;stroke:#1d4ed8}
.map .destination rect{fill:#ffe2cc;stroke:#9a3412}
.map .driver circle{fill:rgba(11,93,59,.25);stroke:var(--accent);stroke-width:2}
.map text{font-size:11px;fill:var(--ink)}
.note{color:var(--muted)}
.timeline{list-style:none;margin:0;padding:0}
.timeline li{padding-block:.4rem;padding-inline-start:1.25rem;border-inline-start:3px solid var(--line)}
.timeline li.done{border-color:var(--accent)}
.timeline li.current{border-color:var(--accent);font-weight:700}
.timeline .pending{color:var(--muted)}
.timeline time{color:var(--muted);margin-inline-start:.5rem}
.refresh{color:var(--muted);font-size:.9rem;margin-block-start:1.5rem}
`;
