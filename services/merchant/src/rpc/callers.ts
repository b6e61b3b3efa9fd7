import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { CallerPolicy, callersOf, operatorService } from "@tawsil/rpc";

/**
 * Which service may call which RPC (checked on every request; deploy/'s network policy must match).
 * Only the gateway issues tokens and reads the keys that verify them; shipment and pricing read
 * what they cache about a merchant.
 */
export const CALLERS = new CallerPolicy([
  callersOf(MerchantService, {
    issueAccessToken: ["gateway"],
    listSigningKeys: ["gateway"],
    getMerchant: ["gateway"],
    getCurrentRateCard: ["pricing"],
    // Deprecated (merchant_service.proto): shipment reads both through getMerchantContext.
    getSavedLocation: [],
    getBranch: [],
    getMerchantContext: ["shipment"],
  }),
  operatorService(MerchantAdminService),
]);
