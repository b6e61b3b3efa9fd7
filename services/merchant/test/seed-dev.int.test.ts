import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { decodeJwt } from "jose";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { seedDevMerchants } from "../../../packages/testing/src/seed-dev";
import { createMerchantDatabase, query, startTestService, type TestService } from "./support";

const GATEWAY = "http://localhost:8080";
const SHIPMENT_ADMIN = "http://127.0.0.1:7112";
let db: { url: string; drop(): Promise<void> };
let service: TestService;
let dir: string;
let file: string;

beforeAll(async () => {
  db = await createMerchantDatabase(inject("databaseAdminUrl"), "seed");
  service = await startTestService(db.url);
  dir = mkdtempSync(path.join(tmpdir(), "tawsil-seed-"));
  file = path.join(dir, "credentials.env");
});

afterAll(async () => {
  await service?.close();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function seed(): Promise<string[]> {
  const lines: string[] = [];
  await seedDevMerchants({ merchantUrl: service.url, merchantAdminUrl: service.adminUrl!, shipmentAdminUrl: SHIPMENT_ADMIN, gatewayBaseUrl: GATEWAY, credentialsFile: file, log: (line) => lines.push(line) });
  return lines;
}

function credentials(): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => /^[A-Z]/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

async function counts(): Promise<Record<string, number>> {
  const tables = ["merchant", "oauth_client", "saved_location", "branch", "rate_card"];
  const rows = await Promise.all(tables.map((table) => query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM ${table}`)));
  return Object.fromEntries(tables.map((table, i) => [table, rows[i]?.[0]?.n ?? -1]));
}

async function tokenClaims(id: string, secret: string) {
  return decodeJwt((await service.merchant.issueAccessToken({ clientId: id, clientSecret: secret, scopes: [] })).accessToken);
}

describe("seedDevMerchants", () => {
  it("creates two active sandbox merchants with working credentials, then changes nothing on a second run", async () => {
    const firstLog = await seed();
    const first = credentials();
    expect(Object.keys(first).sort()).toEqual([
      "TAWSIL_BASE_URL",
      "TAWSIL_CLIENT2_ID",
      "TAWSIL_CLIENT2_SECRET",
      "TAWSIL_CLIENT_ID",
      "TAWSIL_CLIENT_SECRET",
      "TAWSIL_MERCHANT_ADMIN_URL",
      "TAWSIL_READONLY_CLIENT_ID",
      "TAWSIL_READONLY_CLIENT_SECRET",
      "TAWSIL_SAVED_LOCATION",
      "TAWSIL_SHIPMENT_ADMIN_URL",
    ]);
    expect(first.TAWSIL_BASE_URL).toBe(GATEWAY);
    // The operators' CLI of this checkout reads its admin listeners here (scripts/operator-env.ts).
    expect(first.TAWSIL_MERCHANT_ADMIN_URL).toBe(service.adminUrl);
    expect(first.TAWSIL_SHIPMENT_ADMIN_URL).toBe(SHIPMENT_ADMIN);
    expect(first.TAWSIL_SAVED_LOCATION).toBe("RUH-WH-01");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await counts()).toEqual({ merchant: 2, oauth_client: 3, saved_location: 2, branch: 2, rate_card: 2 });

    for (const code of ["DEMO-RIYADH", "DEMO-OTHER"]) {
      expect((await service.admin.getMerchantByCode({ code })).merchant?.status).toBe(MerchantStatus.ACTIVE);
    }
    const main = await tokenClaims(first.TAWSIL_CLIENT_ID ?? "", first.TAWSIL_CLIENT_SECRET ?? "");
    const readonly = await tokenClaims(first.TAWSIL_READONLY_CLIENT_ID ?? "", first.TAWSIL_READONLY_CLIENT_SECRET ?? "");
    const other = await tokenClaims(first.TAWSIL_CLIENT2_ID ?? "", first.TAWSIL_CLIENT2_SECRET ?? "");
    expect(main.scope).toBe("shipments:read shipments:write webhooks:manage");
    expect(readonly.scope).toBe("shipments:read");
    expect(other.scope).toBe("shipments:read shipments:write webhooks:manage");
    expect(readonly.merchant_id).toBe(main.merchant_id);
    expect(other.merchant_id).not.toBe(main.merchant_id);

    expect(firstLog).toContain(
      `get a token: curl -s -u "${first.TAWSIL_CLIENT_ID}:${first.TAWSIL_CLIENT_SECRET}" -d grant_type=client_credentials ${GATEWAY}/oauth/token`,
    );

    const secondLog = await seed();
    expect(credentials()).toEqual(first);
    expect(await counts()).toEqual({ merchant: 2, oauth_client: 3, saved_location: 2, branch: 2, rate_card: 2 });
    expect(secondLog.filter((line) => / created$| added|set ACTIVE/.test(line))).toEqual([]);
    expect(secondLog.filter((line) => line.endsWith(" reused"))).toHaveLength(3);
  });

  it("replaces only a recorded client that no longer works", async () => {
    const before = credentials();
    writeFileSync(file, readFileSync(file, "utf8").replace(`TAWSIL_READONLY_CLIENT_SECRET=${before.TAWSIL_READONLY_CLIENT_SECRET}`, "TAWSIL_READONLY_CLIENT_SECRET=tws_sk_forgotten"));
    await seed();
    const after = credentials();
    expect(after.TAWSIL_READONLY_CLIENT_ID).not.toBe(before.TAWSIL_READONLY_CLIENT_ID);
    expect((await tokenClaims(after.TAWSIL_READONLY_CLIENT_ID ?? "", after.TAWSIL_READONLY_CLIENT_SECRET ?? "")).scope).toBe("shipments:read");
    expect({ ...after, TAWSIL_READONLY_CLIENT_ID: "", TAWSIL_READONLY_CLIENT_SECRET: "" }).toEqual({ ...before, TAWSIL_READONLY_CLIENT_ID: "", TAWSIL_READONLY_CLIENT_SECRET: "" });
    expect((await counts()).oauth_client).toBe(4);
  });
});
