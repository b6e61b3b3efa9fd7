import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { createPeerClient, type ServiceIdentity } from "@tawsil/rpc";

export type AdminClient = Client<typeof MerchantAdminService>;
export type TokenClient = Client<typeof MerchantService>;

/** Operators' calls may hash a secret or lock rows: allow more than a peer's default deadline. */
export function createAdminClient(baseUrl: string): AdminClient {
  return createPeerClient(MerchantAdminService, baseUrl, { timeoutMs: 10_000 });
}

/**
 * Token issuance answers the gateway alone: where the merchant service checks its callers, pass
 * the gateway's identity (make dev's seeding holds the mesh's keys).
 */
export function createTokenClient(baseUrl: string, identity?: ServiceIdentity): TokenClient {
  return createPeerClient(MerchantService, baseUrl, { timeoutMs: 10_000, identity });
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
