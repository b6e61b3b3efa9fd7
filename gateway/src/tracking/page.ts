import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { PublicReason, type GetPublicTrackingResponse } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import type { Language } from "../request/language";
import { PUBLIC_NAMES } from "../shipments/render";
import { PAGE_FORMAT, type PageFormat } from "./page-format";
import { mapLegend, mapSketch } from "./page-map";
import { STYLESHEET_PATH } from "./page-style";
import { PAGE_TEXTS, type ErrorPage, type FinishedStatus, type PageTexts, type ReasonName, type StatusName } from "./page-texts";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The happy path; a failed or cancelled delivery ends the timeline where it stopped. */
const HAPPY_PATH = ["CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"] as const;
type Step = (typeof HAPPY_PATH)[number];

/** The contract's terminal statuses (there is no RETURNED): nothing moves any more, so nothing refreshes. */
const isFinished = (status: StatusName): status is FinishedStatus => status === "DELIVERED" || status === "FAILED" || status === "CANCELLED";

/** What the page needs to know of one shipment, read once from the projection. */
interface Shown {
  readonly t: GetPublicTrackingResponse;
  readonly status: StatusName;
  readonly reached: ReadonlyMap<StatusName, Timestamp>;
  readonly texts: PageTexts;
  readonly f: PageFormat;
}

function timeTag(at: Timestamp, f: PageFormat): string {
  return `<time datetime="${timestampDate(at).toISOString()}">${escapeHtml(f.time(at))}</time>`;
}

function languageSwitch(lang: Language, texts: PageTexts): string {
  const link = (to: Language, label: string) =>
    `<a href="?lang=${to}" lang="${to}" hreflang="${to}"${to === lang ? ' aria-current="true"' : ""}>${label}</a>`;
  return `<nav aria-label="${texts.languages}"><ul class="languages"><li>${link("en", "English")}</li><li>${link("ar", "العربية")}</li></ul></nav>`;
}

/** A page with a meta refresh only when given one: the CSP allows no script, so nothing else can reload it. */
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

/**
 * Each step as a sentence of its own: a step reached reads "Picked up: 27 Nov, 14:05", one still
 * to come "Delivery: still to come", named as what will happen ("Delivery"), never as if it had
 * ("Delivered"). A step passed whose time the projection lacks is named alone.
 */
function timeline({ status, reached, texts, f }: Shown): string {
  const ended = status === "FAILED" || status === "CANCELLED";
  const position = HAPPY_PATH.indexOf(status as Step);
  const passed: StatusName[] = ended ? [...HAPPY_PATH.filter((s) => reached.has(s)), status] : HAPPY_PATH.slice(0, position + 1);
  const upcoming: Step[] = ended ? [] : HAPPY_PATH.slice(position + 1);
  const done = passed.map((step) => {
    const at = reached.get(step);
    const current = step === status;
    const name = `<span class="step">${texts.status[step]}${at ? ":" : ""}</span>${at ? ` ${timeTag(at, f)}` : ""}`;
    return `<li class="${current ? "current" : "done"}" data-status="${step}"${current ? ' aria-current="step"' : ""}>${name}</li>`;
  });
  const pending = upcoming.map((step) => `<li class="pending" data-status="${step}"><span class="step">${texts.upcoming[step as Exclude<Step, "CREATED">]}:</span> <span class="state">${texts.stillToCome}</span></li>`);
  return `<section aria-labelledby="progress-title"><h2 id="progress-title">${texts.progress}</h2><ol class="timeline">${[...done, ...pending].join("")}</ol></section>`;
}

function eta({ t, texts, f }: Shown): string {
  const lines = [
    t.estimates?.pickupTime ? `<p class="eta" data-eta="pickup">${texts.etaPickup}: ${timeTag(t.estimates.pickupTime, f)}</p>` : "",
    t.estimates?.deliveryTime ? `<p class="eta" data-eta="delivery">${texts.etaDelivery}: ${timeTag(t.estimates.deliveryTime, f)}</p>` : "",
  ].join("");
  return lines || `<p class="eta">${texts.noEta}</p>`;
}

function map({ t, texts, f }: Shown): string {
  if (!t.pickupArea || !t.destinationArea) return "";
  const driver = t.driverLocation?.position ? t.driverLocation : null;
  const note = !driver ? texts.noDriverPosition : driver.stale ? texts.staleNote : "";
  const sketch = mapSketch({ pickup: t.pickupArea, destination: t.destinationArea, driver: driver?.position ?? null, description: texts.mapDescription });
  const legend = mapLegend({ pickup: texts.pickupArea, destination: texts.destinationArea, driver: driver ? texts.driverArea(driver.accuracyMetres, f) : null });
  return `<section aria-labelledby="map-title"><h2 id="map-title">${texts.map}</h2>${sketch}${legend}${note ? `<p class="note">${note}</p>` : ""}</section>`;
}

/**
 * The delivery PIN, which the tracking service answers only while the shipment is OUT_FOR_DELIVERY
 * (decisions.md section 17); the page adds the status check of its own, so no other page shows it.
 */
function deliveryPin({ t, status, texts }: Shown): string {
  if (status !== "OUT_FOR_DELIVERY" || !/^\d{4}$/.test(t.deliveryPin)) return "";
  return `<section aria-labelledby="pin-title"><h2 id="pin-title">${texts.deliveryPin}</h2><p class="pin" id="delivery-pin">${t.deliveryPin}</p><p class="note">${texts.deliveryPinNote}</p></section>`;
}

/** A finished delivery's outcome, when it came and, for one that did not arrive, why (in the customer's terms only). */
function outcome({ t, status, reached, texts, f }: Shown & { status: FinishedStatus }): string {
  const at = reached.get(status);
  const reason = t.reason === PublicReason.UNSPECIFIED ? null : texts.reason[PublicReason[t.reason] as ReasonName];
  return [
    `<p class="outcome" id="outcome">${texts.outcome[status](at ? timeTag(at, f) : null)}</p>`,
    reason && status !== "DELIVERED" ? `<p id="reason">${escapeHtml(reason)}</p>` : "",
    status === "DELIVERED" ? "" : `<p>${texts.contactSender}</p>`,
  ].join("");
}

/**
 * The tracking page of one shipment. While the delivery goes on it shows the estimate, the map and
 * the refresh interval, and refreshes itself at the recommended interval; once it has ended it
 * states the outcome and stops: no refresh, no map, no estimate, nothing that says where a
 * finished parcel is.
 */
export function trackingPage(t: GetPublicTrackingResponse, lang: Language): string {
  const texts = PAGE_TEXTS[lang];
  const status = PUBLIC_NAMES[t.status] as StatusName;
  const reached = new Map(t.history.flatMap((h) => (PUBLIC_NAMES[h.status] && h.occurTime ? [[PUBLIC_NAMES[h.status] as StatusName, h.occurTime] as const] : [])));
  const shown: Shown = { t, status, reached, texts, f: PAGE_FORMAT[lang] };
  const heading = `<h1 id="status" data-status="${status}">${texts.status[status]}</h1>`;
  if (isFinished(status)) return shell({ lang, title: texts.status[status], body: `${heading}${outcome({ ...shown, status })}${timeline(shown)}` });
  const refresh = `<p class="refresh">${texts.refresh(t.recommendedRefreshSeconds, shown.f)}</p>`;
  return shell({ lang, title: texts.status[status], refreshSeconds: t.recommendedRefreshSeconds, body: `${heading}${deliveryPin(shown)}${eta(shown)}${map(shown)}${timeline(shown)}${refresh}` });
}

/** The pages for an unknown, expired, over-used or unanswerable link. */
export function errorPage(kind: ErrorPage, lang: Language): string {
  const { title, body } = PAGE_TEXTS[lang].errors[kind];
  return shell({ lang, title, body: `<h1 id="status" data-status="${kind}">${title}</h1><p>${body(PAGE_FORMAT[lang])}</p>` });
}
