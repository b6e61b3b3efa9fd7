import { DeadLetterAdminService } from "@tawsil/proto/tawsil/common/v1/dead_letter_admin_service_pb";
import { TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { CallerPolicy, callersOf, operatorService } from "@tawsil/rpc";

/** Which service may call which RPC (checked on every request; deploy/'s network policy must match). */
export const CALLERS = new CallerPolicy([
  callersOf(TrackingService, { getShipmentTracking: ["gateway"], getPublicTracking: ["gateway"] }),
  operatorService(DeadLetterAdminService),
]);
