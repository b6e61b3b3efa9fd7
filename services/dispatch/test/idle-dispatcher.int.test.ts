import { randomUUID } from "node:crypto";
import { openDatabase, type PgSql, type ServiceDatabase } from "@tawsil/db";
import { capturedLogger, type TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CatalogueCache } from "../src/app/catalogue-cache";
import { Dispatcher } from "../src/app/dispatcher";
import { DriverApi } from "../src/app/driver-api";
import { OfferWaiters } from "../src/app/offer-waiters";
import type { Shipments } from "../src/app/ports";
import { electOver } from "../src/infra/leadership";
import { SqlDispatchStore } from "../src/infra/sql-dispatch-store";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { CatalogueRepository } from "../src/infra/repositories/catalogue";
import { eventually, SAQR_BIKE } from "./stack";
import { createDispatchDatabase, query } from "./support";

/** The pool's raw SQL, counting every statement issued through it, transactions included. */
function countingClient(db: PgSql): { db: PgSql; statements: () => number } {
  let statements = 0;
  const counted =
    (fn: (...args: unknown[]) => unknown, self: object) =>
    (...args: unknown[]) => {
      statements++;
      return fn.apply(self, args);
    };
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, prop) {
        const value: unknown = Reflect.get(object, prop);
        if (prop === "transaction" && typeof value === "function") {
          return (fn: (tx: object) => unknown, options?: unknown) => value.call(object, (tx: object) => fn(wrap(tx)), options);
        }
        if (typeof prop === "string" && /^\$(query|execute)Raw/.test(prop) && typeof value === "function") return counted(value as never, object);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(object) : value;
      },
    });
  return { db: wrap(db), statements: () => statements };
}

/** No shipment service here: nothing in this test may be offered. */
const noShipments: Shipments = {
  reserveForOffer: () => Promise.reject(new Error("no reservation expected")),
  applyStep: () => Promise.reject(new Error("no step expected")),
  read: () => Promise.reject(new Error("no read expected")),
};

let database: TestDatabase;
let opened: ServiceDatabase<PrismaClient>;
let client: PrismaClient;

beforeAll(async () => {
  database = await createDispatchDatabase(inject("databaseAdminUrl"), "idle");
  // As the service opens it: the Prisma client and the raw statements on one pool.
  opened = openDatabase(PrismaClient, { url: database.url, maxConnections: 3, logger: { warn: () => {} } });
  client = opened.client;
});

afterAll(async () => {
  if (opened) await opened.close();
  await database?.drop();
});

describe("an idle dispatcher", () => {
  it("issues no job or driver query while 1,000 jobs wait that no driver can take", async () => {
    // 1,000 Riyadh jobs of 2 tonnes, beyond every service, and one free bike driver in Riyadh.
    await query(
      database.url,
      `INSERT INTO dispatch_job (shipment_id, merchant_id, city_code, pickup_latitude_micro, pickup_longitude_micro,
         destination_latitude_micro, destination_longitude_micro, weight_grams, longest_side_mm, requirements,
         cash_on_delivery, state, shipment_version, tried_driver_ids, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'RUH', 24713600, 46675300, 24774265, 46738586, 2000000, 300, '{}',
         false, 'WAITING', 2, '{}', now() - make_interval(secs => i), now()
       FROM generate_series(1, 1000) AS i`,
      randomUUID(),
    );
    await query(
      database.url,
      `INSERT INTO driver (id, carrier_service_id, city_code, name, available, available_since, latitude_micro, longitude_micro, updated_at)
       VALUES ($1::uuid, $2::uuid, 'RUH', 'idle', true, now(), 24713600, 46675300, now())`,
      randomUUID(),
      SAQR_BIKE,
    );
    const { logger } = capturedLogger("idle-dispatcher");
    const repository = new CatalogueRepository(client);
    const catalogue = new CatalogueCache({ load: () => repository.load(), refreshMs: 3_600_000, logger });
    await catalogue.start();
    const counting = countingClient(opened.sql);
    const ctx = { store: new SqlDispatchStore(counting.db), shipments: noShipments, catalogue, logger, offerTimeoutMs: 30_000, dispatchTimeoutMs: 300_000, offerLeadMs: 2_700_000 };
    const elect = electOver({ databaseUrl: database.url, retryMs: 1_000, logger });
    const dispatcher = new Dispatcher(ctx, { elect, safetyNetMs: 3_600_000, unresolvedBackoffMs: 30_000, backlogOrder: "OLDEST_FIRST" });
    try {
      dispatcher.start();
      await eventually(async () => (dispatcher.leading ? true : undefined), "leadership", 30_000);
      await dispatcher.drained();
      // Taking the lead looks at drivers and due offers, never job by job.
      const catchUp = counting.statements();
      expect(catchUp).toBeGreaterThan(0);
      expect(catchUp).toBeLessThan(20);

      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await dispatcher.drained();
      expect(counting.statements()).toBe(catchUp);
      const [jobs] = await query<{ waiting: number }>(database.url, `SELECT count(*)::int AS waiting FROM dispatch_job WHERE state = 'WAITING'`);
      expect(jobs?.waiting).toBe(1000);
    } finally {
      await dispatcher.close();
      await catalogue.close();
    }
  });

  it("answers an idle driver's long poll with one statement: none while it waits, none when the wait ends with no notification", async () => {
    const driverId = randomUUID();
    await query(database.url, `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at) VALUES ($1::uuid, $2::uuid, 'RUH', 'long poll', now())`, driverId, SAQR_BIKE);
    const { logger } = capturedLogger("idle-driver");
    const counting = countingClient(opened.sql);
    const ctx = { store: new SqlDispatchStore(counting.db), shipments: noShipments, catalogue: undefined as never, logger, offerTimeoutMs: 30_000, dispatchTimeoutMs: 300_000, offerLeadMs: 2_700_000 };
    const drivers = new DriverApi(ctx, undefined, undefined, new OfferWaiters());

    expect(await drivers.listOffers({ driverId, waitMs: 1_500 })).toEqual([]);
    expect(counting.statements()).toBe(1);
    // Whether the driver exists is part of the same statement.
    await expect(drivers.listOffers({ driverId: randomUUID(), waitMs: 1_500 })).rejects.toThrow(/driver/i);
    expect(counting.statements()).toBe(2);
    expect(await drivers.listJobs({ driverId })).toEqual([]);
    await expect(drivers.listJobs({ driverId: randomUUID() })).rejects.toThrow(/driver/i);
    expect(counting.statements()).toBe(4);
  });
});
