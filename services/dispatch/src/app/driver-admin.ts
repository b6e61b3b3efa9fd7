import { isUuid } from "@tawsil/domain";
import { NotFoundError, ValidationError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import { driverNotFound } from "../domain/errors";
import { SERVICE_LEVELS, type ServiceLevel } from "../domain/service-level";
import type { DriverRegistry, RegisteredDriver } from "./ports";

const CITY = /^[A-Z]{3}$/;

/**
 * Operators' registry of production drivers (decisions.md section 17). A driver serves one
 * carrier's service (the carrier and the vehicle level) in one city, and starts off shift: they
 * come on shift through the driver API with their own credentials (issued by the merchant service).
 */
export class DriverAdmin {
  constructor(
    private readonly deps: {
      registry: DriverRegistry;
      /** Takes a driver off shift as their own app would (the active driver index follows). */
      setAvailability(input: { driverId: string; available: boolean }): Promise<void>;
      logger: Logger;
    },
  ) {}

  async register(input: { name: string; cityCode: string; carrierCode: string; serviceLevel: ServiceLevel | undefined }): Promise<RegisteredDriver> {
    const name = input.name.trim();
    if (name.length < 1 || name.length > 100) throw new ValidationError("name", "must be 1 to 100 characters");
    if (!CITY.test(input.cityCode)) throw new ValidationError("city_code", "must be a city code of three capitals, e.g. RUH");
    if (!input.serviceLevel || !SERVICE_LEVELS.includes(input.serviceLevel)) throw new ValidationError("vehicle", `must be one of ${SERVICE_LEVELS.join(", ")}`);
    const service = await this.deps.registry.carrierService(input.carrierCode, input.serviceLevel);
    if (!service) throw new NotFoundError("carrier service");
    if (!service.cities.includes(input.cityCode)) throw new ValidationError("city_code", `the carrier's ${input.serviceLevel} service does not cover ${input.cityCode}`);
    const driver = await this.deps.registry.register({ name, cityCode: input.cityCode, carrierServiceId: service.id });
    this.deps.logger.info({ driverId: driver.id, cityCode: driver.cityCode, carrierCode: driver.carrierCode, serviceLevel: driver.serviceLevel }, "driver registered");
    return driver;
  }

  list(limit: number): Promise<RegisteredDriver[]> {
    if (!Number.isInteger(limit) || limit < 0 || limit > 1000) throw new ValidationError("limit", "must be from 0 to 1000");
    return this.deps.registry.list(limit === 0 ? 200 : limit);
  }

  async takeOffShift(driverId: string): Promise<RegisteredDriver> {
    if (!isUuid(driverId)) throw new ValidationError("driver_id", "must be a uuid");
    const id = driverId.toLowerCase();
    if (!(await this.deps.registry.get(id))) throw driverNotFound();
    await this.deps.setAvailability({ driverId: id, available: false });
    this.deps.logger.info({ driverId: id }, "driver taken off shift");
    const driver = await this.deps.registry.get(id);
    if (!driver) throw driverNotFound();
    return driver;
  }
}
