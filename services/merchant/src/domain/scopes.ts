import { ValidationError } from "@tawsil/errors";
import { InvalidScopeError } from "./errors";

/** Every scope of the API (delivery-api.md, Authentication), in the order tokens list them. */
export const SCOPES = ["shipments:read", "shipments:write", "webhooks:manage"] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Catalogue order, duplicates removed: the stored and the issued form of a scope set. */
function canonical(scopes: Iterable<Scope>): Scope[] {
  const set = new Set(scopes);
  return SCOPES.filter((scope) => set.has(scope));
}

/** The scopes an operator grants a new client: at least one, each from the catalogue. */
export function parseClientScopes(field: string, values: readonly string[]): Scope[] {
  if (values.length === 0) throw new ValidationError(field, `at least one of ${SCOPES.join(", ")} is required`);
  const unknown = values.find((value) => !isScope(value));
  if (unknown !== undefined) throw new ValidationError(field, `unknown scope ${JSON.stringify(unknown)}; known: ${SCOPES.join(", ")}`);
  return canonical(values as Scope[]);
}

/**
 * The scopes a token gets: what was asked for, which must be a subset of the client's scopes,
 * or all of the client's when nothing was asked for (RFC 6749 section 3.3, decisions.md section 10).
 */
export function narrowScopes(requested: readonly string[], granted: readonly string[]): Scope[] {
  const grantedSet = new Set(granted);
  const held = SCOPES.filter((scope) => grantedSet.has(scope));
  const asked = requested.filter((scope) => scope !== "");
  if (asked.length === 0) return held;
  const outside = asked.find((scope) => !isScope(scope) || !grantedSet.has(scope));
  if (outside !== undefined) throw new InvalidScopeError(outside);
  return canonical(asked as Scope[]);
}
