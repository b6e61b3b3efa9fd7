import { FailedPreconditionError, VersionConflictError } from "@tawsil/errors";

/** A key's record as a claim finds it. */
export type KeyClaim = { readonly claimed: true } | { readonly claimed: false; readonly fingerprint: string; readonly completed: boolean };

/** The records of drivers' idempotent steps (infra: driver_step_request). */
export interface StepKeyStore {
  /**
   * Claims the key for this request, atomically: a new key, or one whose claim was abandoned
   * (not completed within `abandonAfterMs`: its process died mid-step), is claimed; otherwise
   * the record as it stands.
   */
  claim(driverId: string, key: string, fingerprint: string, abandonAfterMs: number): Promise<KeyClaim>;
  complete(driverId: string, key: string): Promise<void>;
  /** The step failed: nothing is kept, so the same key may be sent again. */
  release(driverId: string, key: string): Promise<void>;
}

const WAIT_MS = 5_000;
const POLL_MS = 100;
/** Longer than any step takes (a shipment call has a 5 s deadline): past it a claim is abandoned. */
const ABANDON_AFTER_MS = 60_000;

/**
 * Runs a driver's step once per Idempotency-Key (the contract's rules of decisions.md section 3,
 * applied to steps): the same key and request replays the first success; another request under
 * the key is IDEMPOTENCY_KEY_REUSED; a duplicate while the first runs waits up to 5 s for it, then
 * IDEMPOTENCY_KEY_IN_USE. Only successes are kept. Race-safe across replicas: the claim is one
 * INSERT ... ON CONFLICT on the key's primary key.
 */
export async function oncePerKey(store: StepKeyStore, input: { driverId: string; key: string; fingerprint: string }, step: () => Promise<void>, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const claim = await store.claim(input.driverId, input.key, input.fingerprint, ABANDON_AFTER_MS);
    if (claim.claimed) break;
    if (claim.fingerprint !== input.fingerprint) throw new FailedPreconditionError("IDEMPOTENCY_KEY_REUSED", "this idempotency key was used with a different request");
    if (claim.completed) return;
    if (Date.now() >= deadline) throw new VersionConflictError("IDEMPOTENCY_KEY_IN_USE", "a request with this idempotency key is still running");
    await sleep(POLL_MS);
  }
  try {
    await step();
  } catch (error) {
    await store.release(input.driverId, input.key);
    throw error;
  }
  await store.complete(input.driverId, input.key);
}
