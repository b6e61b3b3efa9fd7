import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { openDatabase, type ServiceDatabase } from "@tawsil/db";
import { capturedLogger, type TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CatalogueCache } from "../src/app/catalogue-cache";
import { applyShipmentChange, type ShipmentChange } from "../src/app/apply-shipment-change";
import { JobStep } from "../src/app/job-step";
import type { DispatchStore, Shipments } from "../src/app/ports";
import { StepEchoes } from "../src/app/step-echoes";
import { awaitedEcho } from "../src/consumers/shipment-events";
import { SqlDispatchStore } from "../src/infra/sql-dispatch-store";
import { SqlJobWork } from "../src/infra/sql-job-work";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { CatalogueRepository } from "../src/infra/repositories/catalogue";
import { SAQR_BIKE } from "./stack";
import { createDispatchDatabase, query } from "./support";

let database: TestDatabase;
let opened: ServiceDatabase<PrismaClient>;
let catalogue: CatalogueCache;
const { logger } = capturedLogger("calls-outside-transactions");

beforeAll(async () => {
  database = await createDispatchDatabase(inject("databaseAdminUrl"), "calls");
  // As the service opens it: the Prisma client and the raw statements on one pool.
  opened = openDatabase(PrismaClient, { url: database.url, maxConnections: 3, logger: { warn: () => {} } });
  const repository = new CatalogueRepository(opened.client);
  catalogue = new CatalogueCache({ load: () => repository.load(), refreshMs: 3_600_000, logger });
  await catalogue.start();
});

afterAll(async () => {
  await catalogue?.close();
  if (opened) await opened.close();
  await database?.drop();
});

/** Dispatch's context over `store` and `shipments`, at the instant `now` gives. */
const contextOf = (store: DispatchStore, shipments: Shipments, now = () => new Date(), echoes?: StepEchoes) => ({
  store,
  shipments,
  catalogue,
  logger,
  offerTimeoutMs: 30_000,
  dispatchTimeoutMs: 300_000,
  offerLeadMs: 2_700_000,
  now,
  ...(echoes ? { echoes } : {}),
});

type Micro = readonly [latitudeMicro: number, longitudeMicro: number];

/** A WAITING job at version 2 in `cityCode`, from `pickup` to `destination`. */
async function waitingJob(shipmentId: string, cityCode: string, pickup: Micro, destination: Micro): Promise<void> {
  await query(
    database.url,
    `INSERT INTO dispatch_job (shipment_id, merchant_id, city_code, pickup_latitude_micro, pickup_longitude_micro,
       destination_latitude_micro, destination_longitude_micro, weight_grams, longest_side_mm, requirements,
       cash_on_delivery, state, shipment_version, tried_driver_ids, updated_at)
     VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, 1000, 200, '{}', false, 'WAITING', 2, '{}', now())`,
    shipmentId,
    randomUUID(),
    cityCode,
    ...pickup,
    ...destination,
  );
}

/** A Saqr bike driver on shift in `cityCode` at `position`, carrying `carrying` when given. */
async function driverOnShift(cityCode: string, position: Micro, carrying: string | null = null): Promise<void> {
  await query(
    database.url,
    `INSERT INTO driver (id, carrier_service_id, city_code, name, available, available_since, latitude_micro, longitude_micro, current_shipment_id, updated_at)
     VALUES ($1::uuid, $2::uuid, $3, 'driver', true, now(), $4, $5, $6::uuid, now())`,
    randomUUID(),
    SAQR_BIKE,
    cityCode,
    ...position,
    carrying,
  );
}

/** `sql`, with each call made on it noted in `made`: a statement, or a transaction (whose statements are made on its own object). */
function counted<T extends object>(sql: T, made: string[]): T {
  return new Proxy(sql, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function" || typeof name !== "string") return value;
      return (...args: unknown[]) => {
        made.push(name === "transaction" ? "transaction" : "statement");
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The store, counting the transactions open at each moment. */
function watchedStore(store: DispatchStore): { store: DispatchStore; open: () => number } {
  let open = 0;
  const watched = Object.assign(Object.create(store) as DispatchStore, {
    transaction: async <R>(fn: Parameters<DispatchStore["transaction"]>[0]): Promise<R> => {
      open++;
      try {
        return (await store.transaction(fn)) as R;
      } finally {
        open--;
      }
    },
  });
  return { store: watched, open: () => open };
}

describe("a job step", () => {
  it("asks the shipment service to reserve and to give up with no transaction of dispatch open", async () => {
    const shipmentId = randomUUID();
    await waitingJob(shipmentId, "RUH", [24_713_600, 46_675_300], [24_774_265, 46_738_586]);
    await driverOnShift("RUH", [24_713_600, 46_675_300]);
    const { store, open } = watchedStore(new SqlDispatchStore(opened.sql));
    const calls: { call: string; openTransactions: number }[] = [];
    let version = 2n;
    const shipments: Shipments = {
      reserveForOffer: async () => {
        calls.push({ call: "reserve", openTransactions: open() });
        return { ok: true, state: "OFFERED", version: ++version };
      },
      applyStep: async (_id, step) => {
        calls.push({ call: step, openTransactions: open() });
        return { ok: true, state: step === "UNRESOLVED" ? "DISPATCH_UNRESOLVED" : "OFFERED", version: ++version };
      },
      read: () => Promise.reject(new Error("no refresh expected")),
    };
    let now = new Date();
    const step = new JobStep(contextOf(store, shipments, () => now), 30_000);
    const offered = await step.run(shipmentId);
    expect(offered.offerExpiresAt).toEqual(new Date(now.getTime() + 30_000));
    // The only driver's offer lapses: nobody is left, so the job gives up.
    now = new Date(now.getTime() + 31_000);
    expect(await step.run(shipmentId)).toEqual({});
    expect(calls).toEqual([
      { call: "reserve", openTransactions: 0 },
      { call: "UNRESOLVED", openTransactions: 0 },
    ]);
    const [job] = await query<{ state: string; shipment_version: string }>(database.url, `SELECT state::text, shipment_version::text FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId);
    expect(job).toEqual({ state: "UNRESOLVED", shipment_version: "4" });
    const offers = await query<{ state: string }>(database.url, `SELECT state::text FROM offer WHERE shipment_id = $1::uuid`, shipmentId);
    expect(offers).toEqual([{ state: "EXPIRED" }]);
  });

  it("plans a new job with no free driver from one statement, with no transaction", async () => {
    const shipmentId = randomUUID();
    await waitingJob(shipmentId, "JED", [21_485_800, 39_192_500], [21_500_000, 39_200_000]);
    // Jeddah's only driver is on shift but carries another shipment.
    await driverOnShift("JED", [21_485_800, 39_192_500], randomUUID());
    const made: string[] = [];
    const shipments: Shipments = {
      reserveForOffer: () => Promise.reject(new Error("no driver is free: nothing to reserve")),
      applyStep: () => Promise.reject(new Error("no step expected")),
      read: () => Promise.reject(new Error("no refresh expected")),
    };
    const step = new JobStep(contextOf(new SqlDispatchStore(counted(opened.sql, made)), shipments), 30_000);
    expect(await step.run(shipmentId)).toEqual({});
    expect(made).toEqual(["statement"]);
    const [job] = await query<{ state: string }>(database.url, `SELECT state::text FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId);
    expect(job).toEqual({ state: "WAITING" });
  });

  it("creates the job of a shipment ready for dispatch in one statement, and locks and reads it only when it exists", async () => {
    const ctx = contextOf(new SqlDispatchStore(opened.sql), {} as Shipments);
    const change: ShipmentChange = {
      shipmentId: randomUUID(),
      merchantId: randomUUID(),
      state: "READY_FOR_DISPATCH",
      version: 1n,
      cityCode: "MED",
      pickup: { latitudeMicro: 24_524_700, longitudeMicro: 39_569_200 },
      destination: { latitudeMicro: 24_500_000, longitudeMicro: 39_600_000 },
      weightGrams: 1000,
      longestSideMm: 200,
      requirements: [],
      cashOnDelivery: false,
      pickupWindowStart: undefined,
    };
    const applied = async (c: ShipmentChange) => {
      const made: string[] = [];
      await opened.sql.transaction((tx) => applyShipmentChange(ctx, new SqlJobWork(counted(tx, made)), c));
      return made.length;
    };
    expect(await applied(change)).toBe(1);
    // Delivered again: the insert finds the job, which is then locked and read, and left as it is.
    expect(await applied(change)).toBe(2);
    const jobs = await query<{ state: string; shipment_version: string }>(database.url, `SELECT state::text, shipment_version::text FROM dispatch_job WHERE shipment_id = $1::uuid`, change.shipmentId);
    expect(jobs).toEqual([{ state: "WAITING", shipment_version: "1" }]);
  });

  it("notes a recorded step's version, so the consumer skips its echo with no statement", async () => {
    const shipmentId = randomUUID();
    await waitingJob(shipmentId, "DMM", [26_420_700, 50_088_800], [26_430_000, 50_100_000]);
    await driverOnShift("DMM", [26_420_700, 50_088_800]);
    const shipments: Shipments = {
      reserveForOffer: async () => ({ ok: true, state: "OFFERED", version: 3n }),
      applyStep: () => Promise.reject(new Error("no step expected")),
      read: () => Promise.reject(new Error("no refresh expected")),
    };
    const echoes = new StepEchoes();
    const echo = awaitedEcho(echoes);
    const changed = (version: bigint, key = shipmentId) => ({
      eventId: randomUUID(),
      type: ShipmentChangedSchema.typeName,
      key,
      payload: toBinary(ShipmentChangedSchema, create(ShipmentChangedSchema, { shipment: { shipmentId, version } })),
      topic: "shipment.events.v1",
      partition: 0,
      offset: "0",
    });
    expect(echo(changed(3n))).toBe(false);
    const offered = await new JobStep(contextOf(new SqlDispatchStore(opened.sql), shipments, () => new Date(), echoes), 30_000).run(shipmentId);
    expect(offered.offerExpiresAt).toBeDefined();
    const [job] = await query<{ state: string; shipment_version: string }>(database.url, `SELECT state::text, shipment_version::text FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId);
    expect(job).toEqual({ state: "OFFERED", shipment_version: "3" });
    // A newer change is not the echo, nor is a record keyed otherwise; the echo is, once.
    expect(echo(changed(4n))).toBe(false);
    expect(echo(changed(3n, randomUUID()))).toBe(false);
    expect(echo(changed(3n))).toBe(true);
    expect(echo(changed(3n))).toBe(false);
  });
});
