/**
 * The operations of the OpenAPI document as the fuzzer needs them: method, path template,
 * parameters and the request body's schema (references resolved) with the document's examples.
 */
type Json = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Json;
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** The JSON body's schema, or the form's for the token endpoint. */
  body: { mediaType: string; schema: Json; examples: unknown[] } | undefined;
  /** Needs a bearer token (an oauth2 requirement that is not optional). */
  authenticated: boolean;
  /** A driver route (security driverOAuth2): its token is the fuzz driver's. */
  driver: boolean;
}

/** Resolves every internal `$ref`, deeply (the document has no cycles). */
export function resolve(document: Json, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => resolve(document, item));
  if (node === null || typeof node !== "object") return node;
  const ref = (node as Json).$ref;
  if (typeof ref === "string") {
    const target = ref.slice(2).split("/").reduce<unknown>((at, part) => (at as Json)[part.replaceAll("~1", "/").replaceAll("~0", "~")], document);
    // Siblings of a $ref (a description, a default) add to the target.
    const { $ref: _ref, ...siblings } = node as Json;
    return resolve(document, { ...(target as Json), ...siblings });
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(document, value)]));
}

const METHODS = ["get", "post", "patch", "delete", "put"];

export function operationsOf(document: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const method of METHODS) {
      const raw = (item as Json)[method] as Json | undefined;
      if (!raw) continue;
      const op = resolve(document, raw) as Json;
      const security = (op.security ?? document.security) as Json[];
      const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Json;
      const [mediaType, media] = Object.entries(content)[0] ?? [];
      const mediaJson = media as Json | undefined;
      const examples = mediaJson ? [mediaJson.example, ...Object.values((mediaJson.examples ?? {}) as Json).map((e) => (e as Json).value)].filter((e) => e !== undefined) : [];
      operations.push({
        id: op.operationId as string,
        method: method.toUpperCase(),
        path,
        parameters: ((op.parameters ?? []) as Json[]).map((p) => ({ name: p.name as string, in: p.in as Parameter["in"], required: Boolean(p.required), schema: (p.schema ?? {}) as Json })),
        body: mediaType ? { mediaType, schema: mediaJson!.schema as Json, examples } : undefined,
        authenticated: security.some((s) => "oauth2" in s || "driverOAuth2" in s) && !security.some((s) => Object.keys(s).length === 0 || "basicClient" in s),
        driver: security.some((s) => "driverOAuth2" in s),
      });
    }
  }
  return operations;
}
