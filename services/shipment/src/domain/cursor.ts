import { createHmac, timingSafeEqual } from "node:crypto";
import { InvalidCursorError } from "./errors";
import type { ShipmentState } from "./lifecycle";

/** The query a cursor belongs to: tenant, filters and sort. */
export interface ListQuery {
  readonly merchantId: string;
  readonly state: ShipmentState | null;
  readonly externalReference: string | null;
}

/** The last row of a page: the keyset position (created_at DESC, id DESC). */
export interface Position {
  readonly createdAt: Date;
  readonly id: string;
}

const SORT = "created_at DESC, id DESC";
const MAC_BYTES = 32;
const PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * base64url(position JSON || HMAC-SHA256). The MAC covers the position and the query it was issued
 * for, so the query need not travel (the cursor stays short, under the contract's 256 characters)
 * and a cursor edited, or replayed with another tenant, filter or sort, fails verification.
 */
export function encodeCursor(secret: Uint8Array, query: ListQuery, position: Position): string {
  const payload = Buffer.from(JSON.stringify({ c: position.createdAt.getTime(), i: position.id }));
  return Buffer.concat([payload, mac(secret, query, payload)]).toString("base64url");
}

export function decodeCursor(secret: Uint8Array, query: ListQuery, cursor: string): Position {
  if (!PATTERN.test(cursor)) throw new InvalidCursorError();
  const bytes = Buffer.from(cursor, "base64url");
  // base64url decoding ignores what it cannot read; re-encoding proves the text was canonical.
  if (bytes.length <= MAC_BYTES || bytes.toString("base64url") !== cursor) throw new InvalidCursorError();
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(bytes.length - MAC_BYTES), mac(secret, query, payload))) throw new InvalidCursorError();
  const parsed = JSON.parse(payload.toString("utf8")) as { c?: unknown; i?: unknown };
  if (typeof parsed.c !== "number" || typeof parsed.i !== "string") throw new InvalidCursorError();
  return { createdAt: new Date(parsed.c), id: parsed.i };
}

function mac(secret: Uint8Array, query: ListQuery, payload: Uint8Array): Buffer {
  const scope = JSON.stringify([query.merchantId, query.state, query.externalReference, SORT]);
  return createHmac("sha256", secret).update(scope).update("\n").update(payload).digest();
}
