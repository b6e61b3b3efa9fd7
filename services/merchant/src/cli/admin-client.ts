import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { createPeerClient } from "@tawsil/rpc";

export const DEFAULT_MERCHANT_SERVICE_URL = "http://127.0.0.1:7001";

export type AdminClient = Client<typeof MerchantAdminService>;

/** Operators' calls may hash a secret or lock rows: allow more than a peer's default deadline. */
export function createAdminClient(baseUrl: string): AdminClient {
  return createPeerClient(MerchantAdminService, baseUrl, { timeoutMs: 10_000 });
}

/** The Connect code and ErrorReason of a failed call; `code` is undefined for errors that are not Connect's. */
export function failureOf(error: unknown): { code: Code | undefined; reason: string | undefined; message: string } {
  if (error instanceof ConnectError) {
    return { code: error.code, reason: error.findDetails(ErrorReasonSchema)[0]?.reason, message: error.rawMessage };
  }
  return { code: undefined, reason: undefined, message: error instanceof Error ? error.message : String(error) };
}

export function isCode(error: unknown, code: Code): boolean {
  return failureOf(error).code === code;
}

export { Code };
export { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
