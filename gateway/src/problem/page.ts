import type { Language } from "../request/language";
import { PROBLEMS, type ProblemCode } from "./catalogue";
import { EXPLANATIONS } from "./explanations";

/** `code` in kebab-case: the slug of the problem type URI (decisions.md section 12). */
export function problemSlug(code: ProblemCode): string {
  return code.toLowerCase().replaceAll("_", "-");
}

const BY_SLUG = new Map((Object.keys(PROBLEMS) as ProblemCode[]).map((code) => [problemSlug(code), code]));

/** The code a type URL's slug names, if any. */
export function codeOfSlug(slug: string): ProblemCode | undefined {
  return BY_SLUG.get(slug);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const WORDS = {
  en: { dir: "ltr", heading: "Problem", status: "HTTP status", meaning: "What it means", fix: "How to fix it", reference: "API reference" },
  ar: { dir: "rtl", heading: "مشكلة", status: "حالة HTTP", meaning: "ما معناه", fix: "كيف تعالجه", reference: "مرجع الواجهة" },
} as const;

/** No script, no outside asset: the page works under `default-src 'none'` plus its own inline style. */
export const PROBLEM_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1d2433}" +
  "code{background:#f1f3f7;padding:0 .25rem;border-radius:3px}h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:1.5rem}";

/** The page behind `{base_url}/problems/<slug>`: the code, its status and title, what it means and how to fix it. */
export function problemPage(code: ProblemCode, lang: Language): string {
  const words = WORDS[lang];
  const { status, title } = PROBLEMS[code];
  const { meaning, fix } = EXPLANATIONS[code];
  return `<!doctype html>
<html lang="${lang}" dir="${words.dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title[lang])} · Tawsil</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(title[lang])}</h1>
<p>${words.heading} <code>${code}</code> · ${words.status} <code>${status}</code></p>
<h2>${words.meaning}</h2>
<p>${escapeHtml(meaning[lang])}</p>
<h2>${words.fix}</h2>
<p>${escapeHtml(fix[lang])}</p>
<p><a href="/docs">${words.reference}</a></p>
</body>
</html>
`;
}
