import { randomUUID } from "node:crypto";
import { createKafka } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import type { TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../../packages/testing/src/infra/kafka";
import { eventually } from "../../dispatch/test/stack";
import { createDispatchDatabase, putFleetOnShift, query, relayOutbox, startTestService as startDispatch, type TestService as DispatchTestService } from "../../dispatch/test/support";
import { createMerchantDatabase, startTestService as startMerchant, type TestService as MerchantTestService } from "../../merchant/test/support";
import { CITY_STAFFING_TOPIC } from "@tawsil/topology";
import { failure, startTestService, type TestService } from "./support";

/**
 * Pricing decides eligibility from dispatch.city-staffing.v1, on a real broker: dispatch records
 * each city's staffing in its outbox, a relay sends it, and every pricing replica reads the whole
 * topic in a group of its own. A shift change reaches pricing within 5 s; a replica started later
 * rebuilds the index from the compacted log, and says ready only once it has.
 */
const AL_OLAYA = { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 };
const AL_MALAZ = { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 };
const JEDDAH_HAMRA = { latitudeMicro: 21_514_000, longitudeMicro: 39_168_000 };
const JEDDAH_BALAD = { latitudeMicro: 21_485_811, longitudeMicro: 39_192_505 };
const TERMS = { baseFee: "15", includedKm: "3", perKmFee: "1.75", includedWeightKg: "5", perKgFee: "2", codFeePercent: "1.5", codFeeMinimum: "5", maxCodAmount: "2000", requirementSurcharges: [] };

const dbs: TestDatabase[] = [];
const closers: (() => Promise<unknown>)[] = [];
let merchant: MerchantTestService;
let dispatch: DispatchTestService;
let pricing: TestService;
let dispatchDbUrl = "";
let merchantId = "";
const kafka = () => createKafka({ clientId: `pricing-staffing-test-${randomUUID().slice(0, 8)}`, brokers: inject("kafkaBrokers"), logger: createLogger({ service: "test-kafka", level: "silent" }) });

const quote = (pickup: typeof AL_OLAYA, destination: typeof AL_OLAYA, on: TestService = pricing) =>
  on.pricing.quoteDelivery({ merchantId, pickup, destination, expectedCityCode: "", codAmount: "", parcel: { totalWeightGrams: 1000n, longestSideMm: 0, requirements: [], cashOnDelivery: false } });
const inJeddah = (on?: TestService) => quote(JEDDAH_BALAD, JEDDAH_HAMRA, on);
/** The refusal's reason, or "served" when the call succeeds. */
const refusal = (call: Promise<unknown>) => failure(call).then((refused) => refused.reason, () => "served");
const ready = async (service: TestService) => (await fetch(`${service.url}/readyz`)).status === 200;

/** Polls until `done`, failing past 5 s after the change. */
async function within5s(done: () => Promise<boolean>): Promise<void> {
  const changedAt = Date.now();
  while (!(await done())) {
    if (Date.now() - changedAt > 5_000) throw new Error("the change was not in effect within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  const adminUrl = inject("databaseAdminUrl");
  await ensureTopics([...inject("kafkaBrokers")], [{ topic: CITY_STAFFING_TOPIC, numPartitions: 3, compacted: true }]);
  const [merchantDb, dispatchDb] = await Promise.all([createMerchantDatabase(adminUrl, "staffing"), createDispatchDatabase(adminUrl, "staffing")]);
  dbs.push(merchantDb, dispatchDb);
  dispatchDbUrl = dispatchDb.url;
  await putFleetOnShift(dispatchDb.url, { cities: ["RUH"] });
  [merchant, dispatch] = await Promise.all([startMerchant(merchantDb.url), startDispatch(dispatchDb.url)]);
  closers.push(await relayOutbox(dispatchDb.url, kafka()));
  pricing = await startTestService({ merchantUrl: merchant.url }, {}, { kafka: kafka() });
  const code = `STAFF${randomUUID().slice(0, 4).toUpperCase()}`;
  merchantId = (await merchant.admin.createMerchant({ code, displayName: code, legalName: `${code} LLC` })).merchant?.merchantId ?? "";
  await merchant.admin.addRateCard({ merchantCode: code, terms: TERMS });
});

afterAll(async () => {
  await pricing?.close();
  for (const close of closers.reverse()) await close();
  await Promise.all([merchant?.close(), dispatch?.close()]);
  await Promise.all(dbs.map((db) => db.drop()));
});

describe("eligibility from dispatch's city staffing on Kafka", () => {
  it("is ready once caught up, then quotes Riyadh (staffed) and refuses Jeddah (nobody on shift) NO_ELIGIBLE_SERVICE", async () => {
    await eventually(async () => ((await ready(pricing)) ? true : undefined), "pricing to be caught up", 30_000);
    expect((await quote(AL_OLAYA, AL_MALAZ)).serviceLevel).toBe(ServiceLevel.BIKE);
    expect(await refusal(inJeddah())).toBe("NO_ELIGIBLE_SERVICE");
  });

  it("follows a driver going on and off shift within 5 s, and a replica started later rebuilds it from the topic", async () => {
    const driverId = randomUUID();
    await query(
      dispatchDbUrl,
      `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at)
       SELECT $1::uuid, s.id, 'JED', 'Test driver', now() FROM carrier_service s JOIN carrier c ON c.id = s.carrier_id
        WHERE c.active AND s.active AND s.service_level = 'BIKE' AND 'JED' = ANY(s.cities) LIMIT 1`,
      driverId,
    );
    const drivers = createPeerClient(DriverService, dispatch.url);
    await drivers.setAvailability({ driverId, available: true });
    await within5s(async () => (await inJeddah().then((answer) => answer.serviceLevel, () => undefined)) === ServiceLevel.BIKE);

    const late = await startTestService({ merchantUrl: merchant.url }, {}, { kafka: kafka() });
    try {
      await eventually(async () => ((await ready(late)) ? true : undefined), "the new replica to be caught up", 30_000);
      expect((await inJeddah(late)).serviceLevel).toBe(ServiceLevel.BIKE);
      expect((await quote(AL_OLAYA, AL_MALAZ, late)).serviceLevel).toBe(ServiceLevel.BIKE);

      await drivers.setAvailability({ driverId, available: false });
      for (const replica of [pricing, late]) await within5s(async () => (await refusal(inJeddah(replica))) === "NO_ELIGIBLE_SERVICE");
    } finally {
      await late.close();
    }
  });
});
