/**
 * Mutations of a valid JSON body driven by its schema: boundary values from the schema's own
 * limits, wrong types, missing required fields, unknown fields, odd unicode and huge strings.
 */
import type { Random } from "./random";

type Json = Record<string, unknown>;
type Path = (string | number)[];

export interface Leaf {
  path: Path;
  schema: Json;
  value: unknown;
}

/** The branch of a oneOf/anyOf that `value` was built for: the one whose required fields it has. */
function branchFor(schema: Json, value: unknown): Json {
  const branches = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (!branches) return schema;
  const fits = branches.find((b) => value !== null && typeof value === "object" && ((b.required ?? []) as string[]).every((key) => key in (value as Json)));
  return branchFor(fits ?? branches[0]!, value);
}

/** Every value of the body with the schema describing it, the body itself first. */
export function leavesOf(value: unknown, schema: Json, path: Path = []): Leaf[] {
  const own = branchFor(schema, value);
  const leaves: Leaf[] = [{ path, schema: own, value }];
  if (Array.isArray(value) && own.items) value.forEach((item, i) => leaves.push(...leavesOf(item, own.items as Json, [...path, i])));
  else if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value as Json)) {
      const childSchema = (own.properties as Json | undefined)?.[key] as Json | undefined;
      if (childSchema) leaves.push(...leavesOf(child, childSchema, [...path, key]));
    }
  }
  return leaves;
}

function setAt(body: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(body) as Json;
  let at: Json = copy;
  for (const key of path.slice(0, -1)) at = at[key as string] as Json;
  at[path.at(-1) as string] = value;
  return copy;
}

function deleteAt(body: unknown, path: Path): unknown {
  const copy = structuredClone(body) as Json;
  let at: Json = copy;
  for (const key of path.slice(0, -1)) at = at[key as string] as Json;
  delete at[path.at(-1) as string];
  return copy;
}

const typesOf = (schema: Json): string[] => {
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  if (typeof type === "string") return [type];
  if (schema.enum || schema.const !== undefined || schema.pattern || schema.format) return ["string"];
  return [];
};

/** Values at and just beyond each limit the schema states. */
export function boundaryValues(schema: Json, value: unknown): unknown[] {
  const out: unknown[] = [];
  const step = typeof schema.multipleOf === "number" ? schema.multipleOf : 1;
  for (const limit of ["minimum", "exclusiveMinimum"] as const) {
    const bound = schema[limit];
    if (typeof bound === "number") out.push(bound, bound - step, bound - step / 10);
  }
  for (const limit of ["maximum", "exclusiveMaximum"] as const) {
    const bound = schema[limit];
    if (typeof bound === "number") out.push(bound, bound + step, bound + step / 10);
  }
  if (typeof schema.multipleOf === "number" && typeof value === "number") out.push(value + schema.multipleOf / 7);
  if (typesOf(schema).includes("number") || typesOf(schema).includes("integer")) out.push(-0, 1e308, -1e308, 2 ** 53 + 1, 1e-9, 0.1 + 0.2);
  if (typesOf(schema).includes("integer")) out.push(1.5, 1e21);
  if (typeof schema.minLength === "number") out.push("x".repeat(Math.max(0, schema.minLength - 1)), "x".repeat(schema.minLength));
  if (typeof schema.maxLength === "number") out.push("x".repeat(schema.maxLength), "x".repeat(schema.maxLength + 1));
  if (schema.pattern && typeof value === "string") out.push(`${value} `, ` ${value}`, value.toLowerCase(), `${value}\n`, "");
  if (Array.isArray(schema.enum)) out.push("NOT_IN_THE_ENUM", String(schema.enum[0]).toLowerCase(), ` ${String(schema.enum[0])}`);
  if (schema.format === "date-time") out.push("2026-13-45T99:99:99Z", "yesterday", "2026-05-04", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-05-04T09:15:00+03:00");
  if (schema.format === "uri") out.push("not a url", "https://", "javascript:alert(1)", `https://example.com/${"a".repeat(2100)}`, "https://user:pw@example.com/x", "https://127.0.0.1/x", "https://example.com/#frag");
  if (typeof schema.minItems === "number" && Array.isArray(value)) out.push([]);
  if (typeof schema.maxItems === "number" && Array.isArray(value) && value.length > 0) out.push(Array.from({ length: schema.maxItems + 1 }, () => value[0]));
  if (schema.uniqueItems && Array.isArray(value) && value.length > 0) out.push([value[0], value[0]]);
  return out;
}

const WRONG_TYPES: [string, unknown][] = [
  ["null", null],
  ["boolean", true],
  ["integer", 0],
  ["integer", -1],
  ["number", 1.5],
  ["string", "a string"],
  ["string", ""],
  ["array", []],
  ["array", [1, "two", null]],
  ["object", {}],
  ["object", { nested: { deeper: [] } }],
];

export function wrongTypeValues(schema: Json): unknown[] {
  const allowed = typesOf(schema);
  return WRONG_TYPES.filter(([type]) => !allowed.includes(type) && !(type === "integer" && allowed.includes("number"))).map(([, v]) => v);
}

export const ODD_STRINGS = [
  "مرحبا بالعالم",
  "\u202Eevil\u202C",
  "😀👩‍👩‍👧‍👦🇸🇦",
  "a\u0000b",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\uFEFFBOM",
  "e\u0301\u0301\u0301",
  "<script>alert(1)</script>",
  "'; DROP TABLE shipment; --",
  "${jndi:ldap://x}",
  "../../etc/passwd",
  "%00%ff",
  "\r\nX-Injected: 1",
  "ﷺ".repeat(40),
  "Ω≈ç√∫˜µ≤≥÷",
  "\t \n",
];

export type BodyMutation = "valid" | "boundary" | "wrong-type" | "missing-field" | "extra-field" | "unicode" | "huge-string";

/** One mutation of `body`; the description names what changed, for the report and for findings. */
export function mutateBody(random: Random, kind: BodyMutation, body: unknown, schema: Json): { body: unknown; change: string } {
  const leaves = leavesOf(body, schema);
  const leaf = random.pick(leaves.length > 1 ? leaves.slice(1) : leaves);
  const where = leaf.path.join(".") || "(body)";
  switch (kind) {
    case "valid":
      return { body, change: "none" };
    case "boundary": {
      const candidates = leaves.flatMap((l) => boundaryValues(l.schema, l.value).map((v) => [l, v] as const));
      if (candidates.length === 0) return { body, change: "none" };
      const [target, value] = random.pick(candidates);
      return { body: setAt(body, target.path, value), change: `${target.path.join(".")}=${JSON.stringify(value).slice(0, 40)}` };
    }
    case "wrong-type": {
      const values = wrongTypeValues(leaf.schema);
      const value = values.length > 0 ? random.pick(values) : null;
      return { body: setAt(body, leaf.path, value), change: `${where}:${JSON.stringify(value)}` };
    }
    case "missing-field": {
      const objects = leaves.filter((l) => l.value !== null && typeof l.value === "object" && !Array.isArray(l.value) && ((l.schema.required ?? []) as string[]).length > 0);
      if (objects.length === 0) return { body: {}, change: "everything" };
      const target = random.pick(objects);
      const field = random.pick(((target.schema.required ?? []) as string[]).filter((f) => f in (target.value as Json)));
      return { body: field === undefined ? body : deleteAt(body, [...target.path, field]), change: `-${[...target.path, field].join(".")}` };
    }
    case "extra-field": {
      const objects = leaves.filter((l) => l.value !== null && typeof l.value === "object" && !Array.isArray(l.value));
      const target = random.pick(objects);
      const name = random.pick(["colour", "__proto__", "constructor", "prototype", "id", "merchantId", "status", "", " ", "x".repeat(200), "مفتاح"]);
      const extra = JSON.parse(`{${JSON.stringify(name)}: ${JSON.stringify(random.pick([1, "x", null, { isAdmin: true }, []]))}}`) as Json;
      return { body: setAt(body, target.path, { ...(target.value as Json), ...extra }), change: `+${[...target.path, name].join(".").slice(0, 40)}` };
    }
    case "unicode": {
      const strings = leaves.filter((l) => typeof l.value === "string");
      const target = strings.length > 0 ? random.pick(strings) : leaf;
      const odd = random.pick(ODD_STRINGS);
      const value = typeof target.value === "string" && random.chance(0.5) ? `${target.value}${odd}` : odd;
      return { body: setAt(body, target.path, value), change: `${target.path.join(".")}:unicode` };
    }
    case "huge-string": {
      const strings = leaves.filter((l) => typeof l.value === "string");
      const target = strings.length > 0 ? random.pick(strings) : leaf;
      const length = random.pick([1_000, 10_000, 100_000, 300_000]);
      return { body: setAt(body, target.path, random.pick(["x", "ش", "😀"]).repeat(length)), change: `${target.path.join(".")}:${length} chars` };
    }
  }
}
