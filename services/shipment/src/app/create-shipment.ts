import { newDeliveryPin } from "../domain/proof-of-delivery";
import { FailedPreconditionError } from "@tawsil/errors";
import { v7 as uuidv7 } from "uuid";
import { parcelOf, validateDraft, type DraftInput, type ValidDraft } from "../domain/draft";
import { PermissionDeniedError } from "@tawsil/errors";
import { DuplicateReferenceError, ShipmentValidationError, type FieldViolation } from "../domain/errors";
import { created, type Place, type Shipment, type ShipmentChange } from "../domain/shipment";
import { newShipmentNumber } from "../domain/shipment-number";
import { replay, scopeOf, type IdempotencyInput, type IdempotentResult } from "./idempotency";
import { ShipmentNumberTakenError, type MerchantDirectory, type MerchantStatus, type Quote, type Quotes, type ResponseSnapshots, type ShipmentStore } from "./ports";

export interface CreateShipmentRequest {
  readonly merchantId: string;
  readonly idempotency: IdempotencyInput;
  readonly draft: DraftInput;
}

export interface CreateShipmentDeps {
  readonly store: ShipmentStore;
  readonly snapshots: ResponseSnapshots;
  readonly merchants: MerchantDirectory;
  readonly quotes: Quotes;
  readonly environment: "sandbox" | "production";
  readonly idempotencyWaitMs: number;
  readonly retentionMs: number;
  readonly clock?: () => Date;
}

/** Shipment numbers are 10 random digits; a collision is rare, three in a row is a bug. */
const NUMBER_ATTEMPTS = 3;

/**
 * Creates a shipment or replays the original result (decisions.md sections 2 and 3).
 *
 * The draft's own rules, then the peers (merchant context from this replica's cache, the quote
 * from pricing) judged in a fixed order; then one transaction: the idempotency scope's advisory
 * lock, then one statement that reads the key's record and the reference and, when neither
 * exists, writes the shipment in its final state, its one event (the creation, approved or held
 * back) and the record. A replay is answered by that statement's read of the record. A replay must
 * not fail because the draft or a peer would refuse it now (the pickup window has passed since,
 * the merchant was suspended, pricing is away): when either refuses, the stored record, if there
 * is one, answers instead. The record is not read before: nearly every create is a first one, and
 * that read cost each of them a round trip to answer the few replays sooner (issue 34). Failures
 * before the commit store nothing, so the key is not consumed.
 */
export class CreateShipment {
  private readonly clock: () => Date;

  constructor(private readonly deps: CreateShipmentDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async execute(request: CreateShipmentRequest, signal: AbortSignal): Promise<IdempotentResult> {
    const scope = scopeOf("create", request.merchantId, request.idempotency);
    let draft: ValidDraft;
    let peers: { status: MerchantStatus; pickup: Place; quote: Quote };
    try {
      draft = validateDraft(request.draft, this.clock());
      peers = await this.consultPeers(request.merchantId, draft, signal);
    } catch (error) {
      // A record that cannot be read now (the database away) leaves the refusal as it was.
      const stored = await this.deps.store.findRecord(scope, this.clock()).catch(() => null);
      if (stored) return replay(request.idempotency, stored);
      throw error;
    }
    const { status, pickup, quote } = peers;

    for (let attempt = 1; ; attempt++) {
      const now = this.clock();
      const { final, events } = this.lifecycleOf(this.build(request.merchantId, draft, pickup, quote, now), status, now);
      const snapshot = this.deps.snapshots.of(final);
      try {
        const outcome = await this.deps.store.createOnce({
          scope,
          waitMs: this.deps.idempotencyWaitMs,
          now,
          shipment: final,
          events,
          record: { fingerprint: request.idempotency.fingerprint, snapshot, expiresAt: new Date(now.getTime() + this.deps.retentionMs) },
        });
        if (outcome.kind === "replay") return replay(request.idempotency, outcome.record);
        if (outcome.kind === "reference-taken") throw new DuplicateReferenceError();
        return { snapshot, replayed: false };
      } catch (error) {
        if (error instanceof ShipmentNumberTakenError && attempt < NUMBER_ATTEMPTS) continue;
        throw error;
      }
    }
  }

  /**
   * The shipment as it is stored and its one event: one commit is one version (decisions.md
   * section 5), so an ACTIVE merchant's create, approved by the automatic checks in the same
   * transaction, commits version 1 in READY_FOR_DISPATCH, and shipment.created carries the
   * version the response does.
   */
  private lifecycleOf(shipment: Shipment, status: MerchantStatus, now: Date): { final: Shipment; events: { change: ShipmentChange; at: Date }[] } {
    const change = created(shipment, status === "ACTIVE" ? now : null);
    return { final: change.shipment, events: [{ change, at: shipment.createdAt }] };
  }

  /** Merchant status, pickup and branch concurrently; the quote as soon as the pickup is known. */
  private async consultPeers(merchantId: string, draft: ValidDraft, signal: AbortSignal): Promise<{ status: MerchantStatus; pickup: Place; quote: Quote }> {
    const { merchants, quotes } = this.deps;
    const pickupPromise: Promise<Place | null> =
      draft.pickup.kind === "saved"
        ? merchants.savedLocation(merchantId, draft.pickup.code)
        : Promise.resolve(draft.pickup.coordinate ? { coordinate: draft.pickup.coordinate, addressLine: "", cityCode: "" } : null);
    const quotePromise = pickupPromise.then((pickup) => (pickup ? quotes.quote(this.quoteRequest(merchantId, draft, pickup), signal) : null));
    const [status, branch, pickup, quote] = await Promise.allSettled([
      merchants.status(merchantId),
      draft.branchCode === null ? Promise.resolve(true) : merchants.branchExists(merchantId, draft.branchCode),
      pickupPromise,
      quotePromise,
    ]);

    // Judged in a fixed order whatever finished first, so one request always fails the same way.
    this.checkStatus(settled(status));
    const violations: FieldViolation[] = [];
    const place = settled(pickup);
    if (!place) violations.push({ field: "saved_location_code", code: "UNKNOWN_REFERENCE", params: { entity: "saved location" } });
    if (!settled(branch)) violations.push({ field: "branch_code", code: "UNKNOWN_REFERENCE", params: { entity: "branch" } });
    if (violations.length > 0 || !place) throw new ShipmentValidationError(violations);
    const priced = await this.priced(merchantId, draft, quote);
    return { status: settled(status) ?? "TERMINATED", pickup: place, quote: priced };
  }

  private checkStatus(status: MerchantStatus | null): void {
    const allowed = this.deps.environment === "production" ? status === "ACTIVE" : status === "ACTIVE" || status === "DRAFT";
    if (!allowed) throw new PermissionDeniedError("MERCHANT_NOT_ACTIVE", "the merchant may not create shipments");
  }

  /** Pricing's refusals pass through, except a COD above the agreed maximum: a violation on the COD field. */
  private async priced(merchantId: string, draft: ValidDraft, result: PromiseSettledResult<Quote | null>): Promise<Quote> {
    if (result.status === "fulfilled") {
      if (!result.value) throw new Error("unreachable: a quote without a pickup");
      return result.value;
    }
    const error: unknown = result.reason;
    if (error instanceof FailedPreconditionError && error.reason === "COD_ABOVE_MAXIMUM") {
      const max = await this.deps.merchants.maxCodAmount(merchantId);
      throw new ShipmentValidationError([{ field: "cod_amount", code: "OUT_OF_RANGE", params: max === null ? {} : { max } }]);
    }
    throw error;
  }

  private quoteRequest(merchantId: string, draft: ValidDraft, pickup: Place) {
    const cashOnDelivery = draft.codAmount !== "0.00";
    return {
      merchantId,
      pickup: pickup.coordinate,
      destination: draft.destination,
      expectedCityCode: draft.destinationCityCode ?? "",
      parcel: { ...parcelOf(draft), requirements: draft.requirements, cashOnDelivery },
      codAmount: cashOnDelivery ? draft.codAmount : "",
    };
  }

  private build(merchantId: string, draft: ValidDraft, pickup: Place, quote: Quote, now: Date): Shipment {
    return {
      id: uuidv7({ msecs: now.getTime() }),
      shipmentNumber: newShipmentNumber(),
      merchantId,
      externalReference: draft.externalReference,
      state: "PENDING_APPROVAL",
      version: 1n,
      recipientName: draft.recipientName,
      recipientPhone: draft.recipientPhone,
      alternateContactName: draft.alternateContactName,
      alternateContactPhone: draft.alternateContactPhone,
      totalWeightKilograms: draft.totalWeightKilograms,
      declaredValue: draft.declaredValue,
      codAmount: draft.codAmount,
      currency: draft.currency,
      paymentMethod: draft.paymentMethod,
      pickupWindow: draft.pickupWindow,
      createdAt: now,
      approvedAt: null,
      pickup: {
        coordinate: pickup.coordinate,
        addressLine: pickup.addressLine || quote.pickup.addressLine,
        cityCode: pickup.cityCode || quote.pickup.cityCode,
      },
      destination: {
        coordinate: draft.destination,
        addressLine: draft.destinationAddressLine ?? quote.destination.addressLine,
        cityCode: quote.destination.cityCode,
      },
      items: draft.items,
      requirements: draft.requirements,
      timelineMedia: [...draft.timelineMedia].sort((a, b) => a.sortOrder - b.sortOrder),
      deliveryPin: newDeliveryPin(draft.requirements),
      branchCode: draft.branchCode,
      reasonCode: null,
      terms: {
        rateCardId: quote.rateCardId,
        rateCardVersion: quote.rateCardVersion,
        serviceLevel: quote.serviceLevel,
        price: quote.price,
        distanceMetres: quote.distanceMetres,
      },
    };
  }
}

/** The value of a settled promise, or its error thrown. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}
