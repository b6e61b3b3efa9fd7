import { randomUUID } from "node:crypto";
import { listenForNotifications, PgSql } from "@tawsil/db";
import { createLogger } from "@tawsil/logging";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newJob, type DispatchJob } from "../src/domain/dispatch-job";
import { SqlJobWork } from "../src/infra/sql-job-work";
import { DISPATCHER_CHANNEL, jobWakeUp } from "../src/infra/wake-ups";
import { createDispatchDatabase, query } from "./support";
import type { TestDatabase } from "@tawsil/testing";

/**
 * Issue 34: the creations one fetch brings are inserted in one statement (SqlJobWork.createJobs,
 * the consumer's batch handler). Each job is stored as createJob stores it, in order, each wakes
 * the dispatcher once, and a shipment that has a job already is left to the handler.
 */
let db: TestDatabase;
let pool: pg.Pool;
let sql: PgSql;

beforeAll(async () => {
  db = await createDispatchDatabase(inject("databaseAdminUrl"), "batch");
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  sql = new PgSql(pool);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

function job(overrides: Partial<DispatchJob> = {}): DispatchJob {
  return {
    ...newJob(
      {
        shipmentId: randomUUID(),
        merchantId: randomUUID(),
        cityCode: "RUH",
        serviceLevel: "BIKE",
        pickup: { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 },
        destination: { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 },
        weightGrams: 1500,
        longestSideMm: 300,
        requirements: ["FRAGILE", "PIN_ON_DELIVERY"],
        cashOnDelivery: true,
        delivery: { pickupAddress: "King Fahd Rd", destinationAddress: "Al Malaz", codAmount: "120.50", recipientName: "Sara" },
        shipmentVersion: 3n,
      },
      "READY_FOR_DISPATCH",
      new Date("2026-12-01T10:00:00.000Z"),
    ),
    ...overrides,
  };
}

const stored = async (shipmentIds: readonly string[]) =>
  query<Record<string, unknown>>(
    db.url,
    `SELECT shipment_id::text, merchant_id::text, city_code, service_level::text, pickup_latitude_micro, pickup_longitude_micro, destination_latitude_micro,
       destination_longitude_micro, weight_grams, longest_side_mm, requirements, cash_on_delivery, state::text, shipment_version::text, attempts,
       tried_driver_ids::text[], deadline, unresolved_count, retry_at, offerable_at, pickup_address, destination_address, cod_amount, recipient_name
     FROM dispatch_job WHERE shipment_id = ANY($1::uuid[]) ORDER BY created_at`,
    shipmentIds,
  );

describe("creating the jobs of a batch in one statement", () => {
  it("stores each job as createJob does, in order, wakes the dispatcher once for each, and leaves a shipment that has a job already", async () => {
    const existing = job();
    await sql.transaction((tx) => new SqlJobWork(tx).createJob(existing));
    // One created alone, as the reference for what a row holds.
    const reference = job();
    await sql.transaction((tx) => new SqlJobWork(tx).createJob(reference));

    const unresolved = newJob({ ...job(), requirements: [], delivery: undefined }, "DISPATCH_UNRESOLVED");
    const batch = [job({ merchantId: reference.merchantId }), { ...existing, shipmentVersion: 4n }, unresolved, job({ serviceLevel: null, offerableAt: null })];
    const woken: string[] = [];
    const listener = await listenForNotifications({ url: db.url, channel: DISPATCHER_CHANNEL, // undefined: the listener (re)connected, which says nothing of these jobs.
      onNotify: (payload) => payload !== undefined && woken.push(payload),
      logger: createLogger({ service: "batch-test", level: "silent" }) });
    try {
      const created = await sql.transaction((tx) => new SqlJobWork(tx).createJobs(batch));
      expect(created).toEqual(new Set([batch[0]!.shipmentId, unresolved.shipmentId, batch[3]!.shipmentId]));
      const deadline = Date.now() + 10_000;
      while (woken.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(woken.sort()).toEqual([batch[0]!, unresolved, batch[3]!].map((j) => jobWakeUp(j.shipmentId).payload).sort());
    } finally {
      await listener.close();
    }

    // The existing job is untouched (version 3); the new ones come in the batch's order, each as createJob writes its like.
    const rows = await stored([existing.shipmentId, reference.shipmentId, ...batch.map((j) => j.shipmentId)]);
    expect(rows.map((row) => row.shipment_id)).toEqual([existing.shipmentId, reference.shipmentId, batch[0]!.shipmentId, unresolved.shipmentId, batch[3]!.shipmentId]);
    expect(rows[0]!.shipment_version).toBe("3");
    const withoutIds = ({ shipment_id: _s, merchant_id: _m, ...rest }: Record<string, unknown>) => rest;
    expect(withoutIds(rows[2]!)).toEqual(withoutIds(rows[1]!));
    expect(rows[3]).toMatchObject({ state: "UNRESOLVED", requirements: [], deadline: new Date(0), offerable_at: null, pickup_address: null, cod_amount: null });
    expect(rows[4]).toMatchObject({ service_level: null, offerable_at: null, requirements: ["FRAGILE", "PIN_ON_DELIVERY"], tried_driver_ids: [] });
    expect(await sql.transaction((tx) => new SqlJobWork(tx).createJobs([]))).toEqual(new Set());
  });

  it("dates a job by its shipment's creation, so the backlog's order is the shipments' whatever order their events came in", async () => {
    const older = job({ shipmentCreatedAt: new Date("2026-11-29T10:00:00.000Z") });
    const newer = job({ shipmentCreatedAt: new Date("2026-11-29T10:00:00.011Z") });
    // The newer shipment's event first (another partition's, fetched first), in one batch and apart.
    await sql.transaction((tx) => new SqlJobWork(tx).createJobs([newer, older]));
    const later = job({ shipmentCreatedAt: new Date("2026-11-29T10:00:00.020Z") });
    const earlier = job({ shipmentCreatedAt: new Date("2026-11-29T10:00:00.015Z") });
    await sql.transaction((tx) => new SqlJobWork(tx).createJob(later));
    await sql.transaction((tx) => new SqlJobWork(tx).createJob(earlier));
    const ids = [older, newer, earlier, later].map((j) => j.shipmentId);
    const rows = await query<{ shipment_id: string }>(db.url, `SELECT shipment_id::text FROM dispatch_job WHERE shipment_id = ANY($1::uuid[]) ORDER BY created_at`, ids);
    expect(rows.map((row) => row.shipment_id)).toEqual(ids);
  });
});
