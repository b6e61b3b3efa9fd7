/**
 * Sandbox data for `make dev`: two ACTIVE demo merchants (the second for cross-tenant checks), each
 * with a saved pickup location in Riyadh, a branch, a rate card and OAuth clients, plus a
 * credentials file (dotenv) for curl and the end-to-end tests. Safe on every start: what exists
 * is kept, and clients recorded in the file are reused while they still work, because a secret is
 * shown only when its client is created.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  Code,
  createAdminClient,
  createTokenClient,
  failureOf,
  isCode,
  MerchantStatus,
  type AdminClient,
  type TokenClient,
} from "../../../services/merchant/src/cli/admin-client";
import type { ServiceIdentity } from "../../rpc/src/service-identity";

export interface SeedOptions {
  /** The merchant service's port: the seed checks reused credentials by issuing a token there. */
  readonly merchantUrl: string;
  /** Its admin listener: merchants, clients, places and rate cards are created there. */
  readonly merchantAdminUrl: string;
  /**
   * The admin listeners, written as TAWSIL_MERCHANT_ADMIN_URL and TAWSIL_SHIPMENT_ADMIN_URL: the
   * operators' CLI of this checkout reads them there (scripts/operator-env.ts).
   */
  readonly shipmentAdminUrl: string;
  /** The other admin listeners (dead letters), by service, written as TAWSIL_<SERVICE>_ADMIN_URL. */
  readonly otherAdminUrls?: Readonly<Record<string, string>>;
  /** Written as TAWSIL_BASE_URL and used in the printed curl. */
  readonly gatewayBaseUrl: string;
  /**
   * The gateway's identity, to check a recorded client's secret as the gateway would (the merchant
   * service issues tokens to the gateway only); none where the merchant service checks no caller.
   */
  readonly identity?: ServiceIdentity;
  readonly credentialsFile: string;
  log(line: string): void;
}

interface ClientSpec {
  /** Prefix of the credential variables: `<key>_ID`, `<key>_SECRET`. */
  readonly key: string;
  readonly name: string;
  readonly scopes: readonly string[];
}

const ALL_SCOPES = ["shipments:read", "shipments:write", "webhooks:manage"];
const PICKUP = { code: "RUH-WH-01", latitudeMicro: 24_713_600, longitudeMicro: 46_675_300, addressLine: "King Fahd Road, Al Olaya, Riyadh", cityCode: "RUH" };

const MERCHANTS: readonly { code: string; displayName: string; legalName: string; clients: readonly ClientSpec[] }[] = [
  {
    code: "DEMO-RIYADH",
    displayName: "Demo Riyadh Store",
    legalName: "Demo Riyadh Trading Company",
    clients: [
      { key: "TAWSIL_CLIENT", name: "dev: all scopes", scopes: ALL_SCOPES },
      { key: "TAWSIL_READONLY_CLIENT", name: "dev: read only", scopes: ["shipments:read"] },
    ],
  },
  {
    code: "DEMO-OTHER",
    displayName: "Demo Other Store",
    legalName: "Demo Other Trading Company",
    clients: [{ key: "TAWSIL_CLIENT2", name: "dev: all scopes", scopes: ALL_SCOPES }],
  },
];

const RATE_CARD_V1 = {
  baseFee: "15.00",
  includedKm: "10",
  perKmFee: "1.50",
  includedWeightKg: "5",
  perKgFee: "2.00",
  codFeePercent: "1.5",
  codFeeMinimum: "5.00",
  maxCodAmount: "5000.00",
  requirementSurcharges: [
    { requirement: "COLD_CHAIN", fee: "10.00" },
    { requirement: "FRAGILE", fee: "3.00" },
  ],
};

export async function seedDevMerchants(opts: SeedOptions): Promise<void> {
  const admin = createAdminClient(opts.merchantAdminUrl);
  const tokens = createTokenClient(opts.merchantUrl, opts.identity);
  const previous = readDotenv(opts.credentialsFile);
  const credentials: Record<string, string> = { TAWSIL_BASE_URL: opts.gatewayBaseUrl };

  for (const spec of MERCHANTS) {
    const merchantId = await ensureActiveMerchant(admin, spec, opts.log);
    const merchantCode = spec.code;
    const location = await alreadyExists(admin.addSavedLocation({ merchantCode, code: PICKUP.code, coordinate: PICKUP, addressLine: PICKUP.addressLine, cityCode: PICKUP.cityCode }));
    const branch = await alreadyExists(admin.addBranch({ merchantCode, code: "RUH-MAIN", name: "Riyadh main branch" }));
    const card = await rateCardV1(admin, merchantCode);
    opts.log(`seed ${merchantCode}: location ${PICKUP.code} ${location}, branch RUH-MAIN ${branch}, rate card v1 ${card}`);

    for (const client of spec.clients) {
      const id = previous[`${client.key}_ID`];
      const secret = previous[`${client.key}_SECRET`];
      const reused = id && secret && (await stillWorks(admin, tokens, { id, secret, merchantId, scopes: client.scopes }));
      const { clientId, clientSecret } = reused ? { clientId: id, clientSecret: secret } : await createClient(admin, merchantCode, client);
      opts.log(`seed ${merchantCode}: client ${clientId} (${client.scopes.join(" ")}) ${reused ? "reused" : "created"}`);
      credentials[`${client.key}_ID`] = clientId;
      credentials[`${client.key}_SECRET`] = clientSecret;
    }
  }
  credentials.TAWSIL_SAVED_LOCATION = PICKUP.code;
  credentials.TAWSIL_MERCHANT_ADMIN_URL = opts.merchantAdminUrl;
  credentials.TAWSIL_SHIPMENT_ADMIN_URL = opts.shipmentAdminUrl;
  for (const [name, url] of Object.entries(opts.otherAdminUrls ?? {})) credentials[`TAWSIL_${name.toUpperCase()}_ADMIN_URL`] = url;
  writeDotenv(opts.credentialsFile, credentials);

  const [id, secret] = [credentials.TAWSIL_CLIENT_ID, credentials.TAWSIL_CLIENT_SECRET];
  opts.log(`sandbox client of ${MERCHANTS[0]?.code}: TAWSIL_CLIENT_ID=${id} TAWSIL_CLIENT_SECRET=${secret} (all in ${opts.credentialsFile})`);
  opts.log(`get a token: curl -s -u "${id}:${secret}" -d grant_type=client_credentials ${opts.gatewayBaseUrl}/oauth/token`);
}

async function ensureActiveMerchant(admin: AdminClient, spec: { code: string; displayName: string; legalName: string }, log: (line: string) => void): Promise<string> {
  let merchant = await admin.getMerchantByCode({ code: spec.code }).then(
    (res) => res.merchant,
    (error: unknown) => (isCode(error, Code.NotFound) ? undefined : Promise.reject(error)),
  );
  if (!merchant) {
    merchant = (await admin.createMerchant(spec)).merchant;
    log(`seed ${spec.code}: merchant created`);
  }
  if (!merchant) throw new Error(`the merchant service returned no merchant for ${spec.code}`);
  if (merchant.status !== MerchantStatus.ACTIVE) {
    await admin.setMerchantStatus({ merchantCode: spec.code, status: MerchantStatus.ACTIVE });
    log(`seed ${spec.code}: merchant set ACTIVE`);
  }
  return merchant.merchantId;
}

/** "added", or "exists" when the service answers AlreadyExists. */
async function alreadyExists(call: Promise<unknown>): Promise<"added" | "exists"> {
  return call.then(
    () => "added" as const,
    (error: unknown) => (isCode(error, Code.AlreadyExists) ? ("exists" as const) : Promise.reject(error)),
  );
}

/** Version 1 only if the merchant has no rate card yet (a compare-and-set on the version). */
async function rateCardV1(admin: AdminClient, merchantCode: string): Promise<"added" | "exists"> {
  return admin.addRateCard({ merchantCode, terms: RATE_CARD_V1, expectedVersion: 1 }).then(
    () => "added" as const,
    (error: unknown) => (isCode(error, Code.Aborted) ? ("exists" as const) : Promise.reject(error)),
  );
}

/** A recorded client is reused when it still exists as recorded and its secret still gets a token. */
async function stillWorks(
  admin: AdminClient,
  tokens: TokenClient,
  recorded: { id: string; secret: string; merchantId: string; scopes: readonly string[] },
): Promise<boolean> {
  const client = await admin.getClient({ clientId: recorded.id }).then(
    (res) => res.client,
    (error: unknown) => (isCode(error, Code.NotFound) ? undefined : Promise.reject(error)),
  );
  const sameGrant = client?.enabled && client.merchantId === recorded.merchantId && [...client.scopes].sort().join() === [...recorded.scopes].sort().join();
  if (!sameGrant) return false;
  return tokens.issueAccessToken({ clientId: recorded.id, clientSecret: recorded.secret, scopes: [] }).then(
    () => true,
    (error: unknown) => (failureOf(error).code === Code.Unauthenticated ? false : Promise.reject(error)),
  );
}

async function createClient(admin: AdminClient, merchantCode: string, spec: ClientSpec): Promise<{ clientId: string; clientSecret: string }> {
  const res = await admin.createClient({ merchantCode, name: spec.name, scopes: [...spec.scopes] });
  if (!res.client) throw new Error(`the merchant service returned no client for ${merchantCode}`);
  return { clientId: res.client.clientId, clientSecret: res.clientSecret };
}

export function readDotenv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const entries = readFileSync(file, "utf8")
    .split("\n")
    .map((line) => /^\s*([A-Z0-9_]+)=(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, key = "", value = ""]) => [key, value.trim().replace(/^"(.*)"$/, "$1")]);
  return Object.fromEntries(entries);
}

function writeDotenv(file: string, values: Record<string, string>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const lines = Object.entries(values).map(([key, value]) => `${key}=${value}`);
  const header = "# Sandbox credentials written by `make dev` (packages/testing/src/seed-dev.ts). Secrets: keep this file private.";
  writeFileSync(file, `${header}\n${lines.join("\n")}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
