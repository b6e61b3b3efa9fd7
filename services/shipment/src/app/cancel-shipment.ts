import { FailedPreconditionError, NotFoundError } from "@tawsil/errors";
import { accessDenied, ShipmentValidationError } from "../domain/errors";
import { cancelVerdict } from "../domain/lifecycle";
import { cancel } from "../domain/shipment";
import { boundTo, type IdempotencyInput, type IdempotentResult, replay, resultOf, scopeOf } from "./idempotency";
import type { Outcome, ResponseSnapshots, ShipmentStore, StoredRecord } from "./ports";
import { isUuid } from "@tawsil/domain";

export interface CancelShipmentRequest {
  readonly merchantId: string;
  readonly shipmentId: string;
  readonly reasonCode: string;
  readonly idempotency: IdempotencyInput;
}

const REASON = /^[A-Z][A-Z0-9_]{1,47}$/;

/**
 * Cancels before any driver offer (decisions.md section 4), idempotently like create: the record,
 * the change and its event commit together, under the shipment's row lock that ReserveForOffer
 * takes too, so of a racing cancel and offer exactly one wins. A completed cancel is stored and
 * replayed; the 409 SHIPMENT_ALREADY_ASSIGNED only under the caller's own key (section 3): under the
 * key derived from the shipment it would answer every later keyless cancel for 24 h, even once the
 * shipment is cancellable again (an offer that expired into DISPATCH_UNRESOLVED).
 */
export class CancelShipment {
  private readonly clock: () => Date;

  constructor(private readonly deps: { store: ShipmentStore; snapshots: ResponseSnapshots; idempotencyWaitMs: number; retentionMs: number; clock?: () => Date }) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async execute(given: CancelShipmentRequest): Promise<IdempotentResult> {
    // A cancel's key is bound to the shipment in its path: the same key and body sent for another
    // shipment is another request (422 IDEMPOTENCY_KEY_REUSED), never a replay of the first one.
    scopeOf("cancel", given.merchantId, given.idempotency); // the caller's key and fingerprint, checked before binding
    const request = { ...given, idempotency: boundTo(given.shipmentId, given.idempotency) };
    const scope = scopeOf("cancel", request.merchantId, request.idempotency);
    if (!REASON.test(request.reasonCode)) throw new ShipmentValidationError([{ field: "reason_code", code: "PATTERN_MISMATCH", params: { pattern: REASON.source } }]);
    if (!isUuid(request.shipmentId)) throw new NotFoundError("shipment");
    const derivedKey = scope.clientId === "";
    // A refusal stored under the derived key before section 3 said otherwise no longer counts.
    const counts = (stored: StoredRecord | null): stored is StoredRecord => stored !== null && !(derivedKey && stored.outcome.kind === "refused");
    const early = await this.deps.store.findRecord(scope, this.clock());
    if (counts(early)) return replay(request.idempotency, early);

    const now = this.clock();
    const result = await this.deps.store.inTransaction(async (tx): Promise<IdempotentResult | Outcome> => {
      await tx.lockIdempotencyScope(scope, this.deps.idempotencyWaitMs);
      const stored = await tx.findRecord(scope, now);
      if (counts(stored)) return replay(request.idempotency, stored);
      const shipment = await tx.lockShipment(request.shipmentId);
      if (!shipment) throw new NotFoundError("shipment");
      if (shipment.merchantId !== request.merchantId) throw accessDenied();

      const verdict = cancelVerdict(shipment.state);
      const expiresAt = new Date(now.getTime() + this.deps.retentionMs);
      const save = (outcome: Outcome) =>
        tx.saveRecord(scope, { fingerprint: request.idempotency.fingerprint, outcome, shipmentId: shipment.id }, now, expiresAt);
      if (verdict === "SHIPMENT_ALREADY_ASSIGNED") {
        // Under the caller's key it is stored, so a retry of that request keeps answering 409 even
        // after the shipment moves on; thrown after the commit.
        const refused: Outcome = { kind: "refused", reason: verdict };
        if (!derivedKey) await save(refused);
        return refused;
      }
      if (verdict === "SHIPMENT_NOT_CANCELLABLE") throw new FailedPreconditionError(verdict, `a ${shipment.state} shipment cannot be cancelled`);
      const change = cancel(shipment, request.reasonCode);
      await tx.record(change);
      const outcome: Outcome = { kind: "snapshot", snapshot: this.deps.snapshots.of(change.shipment) };
      await save(outcome);
      return resultOf(outcome, false);
    });
    return "kind" in result ? resultOf(result, false) : result;
  }
}
