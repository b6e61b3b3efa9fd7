/**
 * Seeding by SQL, in seconds: shipments of the bench merchant in the shipment database (for the
 * list and read scenarios), and shipments waiting for a driver with their dispatch jobs (for the
 * idle figures). The SQL lives in one file per database, to update when a schema changes.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const sql = (name: string) => readFileSync(path.join(HERE, name), "utf8");

export interface SeededShipment {
  readonly id: string;
  readonly created_at: Date;
  readonly pickup_latitude_micro: number;
  readonly pickup_longitude_micro: number;
  readonly destination_latitude_micro: number;
  readonly destination_longitude_micro: number;
}

export interface ShipmentSeed {
  readonly merchantId: string;
  readonly count: number;
  readonly state: string;
  readonly version: number;
  readonly cityCode: string;
  readonly at: { readonly latitudeMicro: number; readonly longitudeMicro: number };
  readonly newest: Date;
  readonly spacingSeconds: number;
  /** Shipment numbers run up from here; seeds of one run must not overlap. */
  readonly firstNumber: number;
  readonly referencePrefix: string;
}

export async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export function seedShipments(shipmentDbUrl: string, seed: ShipmentSeed): Promise<SeededShipment[]> {
  return query<SeededShipment & pg.QueryResultRow>(shipmentDbUrl, sql("shipments.sql"), [
    seed.merchantId,
    seed.count,
    seed.state,
    seed.version,
    seed.cityCode,
    seed.newest,
    seed.spacingSeconds,
    seed.at.latitudeMicro,
    seed.at.longitudeMicro,
    seed.firstNumber,
    seed.referencePrefix,
  ]);
}

/**
 * VACUUM (ANALYZE) of freshly seeded tables, mesh and baseline alike: the state of a database that
 * has lived with its rows (visibility map set, so index-only scans skip the heap; statistics that
 * know the merchant has 100k shipments; hint bits written), and no autovacuum of 100k new rows
 * starting in the middle of a round on the two cores everything shares.
 */
export async function settleSeededTables(url: string, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
    await query(url, `VACUUM (ANALYZE) ${table}`, []);
  }
}

/** Riyadh's demo pickup (../seed-dev.ts), where the list's shipments go from. */
export const RIYADH = { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 };
/** Taif: a real city that no carrier service covers, so no simulated driver serves it. */
export const TAIF = { cityCode: "TIF", latitudeMicro: 21_270_300, longitudeMicro: 40_415_800 };

/**
 * `count` shipments waiting for a driver, half ready for dispatch (job WAITING) and half
 * unresolved (job UNRESOLVED), as dispatch's event consumer would have recorded them.
 */
export async function seedWaitingForDriver(urls: { shipment: string; dispatch: string }, merchantId: string, count: number): Promise<number> {
  const halves = [
    { state: "READY_FOR_DISPATCH", version: 2, job: "WAITING", count: Math.ceil(count / 2), firstNumber: 8_000_000_000 },
    { state: "DISPATCH_UNRESOLVED", version: 4, job: "UNRESOLVED", count: Math.floor(count / 2), firstNumber: 8_500_000_000 },
  ];
  let seeded = 0;
  for (const half of halves) {
    if (half.count === 0) continue;
    const rows = await seedShipments(urls.shipment, {
      merchantId,
      count: half.count,
      state: half.state,
      version: half.version,
      cityCode: TAIF.cityCode,
      at: TAIF,
      newest: new Date(Date.now() - 3_600_000),
      spacingSeconds: 0.1,
      firstNumber: half.firstNumber,
      referencePrefix: `BENCH-WAITING-${half.job}-`,
    });
    const column = <K extends keyof SeededShipment>(key: K) => rows.map((r) => r[key]);
    await query(urls.dispatch, sql("dispatch-jobs.sql"), [
      column("id"),
      column("created_at"),
      column("pickup_latitude_micro"),
      column("pickup_longitude_micro"),
      column("destination_latitude_micro"),
      column("destination_longitude_micro"),
      merchantId,
      TAIF.cityCode,
      half.job,
      half.version,
    ]);
    seeded += rows.length;
  }
  return seeded;
}

/** Dispatch jobs by state, to show what dispatch held while idle. */
export async function jobsByState(dispatchDbUrl: string): Promise<Record<string, number>> {
  const rows = await query<{ state: string; n: number }>(dispatchDbUrl, "SELECT state::text AS state, count(*)::int AS n FROM dispatch_job GROUP BY state ORDER BY state", []);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}
