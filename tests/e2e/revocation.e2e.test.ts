import { randomUUID } from "node:crypto";
import { problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { putFleetOnShift } from "../../services/dispatch/test/support";
import { createAdminClient, MerchantStatus, type AdminClient } from "../../services/merchant/src/cli/admin-client";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 14: disabling a client, or ending a merchant's right to act, stops its live tokens within
 * 60 s. The merchant service announces it (AccessRevoked, or MerchantChanged for a suspension);
 * the gateway (or shipment) acts on the event. Each test reports the delay it observed.
 */
const LIMIT_MS = 60_000;
const RIYADH_OLAYA = { latitude: 24.7136, longitude: 46.6753 };
const RIYADH_MALQA = { latitude: 24.774265, longitude: 46.738586 };
const TERMS = { baseFee: "15.00", includedKm: "10", perKmFee: "1.50", includedWeightKg: "5", perKgFee: "2.00", codFeePercent: "1.5", codFeeMinimum: "5.00", maxCodAmount: "5000.00", requirementSurcharges: [] };

let testMesh: TestMesh;
let admin: AdminClient;

beforeAll(async () => {
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    // Creates need a driver on shift (decisions.md section 2); busy ones are offered nothing.
    fleet: false,
    beforeStart: (databaseUrls) => putFleetOnShift(databaseUrls.dispatch, { cities: ["RUH"], busy: true }),
  });
  admin = createAdminClient(testMesh.mesh.processes.find((p) => p.name === "merchant")!.adminUrl!);
}, 180_000);

afterAll(async () => {
  await testMesh?.close();
});

/** An ACTIVE merchant of its own (with a rate card, so it can create) and a client of it. */
async function activeMerchantWithClient(): Promise<{ code: string; clientId: string; clientSecret: string }> {
  const code = `REV-${randomUUID().slice(0, 6).toUpperCase()}`;
  await admin.createMerchant({ code, displayName: `${code} Store`, legalName: `${code} Trading` });
  await admin.addRateCard({ merchantCode: code, terms: TERMS, expectedVersion: 1 });
  await admin.setMerchantStatus({ merchantCode: code, status: MerchantStatus.ACTIVE });
  return { code, ...(await newClient(code)) };
}

async function newClient(code: string): Promise<{ clientId: string; clientSecret: string }> {
  const { client, clientSecret } = await admin.createClient({ merchantCode: code, name: `revocation ${randomUUID().slice(0, 4)}`, scopes: ["shipments:read", "shipments:write"] });
  return { clientId: client!.clientId, clientSecret };
}

const me = (token: string) => fetch(`${testMesh.gatewayUrl}/v2/external/me`, { headers: { authorization: `Bearer ${token}` } });
const create = (token: string) =>
  fetch(`${testMesh.gatewayUrl}/v2/external/shipments`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ reference: `REV-${randomUUID()}`, pickup: RIYADH_OLAYA, destination: RIYADH_MALQA, recipient: { name: "Sara", mobile: "0512345678" } }),
  });
const requestToken = (clientId: string, clientSecret: string) =>
  fetch(`${testMesh.gatewayUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
    body: "grant_type=client_credentials",
  });

/** Polls `answer` until `done` holds, failing after 60 s; returns the delay since `since`. */
async function within60s(what: string, since: number, answer: () => Promise<Response>, done: (res: Response) => boolean): Promise<{ res: Response; delayMs: number }> {
  for (;;) {
    const res = await answer();
    if (done(res)) {
      const delayMs = Date.now() - since;
      console.log(`[revocation] ${what}: in effect after ${delayMs} ms`);
      return { res, delayMs };
    }
    if (Date.now() - since > LIMIT_MS) throw new Error(`${what}: not in effect within 60 s (last status ${res.status})`);
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function expectInvalidToken(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tawsil", error="invalid_token"');
  const body = (await res.json()) as Record<string, unknown>;
  expect(problemSchemaErrors(body)).toEqual([]);
  expect(body.code).toBe("AUTHENTICATION_REQUIRED");
}

describe("access revocation", () => {
  it("refuses a disabled client's live token within 60 s, even after a gateway restart, and a new token for it as before", { timeout: 180_000 }, async () => {
    const { code, clientId, clientSecret } = await activeMerchantWithClient();
    const other = await newClient(code);
    const token = await testMesh.tokenFor(clientId, clientSecret);
    const otherToken = await testMesh.tokenFor(other.clientId, other.clientSecret);
    expect((await me(token)).status).toBe(200);

    const disabledAt = Date.now();
    await admin.setClientEnabled({ clientId, enabled: false });
    const { res, delayMs } = await within60s("disabled client's token refused", disabledAt, () => me(token), (r) => r.status !== 200);
    await expectInvalidToken(res);
    expect(delayMs).toBeLessThanOrEqual(LIMIT_MS);
    // Its merchant's other client is untouched, and the disabled client gets no new token.
    expect((await me(otherToken)).status).toBe(200);
    const refused = await requestToken(clientId, clientSecret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe("invalid_client");

    // A gateway that starts after the event reads it back (one token lifetime).
    await testMesh.mesh.restart("gateway");
    await within60s("restarted gateway refuses the revoked token", Date.now(), () => me(token), (r) => r.status === 401);
    expect((await me(otherToken)).status).toBe(200);

    // Enabled again, the client's new tokens work (issued after the revocation, in a later second).
    await admin.setClientEnabled({ clientId, enabled: true });
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await me(await testMesh.tokenFor(clientId, clientSecret))).status).toBe(200);
    await expectInvalidToken(await me(token));
  });

  it("refuses a terminated merchant's live tokens within 60 s", { timeout: 120_000 }, async () => {
    const { code, clientId, clientSecret } = await activeMerchantWithClient();
    const token = await testMesh.tokenFor(clientId, clientSecret);
    expect((await me(token)).status).toBe(200);
    const terminatedAt = Date.now();
    await admin.setMerchantStatus({ merchantCode: code, status: MerchantStatus.TERMINATED });
    const { res } = await within60s("terminated merchant's token refused", terminatedAt, () => me(token), (r) => r.status !== 200);
    await expectInvalidToken(res);
    expect((await requestToken(clientId, clientSecret)).status).toBe(401);
  });

  it("refuses a suspended merchant's creates within 60 s (403 MERCHANT_NOT_ACTIVE, the contract's answer) while its token still reads", { timeout: 120_000 }, async () => {
    const { code, clientId, clientSecret } = await activeMerchantWithClient();
    const token = await testMesh.tokenFor(clientId, clientSecret);
    expect((await create(token)).status).toBe(201);
    const suspendedAt = Date.now();
    await admin.setMerchantStatus({ merchantCode: code, status: MerchantStatus.SUSPENDED });
    const { res } = await within60s("suspended merchant's create refused", suspendedAt, () => create(token), (r) => r.status !== 201);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: "MERCHANT_NOT_ACTIVE" });
    const profile = await me(token);
    expect(profile.status).toBe(200);
    expect(await profile.json()).toMatchObject({ code, status: "SUSPENDED" });
  });
});
