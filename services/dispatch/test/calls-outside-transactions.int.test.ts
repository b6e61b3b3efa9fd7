import { randomUUID } from "node:crypto";
import { openDatabase, type ServiceDatabase } from "@tawsil/db";
import { capturedLogger, type TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CatalogueCache } from "../src/app/catalogue-cache";
import { JobStep } from "../src/app/job-step";
import type { DispatchStore, Shipments } from "../src/app/ports";
import { SqlDispatchStore } from "../src/infra/sql-dispatch-store";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { CatalogueRepository } from "../src/infra/repositories/catalogue";
import { SAQR_BIKE } from "./stack";
import { createDispatchDatabase, query } from "./support";

let database: TestDatabase;
let opened: ServiceDatabase<PrismaClient>;
let client: PrismaClient;

beforeAll(async () => {
  database = await createDispatchDatabase(inject("databaseAdminUrl"), "calls");
  // As the service opens it: the Prisma client and the raw statements on one pool.
  opened = openDatabase(PrismaClient, { url: database.url, maxConnections: 3, logger: { warn: () => {} } });
  client = opened.client;
});

afterAll(async () => {
  if (opened) await opened.close();
  await database?.drop();
});

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
    const driverId = randomUUID();
    await query(
      database.url,
      `INSERT INTO dispatch_job (shipment_id, merchant_id, city_code, pickup_latitude_micro, pickup_longitude_micro,
         destination_latitude_micro, destination_longitude_micro, weight_grams, longest_side_mm, requirements,
         cash_on_delivery, state, shipment_version, tried_driver_ids, updated_at)
       VALUES ($1::uuid, $2::uuid, 'RUH', 24713600, 46675300, 24774265, 46738586, 1000, 200, '{}', false, 'WAITING', 2, '{}', now())`,
      shipmentId,
      randomUUID(),
    );
    await query(
      database.url,
      `INSERT INTO driver (id, carrier_service_id, city_code, name, available, available_since, latitude_micro, longitude_micro, updated_at)
       VALUES ($1::uuid, $2::uuid, 'RUH', 'only', true, now(), 24713600, 46675300, now())`,
      driverId,
      SAQR_BIKE,
    );
    const { logger } = capturedLogger("calls-outside-transactions");
    const repository = new CatalogueRepository(client);
    const catalogue = new CatalogueCache({ load: () => repository.load(), refreshMs: 3_600_000, logger });
    await catalogue.start();
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
    const step = new JobStep({ store, shipments, catalogue, logger, offerTimeoutMs: 30_000, dispatchTimeoutMs: 300_000, offerLeadMs: 2_700_000, now: () => now }, 30_000);
    try {
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
    } finally {
      await catalogue.close();
    }
  });
});
