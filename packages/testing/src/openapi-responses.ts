/**
 * Every response the tests receive from a gateway is checked against the OpenAPI document: status,
 * documented headers (required ones present, each value matching its schema), media type and body.
 * A response the document does not describe fails the request, and so the test that made it.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;
export type ResponseCheck = (request: { method: string; url: string }, response: { status: number; headers: Headers; body: Buffer }) => string[];

/**
 * Gateway routes outside the contract: probes, metrics, the pages behind problem `type` URLs
 * (documentation for people, tested by gateway/test/problem-pages.test.ts), and the routes test stacks add.
 */
const OUTSIDE_CONTRACT = [/^\/healthz$/, /^\/readyz$/, /^\/metrics$/, /^\/problems\/[^/]+$/, /^\/test\//];

/**
 * Response objects may grow additively (clients ignore unknown fields), so the document leaves them
 * open; but the gateway must not send a field the document does not name, so the tests close every
 * object schema that does not say otherwise (the problem says additionalProperties: true).
 */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (node === null || typeof node !== "object") return node;
  const copy: Json = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, closeObjects(value)]));
  if (copy.type === "object" && copy.properties && !("additionalProperties" in copy) && !("unevaluatedProperties" in copy)) copy.additionalProperties = false;
  return copy;
}

const escapePointer = (part: string) => part.replaceAll("~", "~0").replaceAll("/", "~1");

/** Follows an internal `$ref` (responses, headers): returns the object and its JSON pointer. */
function deref(document: Json, node: Json, pointer: string): [Json, string] {
  const ref = node.$ref;
  if (typeof ref !== "string") return [node, pointer];
  const target = ref.slice(2).split("/").reduce<unknown>((at, part) => (at as Json)[part.replaceAll("~1", "/").replaceAll("~0", "~")], document);
  return deref(document, target as Json, ref.slice(1));
}

export function openApiResponseCheck(source: Json): ResponseCheck {
  const document = closeObjects(source) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 6 });
  addFormats.default(ajv);
  for (const format of ["int32", "int64", "float", "double"]) ajv.addFormat(format, true);
  ajv.addSchema(document, "openapi");
  const schemaErrors = (pointer: string, value: unknown): string[] => {
    const validate = ajv.getSchema(`openapi#${pointer}`);
    if (!validate) return [`no schema at ${pointer}`];
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
  };
  const paths = Object.entries(document.paths as Json).map(([template, item]) => ({
    template,
    // Literal paths win over templated ones; a parameter is one segment.
    params: (template.match(/\{/g) ?? []).length,
    regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, "[^/]+")}$`),
    item: item as Json,
  })).sort((a, b) => a.params - b.params);

  const problemOf = (status: number, code: string, response: { headers: Headers; body: Buffer }): string[] => {
    const errors: string[] = [];
    if (response.headers.get("content-type") !== "application/problem+json") errors.push(`content-type ${response.headers.get("content-type")} is not application/problem+json`);
    let body: Json = {};
    try {
      body = JSON.parse(response.body.toString("utf8")) as Json;
    } catch {
      return [...errors, "the body is not JSON"];
    }
    errors.push(...schemaErrors("/components/schemas/Problem", body));
    if (body.status !== status || body.code !== code) errors.push(`expected ${status} ${code}, got ${String(body.status)} ${String(body.code)}`);
    return errors;
  };

  return (request, response) => {
    const path = new URL(request.url).pathname;
    if (OUTSIDE_CONTRACT.some((pattern) => pattern.test(path))) return [];
    const route = paths.find((candidate) => candidate.regex.test(path));
    // The document's general rules (info.description): unknown paths 404, unknown methods 405 with Allow.
    if (!route) return response.status === 404 ? problemOf(404, "RESOURCE_NOT_FOUND", response) : [`no path of the document matches ${path}`];
    const method = request.method.toLowerCase() === "head" ? "get" : request.method.toLowerCase();
    const operation = route.item[method] as Json | undefined;
    if (!operation) {
      const errors = response.status === 405 ? problemOf(405, "METHOD_NOT_ALLOWED", response) : [`${request.method} is not documented on ${route.template}`];
      return response.headers.get("allow") ? errors : [...errors, "a 405 without an Allow header"];
    }
    const base = `/paths/${escapePointer(route.template)}/${method}/responses`;
    const responses = operation.responses as Json;
    const key = [String(response.status), `${String(response.status)[0]}XX`, "default"].find((candidate) => candidate in responses);
    if (!key) return [`status ${response.status} is not documented for ${request.method} ${route.template}`];
    const [described, pointer] = deref(document, responses[key] as Json, `${base}/${escapePointer(key)}`);
    const errors: string[] = [];
    for (const [name, header] of Object.entries((described.headers ?? {}) as Json)) {
      const [spec, headerPointer] = deref(document, header as Json, `${pointer}/headers/${escapePointer(name)}`);
      const value = response.headers.get(name);
      if (value === null) {
        if (spec.required) errors.push(`the required header ${name} is missing`);
        continue;
      }
      errors.push(...schemaErrors(`${headerPointer}/schema`, value).map((e) => `header ${name}: ${e}`));
    }
    const content = described.content as Json | undefined;
    if (!content || request.method === "HEAD") {
      if (content === undefined && response.body.length > 0) errors.push(`a body where the document describes none`);
      return errors;
    }
    const mediaType = (response.headers.get("content-type") ?? "").split(";", 1)[0]!.trim();
    if (!(mediaType in content)) return [...errors, `content-type ${mediaType} is not one of ${Object.keys(content).join(", ")}`];
    if (!/[/+]json$/.test(mediaType)) return errors;
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString("utf8"));
    } catch {
      return [...errors, "the body is not JSON"];
    }
    return [...errors, ...schemaErrors(`${pointer}/content/${escapePointer(mediaType)}/schema`, body).map((e) => `body ${e}`)];
  };
}

const checks = new Map<string, ResponseCheck>();
let installed = false;

/**
 * From now on every `fetch` to `baseUrl`'s origin in this test file is checked against `document`;
 * a response it does not describe makes that fetch reject with the reasons.
 */
export function validateResponsesFrom(baseUrl: string, document: Json): void {
  checks.set(new URL(baseUrl).origin, openApiResponseCheck(document));
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const check = checks.get(new URL(url).origin);
    if (!check) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const body = Buffer.from(await response.clone().arrayBuffer());
    const errors = check({ method, url }, { status: response.status, headers: response.headers, body });
    if (errors.length > 0) {
      throw new Error(`${method} ${new URL(url).pathname} answered ${response.status}, which the OpenAPI document does not describe:\n  ${errors.join("\n  ")}\n  body: ${body.toString("utf8").slice(0, 500)}`);
    }
    return response;
  };
}
