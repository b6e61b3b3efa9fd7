import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { PublicStatus } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { GetPublicTrackingResponseSchema, LocationStatus, PublicReason } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trackingPage } from "../../gateway/src/tracking/page";
import { STYLESHEET, STYLESHEET_PATH } from "../../gateway/src/tracking/page-style";
import { artefactPath, launchChromium, type HeadlessBrowser } from "./support/browser";
import { expectFinished, expectLive, expectReadable, type PageLanguage } from "./support/tracking-page-expectations";
import { pageFacts } from "./support/tracking-page-facts";

/**
 * The customer page drawn by Chromium from the gateway's renderer, for what the sandbox mesh does
 * not reach quickly: a failed delivery, and every geometry of the map (the driver at the pickup,
 * half way, at the destination; pickup and destination in one cell, side by side, far apart), each
 * of which put one label on another or off the map's edge before issue 28 point 8.
 */
let browser: HeadlessBrowser;
let page: Page;
let html = "";
const ORIGIN = "https://tawsil.test";

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  // The page's own origin, served from memory: the stylesheet is the gateway's, the HTML the renderer's.
  await page.route(`${ORIGIN}/**`, (route) =>
    new URL(route.request().url()).pathname === STYLESHEET_PATH
      ? route.fulfill({ contentType: "text/css", body: STYLESHEET })
      : route.fulfill({ contentType: "text/html; charset=utf-8", body: html }),
  );
});
afterAll(async () => browser?.close());

const LANGUAGES: readonly PageLanguage[] = ["en", "ar"];
const at = (minutesAgo: number) => timestampFromDate(new Date(Date.now() - minutesAgo * 60_000));
/** The seeded pickup's cell (decisions.md section 9's 0.005 degree grid). */
const PICKUP = { latitudeMicro: 24_715_000, longitudeMicro: 46_675_000 };
const STEPS = [PublicStatus.CREATED, PublicStatus.ASSIGNED, PublicStatus.PICKED_UP, PublicStatus.OUT_FOR_DELIVERY];

async function draw(lang: PageLanguage, fields: MessageInitShape<typeof GetPublicTrackingResponseSchema>, screenshot?: string) {
  html = trackingPage(create(GetPublicTrackingResponseSchema, fields), lang);
  await page.goto(`${ORIGIN}/t/code`);
  if (screenshot) await page.screenshot({ path: artefactPath("tracking-page-layout", `${screenshot}-${lang}.png`), fullPage: true });
  return pageFacts(page);
}

describe.each(LANGUAGES)("the customer page in %s, from the renderer", (lang) => {
  it("failed: states the outcome and the reason, stops refreshing, shows nothing live", async () => {
    const facts = await draw(
      lang,
      {
        status: PublicStatus.FAILED,
        locationStatus: LocationStatus.TERMINAL_NO_LIVE_LOCATION,
        recommendedRefreshSeconds: 60,
        history: [...STEPS, PublicStatus.FAILED].map((status, i) => ({ status, occurTime: at(50 - 10 * i) })),
        pickupArea: PICKUP,
        destinationArea: { latitudeMicro: 24_740_000, longitudeMicro: 46_700_000 },
        reason: PublicReason.RECIPIENT_UNREACHABLE,
      },
      "failed",
    );
    expectReadable(facts, lang);
    expectFinished(facts, lang, undefined);
    expect(facts.reason).toBe(lang === "en" ? "The driver could not reach the recipient." : "لم يتمكن السائق من الوصول إلى المستلم.");
  });

  // Trips from the pickup's cell (north, east, to the same cell, diagonal near and far), the
  // driver's cell at each fifth of the way.
  const trips = [
    [0, 0],
    [5_000, 0],
    [0, 5_000],
    [5_000, 5_000],
    [20_000, 20_000],
    [60_000, 65_000],
    [-30_000, 10_000],
  ] as const;
  it.each(trips)("out for delivery %i/%i microdegrees away: no label on another or cut off wherever the driver is", async (north, east) => {
    const destination = { latitudeMicro: PICKUP.latitudeMicro + north, longitudeMicro: PICKUP.longitudeMicro + east };
    for (const share of [0, 0.2, 0.4, 0.6, 0.8, 1]) {
      const snap = (micro: number) => Math.round(micro / 5_000) * 5_000;
      const driver = { latitudeMicro: snap(PICKUP.latitudeMicro + north * share), longitudeMicro: snap(PICKUP.longitudeMicro + east * share) };
      const facts = await draw(lang, {
        status: PublicStatus.OUT_FOR_DELIVERY,
        locationStatus: LocationStatus.AVAILABLE,
        recommendedRefreshSeconds: 5,
        history: STEPS.map((status, i) => ({ status, occurTime: at(30 - 5 * i) })),
        pickupArea: PICKUP,
        destinationArea: destination,
        driverLocation: { position: driver, accuracyMetres: 500, recordTime: at(0), stale: false, ageSeconds: 4n },
        estimates: { deliveryTime: timestampFromDate(new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 600_000)) },
      });
      expect(facts.driverOnMap).toBe(true);
      expectReadable(facts, lang);
      expectLive(facts, lang);
    }
  });
});
