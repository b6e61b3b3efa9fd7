import { DeadLetterAdminService } from "@tawsil/proto/tawsil/common/v1/dead_letter_admin_service_pb";
import { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { CallerPolicy, callersOf, operatorService } from "@tawsil/rpc";

const DRIVER_APP = ["driver-app"] as const;

/**
 * Which service may call which RPC (checked on every request; deploy/'s network policy must match).
 * The driver API answers only the drivers' app backend (identity "driver-app", whose public key an
 * operator adds to SERVICE_IDENTITY_PUBLIC_KEYS): no service of the mesh moves a driver. The
 * sandbox fleet drives it in-process, not over RPC.
 */
export const CALLERS = new CallerPolicy([
  // No caller on any request path: pricing decides eligibility from the city staffing dispatch
  // publishes (dispatch.city-staffing.v1). Kept as the reference answer the staffing is tested against.
  callersOf(DispatchService, { checkEligibility: [] }),
  callersOf(DriverService, {
    setAvailability: DRIVER_APP,
    listOffers: DRIVER_APP,
    acceptOffer: DRIVER_APP,
    declineOffer: DRIVER_APP,
    reportProgress: DRIVER_APP,
    reportLocation: DRIVER_APP,
  }),
  operatorService(DeadLetterAdminService),
]);
