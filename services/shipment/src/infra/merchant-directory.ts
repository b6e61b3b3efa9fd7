import type { Client } from "@connectrpc/connect";
import Decimal from "decimal.js";
import { MerchantStatus as ProtoStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import type { MerchantDirectory, MerchantStatus } from "../app/ports";
import type { Place } from "../domain/shipment";
import { isNotFound, peerFailure } from "./peer-errors";

const DEPENDENCY = "the merchant service";

/** The merchant service's profiles, saved locations, branches and rate cards. */
export class MerchantServiceDirectory implements MerchantDirectory {
  constructor(private readonly client: Client<typeof MerchantService>) {}

  async status(merchantId: string, signal: AbortSignal): Promise<MerchantStatus | null> {
    const merchant = await this.call(() => this.client.getMerchant({ merchantId }, { signal }).then((res) => res.merchant));
    if (!merchant) return null;
    const status = ProtoStatus[merchant.status];
    if (status === "DRAFT" || status === "ACTIVE" || status === "SUSPENDED" || status === "TERMINATED") return status;
    throw new Error(`${DEPENDENCY} answered merchant status ${merchant.status}`);
  }

  async savedLocation(merchantId: string, code: string, signal: AbortSignal): Promise<Place | null> {
    const location = await this.call(() => this.client.getSavedLocation({ merchantId, code }, { signal }).then((res) => res.location));
    if (!location?.coordinate) return null;
    return { coordinate: { ...location.coordinate }, addressLine: location.addressLine, cityCode: location.cityCode };
  }

  async branchExists(merchantId: string, code: string, signal: AbortSignal): Promise<boolean> {
    return (await this.call(() => this.client.getBranch({ merchantId, code }, { signal }).then((res) => res.branch))) !== undefined;
  }

  async maxCodAmount(merchantId: string, signal: AbortSignal): Promise<string | null> {
    try {
      const card = (await this.client.getCurrentRateCard({ merchantId }, { signal })).rateCard;
      return card ? new Decimal(card.maxCodAmount).toFixed(2) : null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw peerFailure(error, DEPENDENCY);
    }
  }

  /** NotFound means "no such thing" (undefined); outages fail closed. */
  private async call<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw peerFailure(error, DEPENDENCY);
    }
  }
}
