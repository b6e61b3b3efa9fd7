import { createHash } from "node:crypto";
import { FailedPreconditionError, ValidationError } from "@tawsil/errors";
import type { IdempotencyScope, Outcome, StoredRecord } from "./ports";

/**
 * An idempotent request as the gateway identifies it. The merchant's request shape is not part of
 * it: the fingerprint covers the shape, so a replay arrives in the shape of the original.
 */
export interface IdempotencyInput {
  readonly key: string;
  readonly clientId: string;
  readonly fingerprint: string;
}

export interface IdempotentResult {
  /** The serialized response, identical byte for byte on every replay. */
  readonly snapshot: Uint8Array;
  readonly replayed: boolean;
}

export function scopeOf(operation: IdempotencyScope["operation"], merchantId: string, input: IdempotencyInput): IdempotencyScope {
  if (input.key.length < 1 || input.key.length > 256) throw new ValidationError("idempotency.key", "must be 1 to 256 characters");
  if (!/^[0-9a-fA-F]{64}$/.test(input.fingerprint)) throw new ValidationError("idempotency.fingerprint", "must be a SHA-256 hex digest");
  return { operation, merchantId, clientId: input.clientId, key: input.key };
}

/**
 * The input with its fingerprint bound to the resource the request acts on (a cancel's shipment),
 * so the same key and body sent for another resource differ from the first (still SHA-256 hex).
 */
export function boundTo(subject: string, input: IdempotencyInput): IdempotencyInput {
  return { ...input, fingerprint: createHash("sha256").update(`${subject}:${input.fingerprint}`).digest("hex") };
}

/** The answer to a request whose key already has a record: its outcome again, or IDEMPOTENCY_KEY_REUSED. */
export function replay(input: IdempotencyInput, stored: StoredRecord): IdempotentResult {
  if (stored.fingerprint !== input.fingerprint) {
    throw new FailedPreconditionError("IDEMPOTENCY_KEY_REUSED", "this idempotency key was used with a different request");
  }
  return resultOf(stored.outcome, true);
}

export function resultOf(outcome: Outcome, replayed: boolean): IdempotentResult {
  if (outcome.kind === "refused") throw new FailedPreconditionError(outcome.reason, "a driver offer or assignment exists for this shipment");
  return { snapshot: outcome.snapshot, replayed };
}
