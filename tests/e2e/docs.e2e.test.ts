import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, validateResponsesFrom } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readOpenApiDocument } from "../../gateway/src/openapi/document";
import { BUNDLE, NODE_FLAGS } from "@tawsil/topology";
import { artefactPath, launchChromium, type HeadlessBrowser } from "./support/browser";

/**
 * The OpenAPI document as the compiled gateway serves it (issue 13): GET /v2/openapi.json is the
 * repository's document, and /docs renders it in a real browser from the gateway's own origin only.
 * The documentation needs no service, so the gateway bundle runs alone, its peers unreachable.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const document = readOpenApiDocument();
let gateway: ChildProcess;
let base = "";
let browser: HeadlessBrowser;

beforeAll(async () => {
  const port = await freePort();
  const peers = Object.fromEntries(["MERCHANT", "SHIPMENT", "PRICING", "DISPATCH", "TRACKING", "WEBHOOK"].map((s) => [`${s}_SERVICE_URL`, "http://127.0.0.1:9"]));
  gateway = spawn(process.execPath, [...NODE_FLAGS, BUNDLE], {
    cwd: path.join(ROOT, "gateway"),
    // No broker either: the gateway serves its pages without one (its revocation feed retries in the background).
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "warn", KAFKA_BROKERS: "127.0.0.1:9", ...peers },
    stdio: "inherit",
  });
  base = `http://127.0.0.1:${port}`;
  for (let alive = false; !alive && gateway.exitCode === null; ) {
    alive = await fetch(`${base}/healthz`).then((res) => res.ok, () => false);
    if (!alive) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(gateway.exitCode).toBeNull();
  validateResponsesFrom(base, document);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  gateway?.kill("SIGTERM");
});

/**
 * Absolute URLs the script would load something from: an element's src, a CSS url() or @import, a
 * worker or a module. Links (href, which load only when clicked), new URL() parsing, XML namespaces
 * and error texts load nothing.
 */
const ASSET_LOAD = /(?:\bsrc\s*[:=]\s*["'`]|url\(\s*["']|@import\s+["']|new\s+Worker\(\s*["'`]|import\(\s*["'`])https?:\/\//g;
const OUTSIDE_HOSTS = /fonts\.googleapis\.com|fonts\.gstatic\.com|cdn\.|unpkg\.com|jsdelivr\.net|cdnjs\./gi;

describe("the OpenAPI document served by the compiled gateway", () => {
  it("serves GET /v2/openapi.json as the repository's document, with an ETag that answers 304", async () => {
    const res = await fetch(`${base}/v2/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(document);
    const etag = res.headers.get("etag")!;
    const again = await fetch(`${base}/v2/openapi.json`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
  });

  it("serves /docs and its renderer with no outside URL and a CSP that allows only this origin", async () => {
    const res = await fetch(`${base}/docs`);
    const html = await res.text();
    expect(html).toContain('<redoc spec-url="/v2/openapi.json">');
    expect(html).not.toMatch(/https?:\/\//);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|'unsafe-eval'/);
    const script = await (await fetch(`${base}/docs/redoc.standalone.js`)).text();
    expect(script.length).toBeGreaterThan(100_000);
    expect(script.match(ASSET_LOAD) ?? []).toEqual([]);
    expect(script.match(OUTSIDE_HOSTS) ?? []).toEqual([]);
  });

  it("renders the reference in a browser, every request to this origin and nothing refused by the CSP", async () => {
    const page = await browser.context.newPage();
    const requested: string[] = [];
    const refused: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(`${base}/docs`);
    await page.getByRole("heading", { name: /Tawsil Delivery API/ }).first().waitFor({ timeout: 60_000 });
    await page.getByRole("heading", { name: "Create (or replay) a shipment" }).first().waitFor();
    await page.screenshot({ path: artefactPath("docs", "reference.png") });
    await page.close();
    const outside = requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith("data:") && !url.startsWith("blob:"));
    expect(outside).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${base}/docs`, `${base}/docs/redoc.standalone.js`, `${base}/v2/openapi.json`]));
    expect(refused).toEqual([]);
  });
});
