import type { Client } from "@connectrpc/connect";
import Decimal from "decimal.js";
import { ReadThroughCache } from "@tawsil/cache";
import { MerchantStatus as ProtoStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { GetMerchantContextResponse, MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import type { MerchantDirectory, MerchantStatus } from "../app/ports";
import type { Place } from "../domain/shipment";
import { isNotFound, peerFailure } from "@tawsil/rpc";

const DEPENDENCY = "the merchant service";

/** What a create needs to know about its merchant, read in one call and kept until it changes. */
export interface MerchantSnapshot {
  readonly status: MerchantStatus;
  readonly savedLocations: ReadonlyMap<string, Place>;
  readonly branches: ReadonlySet<string>;
  /** "5000.00"; null without a rate card in force. */
  readonly maxCodAmount: string | null;
}

/**
 * The merchant service's statuses, saved locations, branches and COD maximums, from a cache in
 * this process: one GetMerchantContext call on a miss, dropped by the merchant's events (see
 * consumers/merchant-changes.ts). An unknown merchant is not cached, so one created later is seen.
 */
export class CachedMerchantDirectory implements MerchantDirectory {
  readonly cache: ReadThroughCache<MerchantSnapshot>;

  constructor(client: Client<typeof MerchantService>, opts: { maxAgeMs: number }) {
    this.cache = new ReadThroughCache({ maxAgeMs: opts.maxAgeMs, load: (merchantId) => loadSnapshot(client, merchantId) });
  }

  async status(merchantId: string): Promise<MerchantStatus | null> {
    return (await this.cache.get(merchantId))?.status ?? null;
  }

  async savedLocation(merchantId: string, code: string): Promise<Place | null> {
    return (await this.cache.get(merchantId))?.savedLocations.get(code) ?? null;
  }

  async branchExists(merchantId: string, code: string): Promise<boolean> {
    return (await this.cache.get(merchantId))?.branches.has(code) ?? false;
  }

  async maxCodAmount(merchantId: string): Promise<string | null> {
    return (await this.cache.get(merchantId))?.maxCodAmount ?? null;
  }
}

async function loadSnapshot(client: Client<typeof MerchantService>, merchantId: string): Promise<MerchantSnapshot | undefined> {
  let context: GetMerchantContextResponse;
  try {
    context = await client.getMerchantContext({ merchantId });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw peerFailure(error, DEPENDENCY);
  }
  if (!context.merchant) return undefined;
  return {
    status: statusOf(context.merchant.status),
    savedLocations: new Map(
      context.savedLocations.flatMap((location) =>
        location.coordinate ? [[location.code, { coordinate: { ...location.coordinate }, addressLine: location.addressLine, cityCode: location.cityCode }] as const] : [],
      ),
    ),
    branches: new Set(context.branches.map((branch) => branch.code)),
    maxCodAmount: context.rateCard ? new Decimal(context.rateCard.maxCodAmount).toFixed(2) : null,
  };
}

function statusOf(status: ProtoStatus): MerchantStatus {
  const name = ProtoStatus[status];
  if (name === "DRAFT" || name === "ACTIVE" || name === "SUSPENDED" || name === "TERMINATED") return name;
  throw new Error(`${DEPENDENCY} answered merchant status ${status}`);
}
