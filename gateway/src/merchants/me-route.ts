import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import type { FastifyInstance } from "fastify";
import { ProblemError } from "../problem/problem-error";
import { resource } from "../routes/route-table";

const STATUS: Record<MerchantStatus, string | undefined> = {
  [MerchantStatus.UNSPECIFIED]: undefined,
  [MerchantStatus.DRAFT]: "DRAFT",
  [MerchantStatus.ACTIVE]: "ACTIVE",
  [MerchantStatus.SUSPENDED]: "SUSPENDED",
  [MerchantStatus.TERMINATED]: "TERMINATED",
};

/** GET /v2/external/me: the profile of the company bound to the token's client; any valid token. */
export function registerMe(app: FastifyInstance, merchant: Client<typeof MerchantService>): void {
  resource(app, "/v2/external/me", {
    GET: {
      onRequest: app.guard(),
      handler: async (request) => {
        try {
          const { merchant: profile } = await merchant.getMerchant({ merchantId: request.principal!.merchantId });
          if (!profile) throw new Error("GetMerchant answered without a merchant");
          return { code: profile.code, displayName: profile.displayName, legalName: profile.legalName, status: STATUS[profile.status] };
        } catch (error) {
          if (error instanceof ConnectError && error.code === Code.NotFound) {
            throw new ProblemError("RESOURCE_NOT_FOUND", { en: "The merchant of this token no longer exists.", ar: "التاجر المرتبط بهذا الرمز لم يعد موجودًا." });
          }
          throw error;
        }
      },
    },
  });
}
