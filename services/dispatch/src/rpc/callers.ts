import { DeadLetterAdminService } from "@tawsil/proto/tawsil/common/v1/dead_letter_admin_service_pb";
import { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { DriverAdminService } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import { CallerPolicy, callersOf, operatorService } from "@tawsil/rpc";

const GATEWAY = ["gateway"] as const;

/**
 * Which service may call which RPC (checked on every request; deploy/'s network policy must match).
 * The driver API answers only the gateway, which serves it to drivers under /v2/driver with the
 * driver id taken from their verified token (decisions.md section 17). The sandbox fleet drives it
 * in-process, not over RPC. Operators' driver registry is on the admin listener.
 */
export const CALLERS = new CallerPolicy([
  // Deprecated (dispatch_service.proto), no caller: pricing decides eligibility from the city
  // staffing dispatch publishes (dispatch.city-staffing.v1). The use case stays as the reference
  // answer the staffing is tested against (domain/city-staffing.test.ts).
  callersOf(DispatchService, { checkEligibility: [] }),
  callersOf(DriverService, {
    setAvailability: GATEWAY,
    listOffers: GATEWAY,
    acceptOffer: GATEWAY,
    declineOffer: GATEWAY,
    reportProgress: GATEWAY,
    reportLocations: GATEWAY,
    listJobs: GATEWAY,
  }),
  operatorService(DeadLetterAdminService),
  operatorService(DriverAdminService),
]);
