import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { CallerPolicy, callersOf } from "@tawsil/rpc";

/** Which service may call which RPC (checked on every request; deploy/'s network policy must match). */
export const CALLERS = new CallerPolicy([
  // The gateway's price estimate, and shipment's price at create.
  callersOf(PricingService, { quoteDelivery: ["gateway", "shipment"] }),
]);
