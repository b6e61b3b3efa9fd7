import { isUuid } from "@tawsil/domain";
import { FailedPreconditionError, NotFoundError, ValidationError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import { driverNotFound } from "../domain/errors";
import { SERVICE_LEVELS, type ServiceLevel } from "../domain/service-level";
import type { Catalogue } from "../domain/catalogue";
import { driversKey, waitingKey, type DriverRegistry, type RegisteredDriver } from "./ports";

const CITY = /^[A-Z]{3}$/;

/** One carrier service in one city, as the sandbox fleet staffs it. */
export interface FleetDemand {
  readonly cityCode: string;
  readonly carrierCode: string;
  readonly serviceLevel: ServiceLevel;
  readonly onShift: number;
  readonly free: number;
  readonly waiting: number;
  /** Those of them created within the `recentMs` asked for. */
  readonly waitingRecent: number;
}

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
      catalogue: { current(): Catalogue };
      environment: "sandbox" | "production";
      logger: Logger;
    },
  ) {}

  async register(input: { name: string; cityCode: string; carrierCode: string; serviceLevel: ServiceLevel | undefined; sandboxFleet?: boolean }): Promise<RegisteredDriver> {
    const sandboxFleet = input.sandboxFleet === true;
    if (sandboxFleet) this.#sandboxOnly();
    const name = input.name.trim();
    if (name.length < 1 || name.length > 100) throw new ValidationError("name", "must be 1 to 100 characters");
    if (!CITY.test(input.cityCode)) throw new ValidationError("city_code", "must be a city code of three capitals, e.g. RUH");
    if (!input.serviceLevel || !SERVICE_LEVELS.includes(input.serviceLevel)) throw new ValidationError("vehicle", `must be one of ${SERVICE_LEVELS.join(", ")}`);
    const service = await this.deps.registry.carrierService(input.carrierCode, input.serviceLevel);
    if (!service) throw new NotFoundError("carrier service");
    if (!service.cities.includes(input.cityCode)) throw new ValidationError("city_code", `the carrier's ${input.serviceLevel} service does not cover ${input.cityCode}`);
    const driver = await this.deps.registry.register({ name, cityCode: input.cityCode, carrierServiceId: service.id, sandboxFleet });
    this.deps.logger.info({ driverId: driver.id, cityCode: driver.cityCode, carrierCode: driver.carrierCode, serviceLevel: driver.serviceLevel, sandboxFleet }, "driver registered");
    return driver;
  }

  list(limit: number, sandboxFleet = false): Promise<RegisteredDriver[]> {
    if (!Number.isInteger(limit) || limit < 0 || limit > 1000) throw new ValidationError("limit", "must be from 0 to 1000");
    if (sandboxFleet) this.#sandboxOnly();
    return this.deps.registry.list(limit === 0 ? 200 : limit, sandboxFleet);
  }

  /**
   * What the sandbox fleet staffs and how busy it is: every active service of an active carrier in
   * each city it covers, with its drivers on shift and free, and the jobs waiting whose smallest
   * eligible level is the service's, and how many of them were created in the last `recentMs` (the
   * fleet's reserve serves those, so a backlog never starves a new shipment). The fleet asks only
   * while its drivers of a service are all busy.
   */
  async fleetDemand(now: Date, recentMs = 0): Promise<FleetDemand[]> {
    this.#sandboxOnly();
    if (!Number.isInteger(recentMs) || recentMs < 0) throw new ValidationError("recent_ms", "must be a whole number of milliseconds, 0 or more");
    const counts = await this.deps.registry.fleetCounts(now, new Date(now.getTime() - recentMs));
    return this.deps.catalogue
      .current()
      .carriers.filter((carrier) => carrier.active)
      .flatMap((carrier) =>
        carrier.services
          .filter((service) => service.active)
          .flatMap((service) =>
            [...service.cities].map((cityCode) => {
              const drivers = counts.drivers.get(driversKey(service.id, cityCode));
              const waiting = counts.waiting.get(waitingKey(cityCode, service.level));
              return { cityCode, carrierCode: carrier.code, serviceLevel: service.level, onShift: drivers?.onShift ?? 0, free: drivers?.free ?? 0, waiting: waiting?.all ?? 0, waitingRecent: recentMs > 0 ? (waiting?.recent ?? 0) : 0 };
            }),
          ),
      );
  }

  #sandboxOnly(): void {
    if (this.deps.environment !== "sandbox") throw new FailedPreconditionError("SANDBOX_ONLY", "only the sandbox has a simulated fleet");
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
