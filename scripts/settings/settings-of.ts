/**
 * A process's settings as its README documents them: every key of the zod schema its config.ts
 * exports, with the default the schema applies and the JSDoc written above the key (in config.ts,
 * or in packages/config for the settings every process shares). Read from the code, so a README's
 * table cannot say something the process does not do.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export interface Setting {
  readonly name: string;
  /** The default as the process sees it, "required", or "unset" for an optional setting. */
  readonly default: string;
  readonly meaning: string;
}

/** The parts of zod 4's schema definitions this walk reads. */
interface Def {
  readonly type: string;
  readonly shape?: Record<string, { _zod: { def: Def } }>;
  readonly in?: { _zod: { def: Def } };
  readonly out?: { _zod: { def: Def } };
  readonly innerType?: { _zod: { def: Def } };
  readonly defaultValue?: unknown;
}
interface ZodLike {
  readonly _zod: { readonly def: Def };
  readonly description?: string;
}

/** The object schema under `.transform()`s and `.refine()`s. */
function objectDef(def: Def): Def {
  if (def.type === "object") return def;
  if (def.type === "pipe" && def.in) return objectDef(def.in._zod.def);
  throw new Error(`expected a zod object schema, found ${def.type}`);
}

/** What the process gets when the variable is not set. */
function defaultOf(def: Def): string {
  switch (def.type) {
    case "default":
    case "prefault":
      // Strings as the variable would be written; an empty one stays visible.
      return typeof def.defaultValue === "string" && def.defaultValue !== "" ? def.defaultValue : JSON.stringify(def.defaultValue);
    case "optional":
      return "unset";
    case "pipe": {
      // z.preprocess is a pipe from a transform: its output schema decides.
      const first = def.in?._zod.def;
      if (first?.type === "transform" && def.out) return defaultOf(def.out._zod.def);
      return first ? defaultOf(first) : "required";
    }
    default:
      return "required";
  }
}

/** JSDoc texts above each SCREAMING_SNAKE key of a source file, one line each. */
export function jsdocByKey(source: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const match of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n\s*([A-Z][A-Z0-9_]+):/g)) {
    const text = (match[1] ?? "").split("\n").map((line) => line.replace(/^\s*\*?\s?/, "").trim()).filter(Boolean).join(" ");
    docs.set(match[2] as string, text);
  }
  return docs;
}

export async function settingsOf(root: string, dir: string): Promise<Setting[]> {
  const configFile = path.join(root, dir, "src", "config.ts");
  const module = (await import(pathToFileURL(configFile).href)) as { schema?: ZodLike };
  if (!module.schema) throw new Error(`${dir}/src/config.ts exports no schema`);
  const docs = new Map([
    ...jsdocByKey(readFileSync(path.join(root, "packages", "config", "src", "common.ts"), "utf8")),
    ...jsdocByKey(readFileSync(configFile, "utf8")),
  ]);
  const shape = objectDef(module.schema._zod.def).shape ?? {};
  return Object.entries(shape).map(([name, field]) => ({
    name,
    default: defaultOf(field._zod.def),
    meaning: (field as unknown as ZodLike).description ?? docs.get(name) ?? "",
  }));
}
