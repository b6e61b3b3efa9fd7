import type { ServiceImpl } from "@connectrpc/connect";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import type { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { serviceLevelToProto, withDomainErrors } from "@tawsil/rpc";
import type { CheckEligibility } from "../app/check-eligibility";

export interface DispatchServiceDeps {
  readonly checkEligibility: CheckEligibility;
}

/** What other services ask dispatch. Answers carry service levels only, never carriers. */
export function dispatchService(deps: DispatchServiceDeps): ServiceImpl<typeof DispatchService> {
  return withDomainErrors({
    async checkEligibility(req) {
      const verdict = deps.checkEligibility.execute({ cityCode: req.cityCode, parcel: req.parcel });
      return verdict.eligible
        ? { eligible: true, serviceLevel: serviceLevelToProto(verdict.level) }
        : { eligible: false, serviceLevel: ServiceLevel.UNSPECIFIED };
    },
  });
}
