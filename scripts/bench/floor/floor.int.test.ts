import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dropDatabase } from "../../../packages/db/src/index";
import { call } from "../../../packages/testing/src/load/driver";
import { prepareBaselineDatabase, seedBaselineShipments } from "../baseline/database";
import { FLOOR_GROUPS } from "./events";
import { startFloor, type Floor } from "./start";

const MERCHANT = randomUUID();
const BODY = JSON.stringify({ pickup: { latitude: 24.7136, longitude: 46.6753 }, delivery: { latitude: 24.774265, longitude: 46.738586 } });

describe("the design floor: a fastify edge calling a Connect service in another process, on real PostgreSQL and Kafka", () => {
  const adminUrl = inject("databaseAdminUrl");
  const name = `tawsil_bench_floor_${randomUUID().slice(0, 8)}`;
  const logDir = mkdtempSync(path.join(os.tmpdir(), "floor-"));
  let floor: Floor;
  let seeded: string[];
  let url: string;

  beforeAll(async () => {
    url = await prepareBaselineDatabase(adminUrl, name);
    seeded = await seedBaselineShipments(url, MERCHANT, 3, new Date(Date.now() - 60_000));
    floor = await startFloor({ databaseUrl: url, merchantId: MERCHANT, brokers: inject("kafkaBrokers"), logDir });
  }, 60_000);

  afterAll(async () => {
    await floor?.stop();
    await dropDatabase(adminUrl, name);
    rmSync(logDir, { recursive: true, force: true });
  });

  it("answers an estimate with the inner service's constant quote, through the call", async () => {
    const res = await call(floor.edge.url, { method: "POST", path: "/estimate", headers: { "content-type": "application/json" }, body: BODY });
    expect(res).toMatchObject({ status: 200, body: { distanceMetres: 9120, price: 21.27, currency: "SAR" } });
  });

  it("reads a shipment by primary key in the inner service, and answers 404 for one the merchant does not have", async () => {
    const res = await call(floor.edge.url, { method: "GET", path: `/read/${seeded[1]}`, headers: {} });
    expect(res.status).toBe(200);
    // The seed writes DELIVERED shipments at version 7: the row itself came through the call.
    expect(res.body).toMatchObject({ id: seeded[1], currency: "SAR", version: 7 });
    expect((res.body as { reference: string }).reference).toMatch(/\S/);
    expect((await call(floor.edge.url, { method: "GET", path: `/read/${randomUUID()}`, headers: {} })).status).toBe(404);
  });

  it("creates in one transaction and has each of the three consumer groups apply the one event it published, once", async () => {
    const created = await Promise.all(
      ["FLOOR-1", "FLOOR-2"].map((reference) =>
        call(floor.edge.url, {
          method: "POST",
          path: "/create",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ reference, destination: { latitude: 24.774265, longitude: 46.738586 }, recipient: { name: "Floor", mobile: "0512345678" } }),
        }),
      ),
    );
    for (const res of created) expect(res).toMatchObject({ status: 201, body: { status: "CREATED", price: 21.27 } });
    await floor.caughtUp(20_000);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const ids = created.map((res) => (res.body as { id: string }).id);
      const outbox = await client.query("SELECT id FROM floor_outbox WHERE id = ANY($1::uuid[])", [ids]);
      expect(outbox.rowCount).toBe(2);
      const applied = await client.query<{ group_name: string; event_id: string }>("SELECT group_name, event_id FROM floor_applied WHERE event_id = ANY($1::uuid[]) ORDER BY group_name, event_id", [ids]);
      expect(applied.rows).toEqual(FLOOR_GROUPS.flatMap((group) => [...ids].sort().map((id) => ({ group_name: group, event_id: id }))));
    } finally {
      await client.end();
    }
  });
});
