import { driversKey, waitingKey, type DriverRegistry, type FleetCounts, type RegisteredDriver } from "../app/ports";
import { FREE_DRIVER } from "./job-sql";
import type { ServiceLevel } from "../domain/service-level";
import type { PrismaClient } from "./prisma/generated/client";

const WITH_CARRIER = { carrierService: { select: { serviceLevel: true, carrier: { select: { code: true } } } } } as const;

type Row = { id: string; name: string; cityCode: string; available: boolean; carrierService: { serviceLevel: ServiceLevel; carrier: { code: string } } };

const registered = (row: Row): RegisteredDriver => ({
  id: row.id,
  name: row.name,
  cityCode: row.cityCode,
  carrierCode: row.carrierService.carrier.code,
  serviceLevel: row.carrierService.serviceLevel,
  available: row.available,
});

/** The drivers operators register, in dispatch's driver table beside the sandbox fleet's (simulated) ones. */
export class PrismaDriverRegistry implements DriverRegistry {
  constructor(private readonly db: PrismaClient) {}

  async carrierService(carrierCode: string, level: ServiceLevel): Promise<{ id: string; cities: readonly string[] } | undefined> {
    const service = await this.db.carrierService.findFirst({ where: { serviceLevel: level, active: true, carrier: { code: carrierCode, active: true } }, select: { id: true, cities: true } });
    return service ?? undefined;
  }

  async register(driver: { name: string; cityCode: string; carrierServiceId: string; sandboxFleet: boolean }): Promise<RegisteredDriver> {
    const { sandboxFleet, ...data } = driver;
    return registered(await this.db.driver.create({ data: { ...data, simulated: sandboxFleet, available: false }, include: WITH_CARRIER }));
  }

  async list(limit: number, sandboxFleet: boolean): Promise<RegisteredDriver[]> {
    return (await this.db.driver.findMany({ where: { simulated: sandboxFleet }, include: WITH_CARRIER, orderBy: [{ name: "asc" }, { id: "asc" }], take: limit })).map(registered);
  }

  async fleetCounts(now: Date, recentSince: Date): Promise<FleetCounts> {
    const [drivers, waiting] = await Promise.all([
      this.db.$queryRawUnsafe<{ carrier_service_id: string; city_code: string; on_shift: number; free: number }[]>(
        `SELECT d.carrier_service_id::text AS carrier_service_id, d.city_code, count(*)::int AS on_shift, count(*) FILTER (WHERE ${FREE_DRIVER})::int AS free
           FROM driver d WHERE d.available GROUP BY 1, 2`,
      ),
      this.db.$queryRaw<{ city_code: string; service_level: ServiceLevel; waiting: number; recent: number }[]>`
        SELECT city_code, service_level::text AS service_level, count(*)::int AS waiting,
               count(*) FILTER (WHERE created_at >= ${recentSince}::timestamptz)::int AS recent FROM dispatch_job
         WHERE state IN ('WAITING', 'UNRESOLVED') AND service_level IS NOT NULL AND (offerable_at IS NULL OR offerable_at <= ${now}::timestamptz)
         GROUP BY 1, 2`,
    ]);
    return {
      drivers: new Map(drivers.map((row) => [driversKey(row.carrier_service_id, row.city_code), { onShift: row.on_shift, free: row.free }])),
      waiting: new Map(waiting.map((row) => [waitingKey(row.city_code, row.service_level), { all: row.waiting, recent: row.recent }])),
    };
  }

  async get(driverId: string): Promise<RegisteredDriver | undefined> {
    const row = await this.db.driver.findFirst({ where: { id: driverId, simulated: false }, include: WITH_CARRIER });
    return row ? registered(row) : undefined;
  }
}
