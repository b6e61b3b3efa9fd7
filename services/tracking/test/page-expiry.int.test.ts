import { createHash, randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { artefactPath, launchChromium, type HeadlessBrowser } from "../../../tests/e2e/support/browser";
import { shipmentChanged, startTrackingStack, type TrackingStack } from "./support";

/**
 * The customer page's ends of life in Debian's headless Chromium: a link 7 days past its terminal
 * state shows the expired page, an unknown one the not-found page, in both languages and
 * directions. The tracking service's clock is the test's, so the 7 days pass at once.
 */
let stack: TrackingStack;
let browser: HeadlessBrowser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startTrackingStack({ adminUrl: inject("databaseAdminUrl"), brokers: inject("kafkaBrokers") }), launchChromium()]);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const SEVEN_DAYS_MS = 7 * 24 * 3600_000;

/** A delivered shipment's link, as the tracking service learnt it from the shipment events. */
async function deliveredLink(endedAt: Date): Promise<string> {
  const shipmentId = randomUUID();
  const code = randomBytes(32).toString("base64url");
  const codeHash = new Uint8Array(createHash("sha256").update(code, "ascii").digest());
  const merchantId = stack.gateway.merchant.id;
  let version = 0;
  for (const state of ["PENDING_APPROVAL", "READY_FOR_DISPATCH", "OFFERED", "ACCEPTED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"] as const) {
    await stack.publish("shipments", shipmentId, shipmentChanged({ shipmentId, merchantId, state, version: ++version, at: endedAt, codeHash }));
  }
  return `${stack.gateway.baseUrl}/t/${code}`;
}

/** Opens a page and reads what the customer sees of it. */
async function visit(url: string, locale: string) {
  const page = await browser.context.newPage();
  await page.setExtraHTTPHeaders({ "accept-language": locale });
  const response = await page.goto(url);
  return {
    page,
    status: response?.status(),
    lang: await page.locator("html").getAttribute("lang"),
    dir: await page.locator("html").getAttribute("dir"),
    heading: await page.locator("main h1").textContent(),
    kind: await page.locator("main h1").getAttribute("data-status"),
    switchLinks: await page.getByRole("navigation").getByRole("link").count(),
  };
}

describe("the customer page at the end of a link's life", () => {
  it("shows the delivered page until 7 days after delivery, then the expired page, in English and in Arabic", async () => {
    const endedAt = new Date(stack.now.getTime());
    const url = await deliveredLink(endedAt);
    const saved = stack.now;
    try {
      stack.now = new Date(endedAt.getTime() + SEVEN_DAYS_MS - 1000);
      const before = await visit(url, "en");
      expect([before.status, before.kind]).toEqual([200, "DELIVERED"]);
      await before.page.close();

      stack.now = new Date(endedAt.getTime() + SEVEN_DAYS_MS);
      const english = await visit(url, "en");
      expect(english).toMatchObject({ status: 410, lang: "en", dir: "ltr", kind: "expired", heading: "Tracking link expired", switchLinks: 2 });
      await english.page.screenshot({ path: artefactPath("tracking-page", "expired-en.png"), fullPage: true });

      // The visible switch leads to the same expired page, right to left.
      await english.page.getByRole("link", { name: "العربية" }).click();
      await english.page.waitForURL(/lang=ar/);
      expect([await english.page.locator("html").getAttribute("dir"), await english.page.locator("main h1").textContent()]).toEqual(["rtl", "انتهت صلاحية رابط التتبع"]);
      await english.page.close();

      const arabic = await visit(url, "ar");
      expect(arabic).toMatchObject({ status: 410, lang: "ar", dir: "rtl", kind: "expired", heading: "انتهت صلاحية رابط التتبع" });
      await arabic.page.screenshot({ path: artefactPath("tracking-page", "expired-ar.png"), fullPage: true });
      await arabic.page.close();
    } finally {
      stack.now = saved;
    }
  }, 120_000);

  it("shows the not-found page for a link nobody issued, in both languages", async () => {
    const url = `${stack.gateway.baseUrl}/t/${randomBytes(32).toString("base64url")}`;
    const english = await visit(url, "en");
    expect(english).toMatchObject({ status: 404, lang: "en", dir: "ltr", kind: "notFound" });
    await english.page.screenshot({ path: artefactPath("tracking-page", "not-found-en.png"), fullPage: true });
    await english.page.close();
    const arabic = await visit(url, "ar");
    expect(arabic).toMatchObject({ status: 404, lang: "ar", dir: "rtl", kind: "notFound" });
    await arabic.page.screenshot({ path: artefactPath("tracking-page", "not-found-ar.png"), fullPage: true });
    await arabic.page.close();
  }, 60_000);
});
