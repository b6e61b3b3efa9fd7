import type { ServiceImpl } from "@connectrpc/connect";
import type { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { withDomainErrors } from "@tawsil/rpc";
import type { Clients } from "../app/clients";
import type { DriverClients } from "../app/driver-clients";
import type { Merchants } from "../app/merchants";
import type { Places } from "../app/places";
import type { RateCards } from "../app/rate-cards";
import type { SigningKeyRing } from "../app/signing-key-ring";
import { branchToProto, clientToProto, merchantToProto, rateCardToProto, savedLocationToProto, statusFromProto } from "./mappers";

export interface MerchantAdminServiceDeps {
  readonly merchants: Merchants;
  readonly clients: Clients;
  readonly driverClients: DriverClients;
  readonly places: Places;
  readonly rateCards: RateCards;
  readonly signingKeys: SigningKeyRing;
}

/** Operators' service (the tawsil CLI); the gateway never routes to it. */
export function merchantAdminService(deps: MerchantAdminServiceDeps): ServiceImpl<typeof MerchantAdminService> {
  return withDomainErrors({
    async createMerchant(req) {
      return { merchant: merchantToProto(await deps.merchants.create(req)) };
    },
    async getMerchantByCode(req) {
      return { merchant: merchantToProto(await deps.merchants.byCode(req.code)) };
    },
    async listMerchants(req) {
      const merchants = await deps.merchants.list(req.limit);
      return { merchants: merchants.map((row) => ({ merchant: merchantToProto(row), rateCardVersion: row.rateCardVersion ?? 0 })) };
    },
    async setMerchantStatus(req) {
      return { merchant: merchantToProto(await deps.merchants.setStatus(req.merchantCode, statusFromProto(req.status))) };
    },
    async createClient(req) {
      const { client, secret } = await deps.clients.create(req);
      return { client: clientToProto(client), clientSecret: secret };
    },
    async getClient(req) {
      return { client: clientToProto(await deps.clients.get(req.clientId)) };
    },
    async setClientEnabled(req) {
      return { client: clientToProto(await deps.clients.setEnabled(req.clientId, req.enabled)) };
    },
    async addSavedLocation(req) {
      return { location: savedLocationToProto(await deps.places.addSavedLocation(req)) };
    },
    async addBranch(req) {
      return { branch: branchToProto(await deps.places.addBranch(req)) };
    },
    async addRateCard(req) {
      const card = await deps.rateCards.add({ merchantCode: req.merchantCode, terms: req.terms, expectedVersion: req.expectedVersion });
      return { rateCard: rateCardToProto(card) };
    },
    async rotateSigningKey() {
      return { kid: await deps.signingKeys.rotate() };
    },
    async createDriverClient(req) {
      const { client, secret } = await deps.driverClients.create(req);
      return { client, clientSecret: secret };
    },
    async listDriverClients(req) {
      return { clients: await deps.driverClients.list(req.limit) };
    },
    async setDriverClientEnabled(req) {
      return { client: await deps.driverClients.setEnabled(req.driverId, req.enabled) };
    },
    async rotateDriverClient(req) {
      const { client, secret } = await deps.driverClients.rotate(req.driverId);
      return { client, clientSecret: secret };
    },
  });
}
