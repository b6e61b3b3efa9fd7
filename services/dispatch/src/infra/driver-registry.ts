import type { DriverRegistry, RegisteredDriver } from "../app/ports";
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

  async register(driver: { name: string; cityCode: string; carrierServiceId: string }): Promise<RegisteredDriver> {
    return registered(await this.db.driver.create({ data: { ...driver, simulated: false, available: false }, include: WITH_CARRIER }));
  }

  async list(limit: number): Promise<RegisteredDriver[]> {
    return (await this.db.driver.findMany({ where: { simulated: false }, include: WITH_CARRIER, orderBy: [{ name: "asc" }, { id: "asc" }], take: limit })).map(registered);
  }

  async get(driverId: string): Promise<RegisteredDriver | undefined> {
    const row = await this.db.driver.findFirst({ where: { id: driverId, simulated: false }, include: WITH_CARRIER });
    return row ? registered(row) : undefined;
  }
}
