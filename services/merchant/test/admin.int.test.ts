import { Health, HealthCheckResponse_ServingStatus as Serving } from "@tawsil/proto/grpc/health/v1/health_pb";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { createPeerClient } from "@tawsil/rpc";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fromBinary } from "@bufbuild/protobuf";
import { AccessRevokedSchema } from "@tawsil/proto/tawsil/merchant/v1/events_pb";
import { Code, createMerchantDatabase, failure, query, startTestService, type TestService } from "./support";

let db: { url: string; drop(): Promise<void> };
let service: TestService;

const TERMS = {
  baseFee: "15",
  includedKm: "10",
  perKmFee: "1.5",
  includedWeightKg: "5",
  perKgFee: "2",
  codFeePercent: "1.5",
  codFeeMinimum: "5",
  maxCodAmount: "5000",
  requirementSurcharges: [{ requirement: "COLD_CHAIN", fee: "10" }],
};
const RIYADH = { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 };

beforeAll(async () => {
  db = await createMerchantDatabase(inject("databaseAdminUrl"), "admin");
  service = await startTestService(db.url);
  await service.admin.createMerchant({ code: "ACME", displayName: "Acme", legalName: "Acme Trading" });
});

afterAll(async () => {
  await service?.close();
  await db?.drop();
});

describe("MerchantAdminService", () => {
  it("creates a merchant in DRAFT and finds it by code and by id", async () => {
    const { merchant } = await service.admin.createMerchant({ code: "SHOP-1", displayName: " Shop One ", legalName: "Shop One LLC" });
    expect(merchant).toMatchObject({ code: "SHOP-1", displayName: "Shop One", legalName: "Shop One LLC", status: MerchantStatus.DRAFT });
    expect((await service.admin.getMerchantByCode({ code: "SHOP-1" })).merchant).toEqual(merchant);
    expect((await service.merchant.getMerchant({ merchantId: merchant?.merchantId ?? "" })).merchant).toEqual(merchant);
  });

  it.each([
    ["createMerchant with a lowercase code", () => service.admin.createMerchant({ code: "acme", displayName: "A", legalName: "A" }), "code: must match ^[A-Z0-9][A-Z0-9_-]{1,63}$"],
    ["createMerchant without a display name", () => service.admin.createMerchant({ code: "NEW-1", displayName: " ", legalName: "A" }), "display_name: is required"],
    ["getMerchantByCode with a malformed code", () => service.admin.getMerchantByCode({ code: "a b" }), "code: must match ^[A-Z0-9][A-Z0-9_-]{1,63}$"],
    ["setMerchantStatus to UNSPECIFIED", () => service.admin.setMerchantStatus({ merchantCode: "ACME", status: MerchantStatus.UNSPECIFIED }), "status: must be one of DRAFT, ACTIVE, SUSPENDED, TERMINATED"],
    ["createClient without scopes", () => service.admin.createClient({ merchantCode: "ACME", name: "x", scopes: [] }), "scopes: at least one of shipments:read, shipments:write, webhooks:manage is required"],
    ["createClient with an unknown scope", () => service.admin.createClient({ merchantCode: "ACME", name: "x", scopes: ["shipments:read", "admin"] }), 'scopes: unknown scope "admin"; known: shipments:read, shipments:write, webhooks:manage'],
    ["createClient without a name", () => service.admin.createClient({ merchantCode: "ACME", name: "", scopes: ["shipments:read"] }), "name: is required"],
    ["getClient without an id", () => service.admin.getClient({ clientId: "" }), "client_id: is required"],
    ["addSavedLocation without a coordinate", () => service.admin.addSavedLocation({ merchantCode: "ACME", code: "WH-1", addressLine: "x", cityCode: "RUH" }), "coordinate: is required"],
    ["addSavedLocation north of the pole", () => service.admin.addSavedLocation({ merchantCode: "ACME", code: "WH-1", coordinate: { latitudeMicro: 90_000_001, longitudeMicro: 0 }, addressLine: "x", cityCode: "RUH" }), "coordinate.latitude_micro: must be an integer from -90000000 to 90000000"],
    ["addSavedLocation with a bad city", () => service.admin.addSavedLocation({ merchantCode: "ACME", code: "WH-1", coordinate: RIYADH, addressLine: "x", cityCode: "Riyadh" }), "city_code: must match ^[A-Z]{3}$"],
    ["addBranch with a bad code", () => service.admin.addBranch({ merchantCode: "ACME", code: "-B", name: "x" }), "code: must match ^[A-Z0-9][A-Z0-9_-]{1,63}$"],
    ["addRateCard without terms", () => service.admin.addRateCard({ merchantCode: "ACME" }), "terms: is required"],
    ["addRateCard with a negative fee", () => service.admin.addRateCard({ merchantCode: "ACME", terms: { ...TERMS, perKgFee: "-2" } }), 'terms.per_kg_fee: must be a non-negative amount with at most 10 integer digits and 2 decimals, e.g. "12.50"'],
    ["addRateCard with a negative expected version", () => service.admin.addRateCard({ merchantCode: "ACME", terms: TERMS, expectedVersion: -1 }), "expected_version: must be 0 (any) or a positive version"],
  ])("rejects %s with InvalidArgument naming the field", async (_case, call, message) => {
    expect(await failure(call())).toEqual({ code: Code.InvalidArgument, reason: "INVALID_ARGUMENT", message });
  });

  it.each([
    ["getMerchantByCode", () => service.admin.getMerchantByCode({ code: "NOBODY" }), "MERCHANT_NOT_FOUND"],
    ["setMerchantStatus", () => service.admin.setMerchantStatus({ merchantCode: "NOBODY", status: MerchantStatus.ACTIVE }), "MERCHANT_NOT_FOUND"],
    ["createClient", () => service.admin.createClient({ merchantCode: "NOBODY", name: "x", scopes: ["shipments:read"] }), "MERCHANT_NOT_FOUND"],
    ["addSavedLocation", () => service.admin.addSavedLocation({ merchantCode: "NOBODY", code: "WH-1", coordinate: RIYADH, addressLine: "x", cityCode: "RUH" }), "MERCHANT_NOT_FOUND"],
    ["addBranch", () => service.admin.addBranch({ merchantCode: "NOBODY", code: "B1", name: "x" }), "MERCHANT_NOT_FOUND"],
    ["addRateCard", () => service.admin.addRateCard({ merchantCode: "NOBODY", terms: TERMS }), "MERCHANT_NOT_FOUND"],
    ["getClient", () => service.admin.getClient({ clientId: "tws_ci_unknown" }), "CLIENT_NOT_FOUND"],
    ["setClientEnabled", () => service.admin.setClientEnabled({ clientId: "tws_ci_unknown", enabled: false }), "CLIENT_NOT_FOUND"],
    ["getMerchant with an unknown id", () => service.merchant.getMerchant({ merchantId: "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f" }), "MERCHANT_NOT_FOUND"],
    ["getMerchant with a malformed id", () => service.merchant.getMerchant({ merchantId: "not-a-uuid" }), "MERCHANT_NOT_FOUND"],
    ["getMerchant with an empty id", () => service.merchant.getMerchant({ merchantId: "" }), "MERCHANT_NOT_FOUND"],
  ])("answers %s of something unknown with NotFound", async (_case, call, reason) => {
    expect(await failure(call())).toMatchObject({ code: Code.NotFound, reason });
  });

  it("refuses duplicate codes with AlreadyExists, per merchant for locations and branches", async () => {
    expect(await failure(service.admin.createMerchant({ code: "ACME", displayName: "Again", legalName: "Again" }))).toEqual({
      code: Code.AlreadyExists,
      reason: "MERCHANT_ALREADY_EXISTS",
      message: "merchant ACME already exists",
    });
    const location = { code: "RUH-WH-01", coordinate: RIYADH, addressLine: "King Fahd Road", cityCode: "RUH" };
    const { location: stored } = await service.admin.addSavedLocation({ merchantCode: "ACME", ...location });
    expect(stored).toMatchObject({ code: "RUH-WH-01", coordinate: RIYADH, addressLine: "King Fahd Road", cityCode: "RUH" });
    expect(await failure(service.admin.addSavedLocation({ merchantCode: "ACME", ...location }))).toMatchObject({ code: Code.AlreadyExists, reason: "SAVED_LOCATION_ALREADY_EXISTS" });
    expect((await service.admin.addBranch({ merchantCode: "ACME", code: "MAIN", name: "Main branch" })).branch).toMatchObject({ code: "MAIN", name: "Main branch" });
    expect(await failure(service.admin.addBranch({ merchantCode: "ACME", code: "MAIN", name: "Again" }))).toMatchObject({ code: Code.AlreadyExists, reason: "BRANCH_ALREADY_EXISTS" });

    await service.admin.createMerchant({ code: "OTHER", displayName: "Other", legalName: "Other" });
    await expect(service.admin.addSavedLocation({ merchantCode: "OTHER", ...location })).resolves.toBeDefined();
    await expect(service.admin.addBranch({ merchantCode: "OTHER", code: "MAIN", name: "Main" })).resolves.toBeDefined();
  });

  it("guards the status lifecycle and treats a repeated status as a no-op", async () => {
    await service.admin.createMerchant({ code: "LIFE", displayName: "Life", legalName: "Life" });
    const set = (status: MerchantStatus) => service.admin.setMerchantStatus({ merchantCode: "LIFE", status });
    expect((await set(MerchantStatus.ACTIVE)).merchant?.status).toBe(MerchantStatus.ACTIVE);
    expect((await set(MerchantStatus.ACTIVE)).merchant?.status).toBe(MerchantStatus.ACTIVE);
    expect(await failure(set(MerchantStatus.DRAFT))).toEqual({ code: Code.FailedPrecondition, reason: "INVALID_STATUS_TRANSITION", message: "a merchant cannot move from ACTIVE to DRAFT" });
    expect((await set(MerchantStatus.SUSPENDED)).merchant?.status).toBe(MerchantStatus.SUSPENDED);
    expect((await set(MerchantStatus.TERMINATED)).merchant?.status).toBe(MerchantStatus.TERMINATED);
    expect(await failure(set(MerchantStatus.ACTIVE))).toMatchObject({ code: Code.FailedPrecondition, reason: "INVALID_STATUS_TRANSITION" });
    expect(await failure(service.admin.createClient({ merchantCode: "LIFE", name: "late", scopes: ["shipments:read"] }))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "MERCHANT_TERMINATED",
    });
  });

  it("versions rate cards: each addition gets the next version, concurrent ones too, and expected_version is a compare-and-set", async () => {
    await service.admin.createMerchant({ code: "RATES", displayName: "Rates", legalName: "Rates" });
    const first = await service.admin.addRateCard({ merchantCode: "RATES", terms: TERMS, expectedVersion: 1 });
    expect(first.rateCard).toMatchObject({
      version: 1,
      baseFee: "15.00",
      includedKm: "10.000",
      perKmFee: "1.50",
      includedWeightKg: "5.000",
      perKgFee: "2.00",
      codFeePercent: "1.500",
      codFeeMinimum: "5.00",
      maxCodAmount: "5000.00",
      requirementSurcharges: [{ requirement: "COLD_CHAIN", fee: "10.00" }],
    });
    expect(first.rateCard?.rateCardId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.rateCard?.effectiveTime).toBeDefined();

    expect(await failure(service.admin.addRateCard({ merchantCode: "RATES", terms: TERMS, expectedVersion: 1 }))).toEqual({
      code: Code.Aborted,
      reason: "RATE_CARD_VERSION_MISMATCH",
      message: "the next rate card version is 2, not 1",
    });
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => service.admin.addRateCard({ merchantCode: "RATES", terms: TERMS })));
    expect(concurrent.map((res) => res.rateCard?.version).sort()).toEqual([2, 3, 4, 5, 6]);
  });

  it("serves the rate card in force to pricing: the latest version, or NO_RATE_CARD", async () => {
    const { merchant } = await service.admin.createMerchant({ code: "PRICED", displayName: "Priced", legalName: "Priced" });
    const merchantId = merchant?.merchantId ?? "";
    expect(await failure(service.merchant.getCurrentRateCard({ merchantId }))).toMatchObject({ code: Code.FailedPrecondition, reason: "NO_RATE_CARD" });
    await service.admin.addRateCard({ merchantCode: "PRICED", terms: TERMS });
    const second = await service.admin.addRateCard({ merchantCode: "PRICED", terms: { ...TERMS, baseFee: "17.25" } });
    const { rateCard } = await service.merchant.getCurrentRateCard({ merchantId });
    expect(rateCard).toMatchObject({ version: 2, baseFee: "17.25", rateCardId: second.rateCard?.rateCardId });
    expect(await failure(service.merchant.getCurrentRateCard({ merchantId: "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f" }))).toMatchObject({ code: Code.NotFound, reason: "MERCHANT_NOT_FOUND" });
  });

  it("serves a merchant's saved locations and branches by code, and only its own", async () => {
    const { merchant } = await service.admin.createMerchant({ code: "PLACES", displayName: "Places", legalName: "Places" });
    const { merchant: other } = await service.admin.createMerchant({ code: "OTHERPLACES", displayName: "Other", legalName: "Other" });
    const merchantId = merchant?.merchantId ?? "";
    await service.admin.addSavedLocation({ merchantCode: "PLACES", code: "WH-1", coordinate: RIYADH, addressLine: "Olaya, Riyadh", cityCode: "RUH" });
    await service.admin.addBranch({ merchantCode: "PLACES", code: "MAIN", name: "Main branch" });
    expect((await service.merchant.getSavedLocation({ merchantId, code: "WH-1" })).location).toMatchObject({ code: "WH-1", addressLine: "Olaya, Riyadh", cityCode: "RUH", coordinate: RIYADH });
    expect((await service.merchant.getBranch({ merchantId, code: "MAIN" })).branch).toMatchObject({ code: "MAIN", name: "Main branch" });
    const otherId = other?.merchantId ?? "";
    expect(await failure(service.merchant.getSavedLocation({ merchantId: otherId, code: "WH-1" }))).toMatchObject({ code: Code.NotFound, reason: "SAVED_LOCATION_NOT_FOUND" });
    expect(await failure(service.merchant.getBranch({ merchantId: otherId, code: "MAIN" }))).toMatchObject({ code: Code.NotFound, reason: "BRANCH_NOT_FOUND" });
    expect(await failure(service.merchant.getBranch({ merchantId: "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f", code: "MAIN" }))).toMatchObject({ code: Code.NotFound, reason: "MERCHANT_NOT_FOUND" });
  });

  it("enables and disables clients", async () => {
    const { client } = await service.admin.createClient({ merchantCode: "ACME", name: "toggle", scopes: ["shipments:write"] });
    const id = client?.clientId ?? "";
    expect((await service.admin.setClientEnabled({ clientId: id, enabled: false })).client?.enabled).toBe(false);
    expect((await service.admin.getClient({ clientId: id })).client?.enabled).toBe(false);
    expect((await service.admin.setClientEnabled({ clientId: id, enabled: true })).client?.enabled).toBe(true);
  });

  it("revokes a client's tokens when it is disabled, and every client's when the merchant is terminated, through the outbox", async () => {
    const revocations = async (merchantId: string) =>
      (await query<{ payload: Uint8Array; key: string }>(db.url, `SELECT payload, key FROM outbox_event WHERE type = $1 AND key = $2 ORDER BY seq`, AccessRevokedSchema.typeName, merchantId)).map((row) => {
        const event = fromBinary(AccessRevokedSchema, row.payload);
        return { key: row.key, merchantId: event.merchantId, clientId: event.clientId, at: event.revokeTime };
      });
    const { merchant } = await service.admin.createMerchant({ code: "REVOKE-CO", displayName: "Revoke", legalName: "Revoke LLC" });
    const merchantId = merchant!.merchantId;
    await service.admin.setMerchantStatus({ merchantCode: "REVOKE-CO", status: MerchantStatus.ACTIVE });
    const { client } = await service.admin.createClient({ merchantCode: "REVOKE-CO", name: "revoked", scopes: ["shipments:read"] });
    const clientId = client!.clientId;

    await service.admin.setClientEnabled({ clientId, enabled: true });
    expect(await revocations(merchantId)).toEqual([]);
    await service.admin.setClientEnabled({ clientId, enabled: false });
    expect(await revocations(merchantId)).toEqual([{ key: merchantId, merchantId, clientId, at: expect.anything() }]);

    // Suspension keeps tokens (a suspended merchant reads its shipments; creates get 403 MERCHANT_NOT_ACTIVE).
    await service.admin.setMerchantStatus({ merchantCode: "REVOKE-CO", status: MerchantStatus.SUSPENDED });
    expect(await revocations(merchantId)).toHaveLength(1);
    await service.admin.setMerchantStatus({ merchantCode: "REVOKE-CO", status: MerchantStatus.TERMINATED });
    expect((await revocations(merchantId))[1]).toEqual({ key: merchantId, merchantId, clientId: "", at: expect.anything() });
  });

  it("answers the gRPC health protocol for each service where it listens", async () => {
    const health = createPeerClient(Health, service.url);
    for (const name of ["", "tawsil.merchant.v1.MerchantService"]) expect((await health.check({ service: name })).status).toBe(Serving.SERVING);
    const adminHealth = createPeerClient(Health, service.adminUrl!);
    for (const name of ["", "tawsil.merchant.v1.MerchantAdminService"]) expect((await adminHealth.check({ service: name })).status).toBe(Serving.SERVING);
  });

  it("refuses admin RPCs on the service port, which the gateway and peers reach: no client can be minted there", async () => {
    const overServicePort = createPeerClient(MerchantAdminService, service.url);
    expect(await failure(overServicePort.createClient({ merchantCode: "ACME", name: "minted", scopes: ["shipments:read"] }))).toMatchObject({ code: Code.Unimplemented });
    expect(await failure(overServicePort.setMerchantStatus({ merchantCode: "ACME", status: MerchantStatus.SUSPENDED }))).toMatchObject({ code: Code.Unimplemented });
    expect(new URL(service.adminUrl!).hostname).toBe("127.0.0.1");
  });
});
