import { DeadLetterAdminService } from "@tawsil/proto/tawsil/common/v1/dead_letter_admin_service_pb";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { CallerPolicy, callersOf, operatorService } from "@tawsil/rpc";

const GATEWAY = ["gateway"] as const;

/** Which service may call which RPC (checked on every request; deploy/'s network policy must match). */
export const CALLERS = new CallerPolicy([
  callersOf(WebhookService, { registerEndpoint: GATEWAY, getEndpoint: GATEWAY, updateEndpoint: GATEWAY, deleteEndpoint: GATEWAY, rotateSecret: GATEWAY }),
  operatorService(DeadLetterAdminService),
]);
