import { createGrpcTransport } from "@connectrpc/connect-node";
import { createClient } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Serving } from "@tawsil/proto/grpc/health/v1/health_pb";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Code, createDispatchDatabase, failure, putFleetOnShift, query, startTestService, type TestService } from "./support";

let db: Awaited<ReturnType<typeof createDispatchDatabase>>;
let service: TestService;

beforeAll(async () => {
  db = await createDispatchDatabase(inject("databaseAdminUrl"), "eligibility");
  // The catalogue decides here: every service has a driver on shift (active-drivers.int.test.ts covers the rest).
  await putFleetOnShift(db.url);
  service = await startTestService(db.url);
});

afterAll(async () => {
  await service?.close();
  await db?.drop();
});

interface Row {
  city: string;
  kg: number;
  sideMm?: number;
  requirements?: string[];
  cod?: boolean;
}

const ask = (row: Row) =>
  service.dispatch.checkEligibility({
    cityCode: row.city,
    parcel: {
      totalWeightGrams: BigInt(Math.round(row.kg * 1000)),
      longestSideMm: row.sideMm ?? 0,
      requirements: row.requirements ?? [],
      cashOnDelivery: row.cod ?? false,
    },
  });

describe("CheckEligibility on the seeded sandbox catalogue", () => {
  const rows: [string, Row, ServiceLevel][] = [
    ["a small COD parcel in Riyadh goes by bike", { city: "RUH", kg: 2, sideMm: 300, cod: true }, ServiceLevel.BIKE],
    ["exactly 5 kg and 45 cm still fits a bike", { city: "JED", kg: 5, sideMm: 450 }, ServiceLevel.BIKE],
    ["one gram over 5 kg needs a car", { city: "JED", kg: 5.001, sideMm: 450 }, ServiceLevel.CAR],
    ["KEEP_UPRIGHT needs a car, even in Madinah", { city: "MED", kg: 3, requirements: ["KEEP_UPRIGHT"] }, ServiceLevel.CAR],
    ["120 kg with cash in Dammam goes by van", { city: "DMM", kg: 120, cod: true }, ServiceLevel.VAN],
    ["a 2.4 m item needs a van, not the 2 m cold-chain van", { city: "RUH", kg: 50, sideMm: 2400 }, ServiceLevel.VAN],
    ["LARGE_VEHICLE with NO_CONTACT: Najm's van in Riyadh", { city: "RUH", kg: 80, requirements: ["LARGE_VEHICLE", "NO_CONTACT"] }, ServiceLevel.VAN],
    ["LARGE_VEHICLE with NO_CONTACT: Dammam's only van does not offer it", { city: "DMM", kg: 80, requirements: ["LARGE_VEHICLE", "NO_CONTACT"] }, ServiceLevel.UNSPECIFIED],
    ["LARGE_VEHICLE in Madinah: its only van belongs to an inactive carrier", { city: "MED", kg: 80, requirements: ["LARGE_VEHICLE"] }, ServiceLevel.UNSPECIFIED],
    ["40 kg prepaid in Madinah: only the cold-chain van is big enough", { city: "MED", kg: 40 }, ServiceLevel.COLD_CHAIN_VAN],
    ["40 kg with cash in Madinah: that van takes no cash", { city: "MED", kg: 40, cod: true }, ServiceLevel.UNSPECIFIED],
    ["COLD_CHAIN prepaid in Makkah", { city: "MKK", kg: 20, requirements: ["COLD_CHAIN"] }, ServiceLevel.COLD_CHAIN_VAN],
    ["COLD_CHAIN with cash in Makkah: its only cold chain takes no cash", { city: "MKK", kg: 20, requirements: ["COLD_CHAIN"], cod: true }, ServiceLevel.UNSPECIFIED],
    ["COLD_CHAIN with cash in Madinah: the cash-taking cold chain is paused", { city: "MED", kg: 20, requirements: ["COLD_CHAIN"], cod: true }, ServiceLevel.UNSPECIFIED],
    ["COLD_CHAIN and LARGE_VEHICLE with cash in Riyadh", { city: "RUH", kg: 250, requirements: ["COLD_CHAIN", "LARGE_VEHICLE"], cod: true }, ServiceLevel.COLD_CHAIN_VAN],
    ["COLD_CHAIN over 300 kg", { city: "RUH", kg: 300.001, requirements: ["COLD_CHAIN"] }, ServiceLevel.UNSPECIFIED],
    ["600 kg is too heavy for every van", { city: "RUH", kg: 600 }, ServiceLevel.UNSPECIFIED],
    ["a well-formed city dispatch does not serve", { city: "TIF", kg: 1 }, ServiceLevel.UNSPECIFIED],
  ];

  it.each(rows)("%s", async (_name, row, level) => {
    expect(await ask(row)).toMatchObject({ eligible: level !== ServiceLevel.UNSPECIFIED, serviceLevel: level });
  });

  it("answers with the verdict and the level only, as the wire shows", async () => {
    const post = (body: unknown) =>
      fetch(`${service.url}/tawsil.dispatch.v1.DispatchService/CheckEligibility`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const eligible = await post({ cityCode: "RUH", parcel: { totalWeightGrams: "250000", requirements: ["COLD_CHAIN"], cashOnDelivery: true } });
    expect(eligible.status).toBe(200);
    expect(await eligible.json()).toEqual({ eligible: true, serviceLevel: "SERVICE_LEVEL_COLD_CHAIN_VAN" });
    const notEligible = await post({ cityCode: "MED", parcel: { totalWeightGrams: "80000", requirements: ["LARGE_VEHICLE"] } });
    expect(await notEligible.json()).toEqual({});
  });

  it("never names a carrier in a response or a log line", async () => {
    const carriers = await query<{ id: string; code: string; name: string }>(db.url, "SELECT id::text, code, name FROM carrier");
    const services = await query<{ id: string }>(db.url, "SELECT id::text FROM carrier_service");
    expect(carriers).toHaveLength(4);
    const secrets = [...carriers.flatMap((c) => [c.id, c.code, c.name]), ...services.map((s) => s.id)];
    const answers = await Promise.all(rows.map(([, row]) => ask(row)));
    const text = [...answers.map((answer) => JSON.stringify(answer, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value))), ...service.logLines].join("\n");
    expect(service.logLines.some((line) => line.includes("carrier catalogue loaded"))).toBe(true);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});

describe("CheckEligibility input validation", () => {
  const parcel = { totalWeightGrams: 1000n, longestSideMm: 0, requirements: [], cashOnDelivery: false };

  it.each([
    ["a negative weight", { cityCode: "RUH", parcel: { ...parcel, totalWeightGrams: -500n } }, "parcel.total_weight_grams: must be positive"],
    ["a zero weight", { cityCode: "RUH", parcel: { ...parcel, totalWeightGrams: 0n } }, "parcel.total_weight_grams: must be positive"],
    ["a negative longest side", { cityCode: "RUH", parcel: { ...parcel, longestSideMm: -1 } }, "parcel.longest_side_mm: must be 0 (no dimensions) or positive"],
    ["no parcel", { cityCode: "RUH" }, "parcel: is required"],
    ["a malformed city code", { cityCode: "riyadh", parcel }, "city_code: must be three capital letters, for example RUH"],
    ["a requirement outside the catalogue", { cityCode: "RUH", parcel: { ...parcel, requirements: ["HAZMAT"] } }, "parcel.requirements[0]: is not in the requirements catalogue"],
  ])("answers InvalidArgument with reason INVALID_ARGUMENT for %s", async (_name, request, message) => {
    expect(await failure(service.dispatch.checkEligibility(request))).toEqual({ code: Code.InvalidArgument, reason: "INVALID_ARGUMENT", message });
  });
});

describe("health", () => {
  it("answers the gRPC health protocol over gRPC for the server and DispatchService", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: service.url }));
    for (const name of ["", "tawsil.dispatch.v1.DispatchService"]) {
      expect((await health.check({ service: name })).status).toBe(Serving.SERVING);
    }
    expect((await failure(health.check({ service: "tawsil.dispatch.v1.NoSuchService" }))).code).toBe(Code.NotFound);
  });

  it("reports its database and its city staffing recorded on /readyz (the sandbox's fleet is a process of its own)", async () => {
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "up", "city-staffing": "up" } });
  });
});
