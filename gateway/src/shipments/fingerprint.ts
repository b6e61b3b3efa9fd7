import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth: the same request always serializes the same way. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The payload fingerprint of an idempotent request (decisions.md section 3): SHA-256 over the
 * operation's shape and the canonical JSON of the parsed body.
 */
export function fingerprint(operation: string, body: unknown): string {
  return createHash("sha256").update(`${operation}\n${canonical(body)}`).digest("hex");
}
