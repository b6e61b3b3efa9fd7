import { problemSchemaErrors, validateResponsesFrom } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEMS, type ProblemCode } from "../src/problem/catalogue";
import { readOpenApiDocument } from "../src/openapi/document";
import { startBareGateway, type BareGateway } from "./support/bare-gateway";

/**
 * Every problem's `type` is `{base_url}/problems/<slug>` (decisions.md section 12); RFC 9457
 * section 3.1.1 recommends that it lead to documentation a person can read. Each code of the
 * catalogue has a page there, in the language Accept-Language asks for (section 13).
 */
const PUBLIC_BASE_URL = "https://api.tawsil.test";
let gateway: BareGateway;

beforeAll(async () => {
  gateway = await startBareGateway();
  // Every answer must be one the OpenAPI document describes or one of the routes outside the contract.
  validateResponsesFrom(gateway.base, readOpenApiDocument());
});
afterAll(async () => gateway?.close());

/** The problem's `type` URL, on this gateway's own address instead of its public one. */
const onThisGateway = (type: string) => `${gateway.base}${type.slice(PUBLIC_BASE_URL.length)}`;

describe("problem type pages", () => {
  it("leads from the type of a problem the gateway answers to a page about that problem", async () => {
    const problem = (await (await fetch(`${gateway.base}/v2/external/nothing-here`)).json()) as { type: string; code: string };
    expect(problemSchemaErrors(problem)).toEqual([]);
    expect(problem.type).toBe(`${PUBLIC_BASE_URL}/problems/resource-not-found`);
    const page = await fetch(onThisGateway(problem.type));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("RESOURCE_NOT_FOUND");
  });

  it("serves a page for every code of the catalogue, in English and in Arabic, saying what it means and how to fix it", async () => {
    const codes = Object.keys(PROBLEMS) as ProblemCode[];
    for (const code of codes) {
      const type = `${PUBLIC_BASE_URL}/problems/${code.toLowerCase().replaceAll("_", "-")}`;
      for (const language of ["en", "ar"] as const) {
        const res = await fetch(onThisGateway(type), { headers: { "accept-language": language === "ar" ? "ar-SA,ar;q=0.9" : "en-GB" } });
        expect({ code, language, status: res.status }).toEqual({ code, language, status: 200 });
        expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(res.headers.get("content-language")).toBe(language);
        expect(res.headers.get("vary")).toMatch(/accept-language/i);
        const html = await res.text();
        expect(html).toContain(`<html lang="${language}" dir="${language === "ar" ? "rtl" : "ltr"}">`);
        expect(html).toContain(`<code>${code}</code>`);
        expect(html).toContain(`${PROBLEMS[code].status}`);
        expect(html).toContain(PROBLEMS[code].title[language]);
        // Both sections, each with text of its own.
        for (const section of language === "en" ? ["What it means", "How to fix it"] : ["ما معناه", "كيف تعالجه"]) {
          expect({ code, language, section: html.includes(`<h2>${section}</h2>\n<p>`) }).toEqual({ code, language, section: true });
        }
      }
    }
  });

  it("gives every code a text of its own in each language", async () => {
    const texts = await Promise.all(
      Object.keys(PROBLEMS).map(async (code) => {
        const res = await fetch(`${gateway.base}/problems/${code.toLowerCase().replaceAll("_", "-")}`, { headers: { "accept-language": "ar" } });
        expect({ code, status: res.status }).toEqual({ code, status: 200 });
        return (await res.text()).replace(/<h1>[^]*?<\/h1>/, "");
      }),
    );
    expect(new Set(texts).size).toBe(texts.length);
  });

  it("answers a slug that names no code with 404 RESOURCE_NOT_FOUND, like any other unknown path", async () => {
    for (const slug of ["no-such-problem", "VALIDATION-FAILED", "validation_failed"]) {
      const res = await fetch(`${gateway.base}/problems/${slug}`);
      expect({ slug, status: res.status }).toEqual({ slug, status: 404 });
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(((await res.json()) as { code: string }).code).toBe("RESOURCE_NOT_FOUND");
    }
  });
});
