import type { ServiceImpl } from "@connectrpc/connect";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { withDomainErrors } from "@tawsil/rpc";
import type { IssueAccessToken } from "../app/issue-access-token";
import type { MerchantContexts } from "../app/merchant-context";
import type { Merchants } from "../app/merchants";
import type { Places } from "../app/places";
import type { RateCards } from "../app/rate-cards";
import type { SigningKeyRing } from "../app/signing-key-ring";
import { branchToProto, jwkToProto, merchantToProto, rateCardToProto, savedLocationToProto } from "./mappers";

export interface MerchantServiceDeps {
  readonly issueAccessToken: IssueAccessToken;
  readonly signingKeys: SigningKeyRing;
  readonly merchants: Merchants;
  readonly rateCards: RateCards;
  readonly places: Places;
  readonly contexts: MerchantContexts;
}

/** What the gateway and other services call: tokens, the JWKS, profiles, rate cards in force, saved locations and branches. */
export function merchantService(deps: MerchantServiceDeps): ServiceImpl<typeof MerchantService> {
  return withDomainErrors({
    async issueAccessToken(req) {
      const token = await deps.issueAccessToken.execute({ clientId: req.clientId, clientSecret: req.clientSecret, scopes: req.scopes });
      return { accessToken: token.accessToken, expiresInSeconds: token.expiresInSeconds, scopes: [...token.scopes] };
    },
    async listSigningKeys() {
      return { keys: (await deps.signingKeys.published()).map(jwkToProto) };
    },
    async getMerchant(req) {
      return { merchant: merchantToProto(await deps.merchants.byId(req.merchantId)) };
    },
    async getCurrentRateCard(req) {
      return { rateCard: rateCardToProto(await deps.rateCards.current(req.merchantId)) };
    },
    async getSavedLocation(req) {
      return { location: savedLocationToProto(await deps.places.savedLocation(req.merchantId, req.code)) };
    },
    async getBranch(req) {
      return { branch: branchToProto(await deps.places.branch(req.merchantId, req.code)) };
    },
    async getMerchantContext(req) {
      const context = await deps.contexts.of(req.merchantId);
      return {
        merchant: merchantToProto(context.merchant),
        ...(context.rateCard ? { rateCard: rateCardToProto(context.rateCard) } : {}),
        savedLocations: context.savedLocations.map(savedLocationToProto),
        branches: context.branches.map(branchToProto),
      };
    },
  });
}
