import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDispatchDatabase, putFleetOnShift, query, startTestService, type TestService } from "./support";

let adminUrl: string;
let db: Awaited<ReturnType<typeof createDispatchDatabase>>;
/** Loaded at start, next refresh a minute later. */
let cached: TestService;
/** Refreshes every 200 ms. */
let refreshing: TestService;

beforeAll(async () => {
  adminUrl = inject("databaseAdminUrl");
  db = await createDispatchDatabase(adminUrl, "cache");
  await putFleetOnShift(db.url);
  cached = await startTestService(db.url);
  refreshing = await startTestService(db.url, { CATALOGUE_REFRESH_MS: "200" });
});

afterAll(async () => {
  await query(adminUrl, `ALTER DATABASE "${db.name}" WITH ALLOW_CONNECTIONS true`).catch(() => undefined);
  await cached?.close();
  await refreshing?.close();
  await db?.drop();
});

/** 1 kg prepaid in Madinah: Saqr's bike while Saqr is active, else Bard's cold-chain van. */
const smallParcelInMadinah = (service: TestService) =>
  service.dispatch.checkEligibility({ cityCode: "MED", parcel: { totalWeightGrams: 1000n, longestSideMm: 200, requirements: [], cashOnDelivery: false } });

async function eventually(fn: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the catalogue cache", () => {
  it("answers from the catalogue it loaded, and sees an operator's change only at its next refresh", async () => {
    expect((await smallParcelInMadinah(cached)).serviceLevel).toBe(ServiceLevel.BIKE);
    await query(db.url, "UPDATE carrier SET active = false, updated_at = now() WHERE code = 'SAQR'");
    try {
      await eventually(async () => (await smallParcelInMadinah(refreshing)).serviceLevel === ServiceLevel.COLD_CHAIN_VAN);
      expect((await smallParcelInMadinah(cached)).serviceLevel).toBe(ServiceLevel.BIKE);
    } finally {
      await query(db.url, "UPDATE carrier SET active = true, updated_at = now() WHERE code = 'SAQR'");
    }
    await eventually(async () => (await smallParcelInMadinah(refreshing)).serviceLevel === ServiceLevel.BIKE);
  });

  it("keeps answering from memory while its database refuses every connection", async () => {
    await query(adminUrl, `ALTER DATABASE "${db.name}" WITH ALLOW_CONNECTIONS false`);
    await query(adminUrl, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", db.name);
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => smallParcelInMadinah(i % 2 === 0 ? cached : refreshing)));
      expect(answers.every((answer) => answer.eligible && answer.serviceLevel === ServiceLevel.BIKE)).toBe(true);
      // The refreshing replica noticed and kept its last catalogue instead of failing requests.
      await eventually(async () => refreshing.logLines.some((line) => line.includes("carrier catalogue refresh failed; serving the last one loaded")));
      expect((await smallParcelInMadinah(refreshing)).serviceLevel).toBe(ServiceLevel.BIKE);
      expect((await fetch(`${cached.url}/readyz`)).status).toBe(503);
    } finally {
      await query(adminUrl, `ALTER DATABASE "${db.name}" WITH ALLOW_CONNECTIONS true`);
    }
  });
});
