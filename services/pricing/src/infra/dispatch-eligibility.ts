import type { Client } from "@connectrpc/connect";
import type { CheckEligibilityResponse, DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import type { Eligibility, EligibilityChecker } from "../app/ports";
import type { Parcel } from "../domain/parcel";
import { peerFailure } from "@tawsil/rpc";
import { serviceLevelFromProto } from "@tawsil/rpc";

/** Dispatch's eligibility verdict; dispatch keeps the carrier, pricing learns only the service level. */
export class DispatchEligibility implements EligibilityChecker {
  constructor(private readonly client: Client<typeof DispatchService>) {}

  async check(cityCode: string, parcel: Parcel, signal: AbortSignal): Promise<Eligibility> {
    let answer: CheckEligibilityResponse;
    try {
      answer = await this.client.checkEligibility(
        {
          cityCode,
          parcel: {
            totalWeightGrams: BigInt(parcel.totalWeightGrams),
            longestSideMm: parcel.longestSideMm,
            requirements: [...parcel.requirements],
            cashOnDelivery: parcel.cashOnDelivery,
          },
        },
        { signal },
      );
    } catch (error) {
      throw peerFailure(error, "the dispatch service");
    }
    if (!answer.eligible) return { eligible: false };
    const serviceLevel = serviceLevelFromProto(answer.serviceLevel);
    if (!serviceLevel) throw new Error(`the dispatch service answered eligible with service level ${answer.serviceLevel}`);
    return { eligible: true, serviceLevel };
  }
}

