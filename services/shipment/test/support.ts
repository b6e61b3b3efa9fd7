import { createHash, randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { createPrismaClient, disconnect } from "@tawsil/db";
import { FieldViolationsSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { ShipmentService, type ShipmentDraftSchema } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { capturedLogger, createMigratedDatabase, type TestDatabase } from "@tawsil/testing";
import { createDispatchDatabase, putFleetOnShift, startTestService as startDispatch } from "../../dispatch/test/support";
import { createMerchantDatabase, startTestService as startMerchant, type TestService as MerchantTestService } from "../../merchant/test/support";
import { startTestService as startPricing } from "../../pricing/test/support";
import { readConfig, type Config } from "../src/config";
import type { Shipment } from "../src/domain/shipment";
import { trackingCode, trackingCodeSha256 } from "../src/domain/tracking-link";
import { Prisma, PrismaClient } from "../src/infra/prisma/generated/client";
import { ITEM_INSERT_COLUMNS, SHIPMENT_INSERT_COLUMNS, itemInsertValues, shipmentInsertValues } from "../src/infra/shipment-row";
import { startShipmentService, type RunningShipmentService } from "../src/server";

export { Code } from "@connectrpc/connect";
export { failure } from "@tawsil/testing";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

export function createShipmentDatabase(adminUrl: string, label: string): Promise<TestDatabase> {
  return createMigratedDatabase(adminUrl, `shipment_test_${label}_${randomUUID().slice(0, 8)}`, MIGRATIONS);
}

export const TRACKING_LINK_SECRET = randomBytes(32).toString("base64");

export function testConfig(databaseUrl: string, peers: { merchantUrl: string; pricingUrl: string }, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: "127.0.0.1:9092",
    MERCHANT_SERVICE_URL: peers.merchantUrl,
    PRICING_SERVICE_URL: peers.pricingUrl,
    TRACKING_LINK_SECRET,
    CURSOR_SECRET: randomBytes(32).toString("base64"),
    PEER_TIMEOUT_MS: "10000",
    // These stacks run no merchant-event listener: read the merchant afresh on every create. The
    // cache and its invalidation are proven through the mesh (tests/e2e/merchant-changes).
    MERCHANT_CACHE_MAX_AGE_MS: "0",
    SHUTDOWN_GRACE_MS: "200",
    LOG_LEVEL: "debug",
    // Storage is only reached by the media tests, which name a real server in env.
    S3_ENDPOINT: "http://127.0.0.1:9",
    S3_BUCKET: "tawsil-media",
    S3_ACCESS_KEY_ID: "test",
    S3_SECRET_ACCESS_KEY: "test-secret",
    S3_FORCE_PATH_STYLE: "true",
    ...env,
  });
}

/** Riyadh points shared with pricing's tests. */
export const AL_OLAYA = { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 };
export const AL_MALAZ = { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 };

export const TERMS = {
  baseFee: "15",
  includedKm: "3",
  perKmFee: "1.75",
  includedWeightKg: "5",
  perKgFee: "2",
  codFeePercent: "1.5",
  codFeeMinimum: "5",
  maxCodAmount: "2000",
  requirementSurcharges: [{ requirement: "FRAGILE", fee: "3.25" }],
};

export interface Stack {
  readonly merchant: MerchantTestService;
  readonly pricingUrl: string;
  readonly shipment: RunningShipmentService;
  readonly client: ReturnType<typeof createPeerClient<typeof ShipmentService>>;
  readonly databaseUrl: string;
  readonly logLines: string[];
  /** A new ACTIVE merchant with a rate card and a saved location WAREHOUSE-1 in Al Olaya. */
  newMerchant(code: string, status?: MerchantStatus): Promise<string>;
  close(): Promise<void>;
}

/** The real merchant, dispatch and pricing services, then the shipment service, all in-process. */
export async function startStack(adminUrl: string, label: string, env: Record<string, string> = {}): Promise<Stack> {
  const [merchantDb, dispatchDb, shipmentDb] = await Promise.all([
    createMerchantDatabase(adminUrl, label),
    createDispatchDatabase(adminUrl, label),
    createShipmentDatabase(adminUrl, label),
  ]);
  // Dispatch only records every city's staffing here, which pricing's eligibility index is fed
  // with (a driver on shift for every service; it runs no dispatcher, so they are offered
  // nothing); it starts before the shipment service, so the shipment URL its configuration
  // requires is a placeholder it never calls in these tests.
  await putFleetOnShift(dispatchDb.url);
  const [merchant, dispatch] = await Promise.all([startMerchant(merchantDb.url), startDispatch(dispatchDb.url, { SHIPMENT_SERVICE_URL: "http://127.0.0.1:9" })]);
  const pricing = await startPricing({ merchantUrl: merchant.url, dispatchDatabaseUrl: dispatchDb.url }, { LOG_LEVEL: "info" });
  const { logger, lines } = capturedLogger("shipment-test");
  const shipment = await startShipmentService(testConfig(shipmentDb.url, { merchantUrl: merchant.url, pricingUrl: pricing.url }, env), logger);
  return {
    merchant,
    pricingUrl: pricing.url,
    shipment,
    client: createPeerClient(ShipmentService, shipment.url, { timeoutMs: 30_000 }),
    databaseUrl: shipmentDb.url,
    logLines: lines,
    async newMerchant(code, status = MerchantStatus.ACTIVE) {
      const created = await merchant.admin.createMerchant({ code, displayName: code, legalName: `${code} LLC` });
      await merchant.admin.addRateCard({ merchantCode: code, terms: TERMS });
      await merchant.admin.addSavedLocation({ merchantCode: code, code: "WAREHOUSE-1", coordinate: AL_OLAYA, addressLine: "King Fahd Rd, Al Olaya", cityCode: "RUH" });
      await merchant.admin.addBranch({ merchantCode: code, code: "BRANCH-1", name: "Main" });
      if (status !== MerchantStatus.DRAFT) await merchant.admin.setMerchantStatus({ merchantCode: code, status });
      return created.merchant?.merchantId ?? "";
    },
    async close() {
      await shipment.close();
      await pricing.close();
      await Promise.all([merchant.close(), dispatch.close()]);
      await Promise.all([merchantDb, dispatchDb, shipmentDb].map((db) => db.drop()));
    },
  };
}

export type DraftInit = MessageInitShape<typeof ShipmentDraftSchema>;

export function draft(reference: string, fields: DraftInit = {}): DraftInit {
  return {
    externalReference: reference,
    pickup: { case: "pickupCoordinate", value: AL_OLAYA },
    recipientName: "Sara Al-Harbi",
    recipientPhone: "+966512345678",
    destination: AL_MALAZ,
    items: [{ description: "Shoes", quantity: 2, weightKilograms: "0.750" }],
    ...fields,
  } as DraftInit;
}

/** The gateway's fingerprint: SHA-256 of the canonical JSON of the parsed body (here, of any stable text). */
export function fingerprint(body: unknown): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex");
}

export function idempotency(key: string, body: unknown, clientId = "client-1") {
  return { key, clientId, fingerprint: fingerprint(body) };
}

export async function violationsOf(call: Promise<unknown>): Promise<{ field: string; code: string; params: Record<string, string> }[]> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error).findDetails(FieldViolationsSchema)[0]?.violations.map(({ field, code, params }) => ({ field, code, params: { ...params } })) ?? [];
  }
  throw new Error("expected the call to fail");
}

/** Reads the shipment database behind the service's back. */
export async function query<T>(url: string, sql: string, ...params: unknown[]): Promise<T[]> {
  const client = createPrismaClient(PrismaClient, { url, maxConnections: 1 });
  try {
    return await client.$queryRawUnsafe<T[]>(sql, ...params);
  } finally {
    await disconnect(client);
  }
}

/** Inserts shipments straight through the row mapping the create writes with, a thousand a statement (not RPCs). */
export async function insertShipments(url: string, shipments: readonly Shipment[]): Promise<void> {
  const client = createPrismaClient(PrismaClient, { url, maxConnections: 1 });
  const secret = Buffer.from(TRACKING_LINK_SECRET, "base64");
  try {
    // A thousand rows stay under PostgreSQL's 65,535 parameters a statement (37 a shipment, 8 an item).
    for (let i = 0; i < shipments.length; i += 1000) {
      const batch = shipments.slice(i, i + 1000);
      const rows = batch.map((shipment) => Prisma.sql`(${shipmentInsertValues(shipment, trackingCodeSha256(trackingCode(secret, shipment.id)))})`);
      await client.$executeRaw`INSERT INTO shipment (${SHIPMENT_INSERT_COLUMNS}) VALUES ${Prisma.join(rows)}`;
      const items = batch.flatMap((shipment) => shipment.items.map((item, position) => itemInsertValues(shipment.id, item, position)));
      if (items.length > 0) await client.$executeRaw`INSERT INTO shipment_item (${ITEM_INSERT_COLUMNS}) VALUES ${Prisma.join(items)}`;
    }
  } finally {
    await disconnect(client);
  }
}
