import type { ActiveDriverPair } from "../../app/ports";
import type { PrismaClient } from "../prisma/generated/client";

/**
 * Every (city, service) with a driver on shift, in one grouped query over the (city_code,
 * available) index: the answer is bounded by cities x services, whatever the size of the fleet.
 */
export async function loadActiveDriverPairs(db: PrismaClient): Promise<ActiveDriverPair[]> {
  const rows = await db.driver.groupBy({ by: ["cityCode", "carrierServiceId"], where: { available: true } });
  return rows.map((row) => ({ cityCode: row.cityCode, carrierServiceId: row.carrierServiceId }));
}
