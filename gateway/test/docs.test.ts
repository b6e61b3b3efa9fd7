import { validateResponsesFrom } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readOpenApiDocument } from "../src/openapi/document";
import { startBareGateway, type BareGateway } from "./support/bare-gateway";

/**
 * The reference page a merchant reads first (/docs, rendered from /v2/openapi.json): it says in
 * which language it is written, starts with how to get going, and links only to what a merchant can open.
 */
let gateway: BareGateway;
let served: Record<string, unknown>;

beforeAll(async () => {
  gateway = await startBareGateway();
  validateResponsesFrom(gateway.base, readOpenApiDocument());
  served = (await (await fetch(`${gateway.base}/v2/openapi.json`)).json()) as Record<string, unknown>;
});
afterAll(async () => gateway?.close());

/** Every `description` of the document, with where it is. */
function descriptions(node: unknown, at = "#"): [string, string][] {
  if (Array.isArray(node)) return node.flatMap((item, i) => descriptions(item, `${at}/${i}`));
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "description" && typeof value === "string" ? [[at, value] as [string, string]] : descriptions(value, `${at}/${key}`),
  );
}

describe("the reference page", () => {
  it("says it is English, whatever language the caller asks for: the page and the document are written in English only", async () => {
    for (const path of ["/docs", "/v2/openapi.json"]) {
      for (const language of ["ar", "ar-SA, en;q=0.5", "en"]) {
        const res = await fetch(`${gateway.base}${path}`, { headers: { "accept-language": language } });
        expect({ path, language, status: res.status }).toEqual({ path, language, status: 200 });
        expect({ path, language, contentLanguage: res.headers.get("content-language") }).toEqual({ path, language, contentLanguage: "en" });
      }
    }
    expect(await (await fetch(`${gateway.base}/docs`, { headers: { "accept-language": "ar" } })).text()).toContain('<html lang="en">');
  });

  it("opens with a getting-started section: sandbox, credentials, local receivers, the sequence of calls and versioning", () => {
    const { description } = served.info as { description: string };
    const start = description.indexOf("## Getting started");
    expect(start).toBeGreaterThanOrEqual(0);
    expect(start).toBeLessThan(description.indexOf("## Shapes A and B"));
    const section = description.slice(start, description.indexOf("\n## ", start + 1));
    for (const heading of ["### 1. Sandbox", "### 2. Credentials", "### 3. The sequence of calls", "### 4. Webhooks to a receiver on your machine", "### 5. Versions"]) {
      expect({ heading, present: section.includes(heading) }).toEqual({ heading, present: true });
    }
    for (const fact of ["https://sandbox.api.tawsil.sa", "/oauth/token", "/v2/external/me", "/v2/external/shipment-price-estimates", "/v2/external/shipments", "/v2/external/webhook", "https", "ETag", "sequence"]) {
      expect({ fact, present: section.includes(fact) }).toEqual({ fact, present: true });
    }
  });

  it("links to nothing a merchant cannot open: no repository file, no relative link outside the API", () => {
    const found = descriptions(served);
    expect(found.length).toBeGreaterThan(50);
    const repositoryFile = /(?:^|[\s(`'"])(?:\.{0,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.(?:md|ts|mjs|js|ya?ml|env|proto|sql)\b/;
    for (const [at, text] of found) {
      const links = [...text.matchAll(/\]\(([^)]*)\)/g)].map((m) => m[1] ?? "");
      const unreadable = links.filter((target) => !/^(?:https:\/\/(?:sandbox\.)?api\.tawsil\.sa\/|https:\/\/(?:www\.)?(?:rfc-editor\.org|datatracker\.ietf\.org|www\.standardwebhooks\.com)\/|#)/.test(target));
      expect({ at, unreadable }).toEqual({ at, unreadable: [] });
      expect({ at, file: repositoryFile.exec(text.replaceAll("/v2/openapi.json", ""))?.[0] ?? null }).toEqual({ at, file: null });
    }
  });
});
