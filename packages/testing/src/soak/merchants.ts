/**
 * The soak's three merchants, created afresh through the merchant admin listener so that every
 * shipment and delivery the soak checks is its own: one whose webhook receiver is healthy, one
 * whose receiver is slow and one whose receiver hangs.
 */
import { randomUUID } from "node:crypto";
import { createAdminClient, MerchantStatus } from "../../../../services/merchant/src/cli/admin-client";
import { call } from "../load/driver";
import type { ReceiverBehaviour } from "./receivers";

const TERMS = { baseFee: "15.00", includedKm: "10", perKmFee: "1.50", includedWeightKg: "5", perKgFee: "2.00", codFeePercent: "1.5", codFeeMinimum: "5.00", maxCodAmount: "5000.00", requirementSurcharges: [] };
const SCOPES = ["shipments:read", "shipments:write", "webhooks:manage"];

export interface SoakMerchant {
  readonly code: string;
  readonly merchantId: string;
  readonly receiver: ReceiverBehaviour;
  /** Headers of its authenticated JSON requests (an access token lives an hour, TOKEN_TTL_SECONDS). */
  readonly headers: Record<string, string>;
}

/** An ACTIVE merchant with a rate card and a client of every scope, its token, and its webhook at `receiverUrl`. */
export async function soakMerchant(merchantAdminUrl: string, gateway: string, receiver: ReceiverBehaviour, receiverUrl: string): Promise<SoakMerchant> {
  const admin = createAdminClient(merchantAdminUrl);
  const code = `SOAK-${receiver.toUpperCase()}-${randomUUID().slice(0, 6).toUpperCase()}`;
  const created = await admin.createMerchant({ code, displayName: `${code} Store`, legalName: `${code} Trading` });
  await admin.addRateCard({ merchantCode: code, terms: TERMS, expectedVersion: 1 });
  await admin.setMerchantStatus({ merchantCode: code, status: MerchantStatus.ACTIVE });
  const { client, clientSecret } = await admin.createClient({ merchantCode: code, name: "soak", scopes: SCOPES });
  const basic = Buffer.from(`${client!.clientId}:${clientSecret}`).toString("base64");
  const token = await call(gateway, { method: "POST", path: "/oauth/token", headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });
  const accessToken = (token.body as { access_token?: string }).access_token;
  if (token.status !== 200 || !accessToken) throw new Error(`${code}: POST /oauth/token answered ${token.status}`);
  const headers = { authorization: `Bearer ${accessToken}`, "content-type": "application/json" };
  const registered = await call(gateway, { method: "POST", path: "/v2/external/webhook", headers, body: JSON.stringify({ url: receiverUrl }) });
  if (registered.status !== 201) throw new Error(`${code}: registering its webhook answered ${registered.status} ${JSON.stringify(registered.body)}`);
  return { code, merchantId: created.merchant!.merchantId, receiver, headers };
}
