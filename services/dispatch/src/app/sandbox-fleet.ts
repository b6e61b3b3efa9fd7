import { createHash } from "node:crypto";
import type { Coordinate } from "@tawsil/domain";
import { DomainError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import type { Catalogue } from "../domain/catalogue";
import { CITY_CENTRES, moveToward } from "../domain/geo";
import type { PrismaClient } from "../infra/prisma/generated/client";
import type { DriverApi, Progress } from "./driver-api";

export interface SandboxFleetOptions {
  readonly db: PrismaClient;
  readonly driverApi: DriverApi;
  readonly catalogue: { current(): Catalogue };
  readonly logger: Logger;
  readonly speedKmh: number;
  readonly failureRate: number;
  readonly driversPerService?: number;
  readonly tickMs?: number;
  readonly random?: () => number;
}

type Phase = "TO_PICKUP" | "AT_PICKUP" | "TO_DESTINATION";

interface SimDriver {
  readonly id: string;
  position: Coordinate;
  task?: { shipmentId: string; pickup: Coordinate; destination: Coordinate; phase: Phase };
  /** Offers seen on an earlier tick: accepted on the next one (a driver takes a moment). */
  seenOffers: Set<string>;
}

/** A stable uuid per simulated driver, so restarts find the same drivers. */
function simulatedDriverId(serviceId: string, city: string, index: number): string {
  const hex = createHash("sha256").update(`sandbox-driver:${serviceId}:${city}:${index}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The sandbox's simulated drivers: a few per city and eligible service, near the city centre. They
 * act only through the driver API, as a real driver's app would: accept offers after a moment,
 * drive in a straight line to the pickup and on to the destination at a compressed speed,
 * reporting their position every tick, and deliver (or fail a configurable share, with a reason).
 */
export class SandboxFleet {
  readonly name = "sandbox-fleet";
  readonly #drivers = new Map<string, SimDriver>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;
  #lastTick = Date.now();

  constructor(private readonly opts: SandboxFleetOptions) {}

  async start(): Promise<void> {
    await this.#provision();
    this.#lastTick = Date.now();
    this.#schedule();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Provisioning is fleet management, not driving: it writes the driver rows; all else goes through the API. */
  async #provision(): Promise<void> {
    const perService = this.opts.driversPerService ?? 2;
    for (const carrier of this.opts.catalogue.current().carriers.filter((c) => c.active)) {
      for (const service of carrier.services.filter((s) => s.active)) {
        for (const city of service.cities) {
          const centre = CITY_CENTRES[city];
          if (!centre) continue;
          for (let index = 0; index < perService; index++) {
            const id = simulatedDriverId(service.id, city, index);
            const h = createHash("sha256").update(id).digest();
            // Within about 2 km of the centre.
            const position = { latitudeMicro: centre.latitudeMicro + (h.readInt16BE(0) % 18_000), longitudeMicro: centre.longitudeMicro + (h.readInt16BE(2) % 18_000) };
            const row = await this.opts.db.driver.upsert({
              where: { id },
              create: { id, carrierServiceId: service.id, cityCode: city, name: `Sandbox ${carrier.code} ${service.level} ${city} ${index + 1}`, simulated: true },
              update: {},
            });
            const driver: SimDriver = { id, position, seenOffers: new Set() };
            if (row.latitudeMicro !== null && row.longitudeMicro !== null) driver.position = { latitudeMicro: row.latitudeMicro, longitudeMicro: row.longitudeMicro };
            if (row.currentShipmentId) {
              const job = await this.opts.db.dispatchJob.findUnique({ where: { shipmentId: row.currentShipmentId } });
              if (job) {
                driver.task = {
                  shipmentId: job.shipmentId,
                  pickup: { latitudeMicro: job.pickupLatitudeMicro, longitudeMicro: job.pickupLongitudeMicro },
                  destination: { latitudeMicro: job.destinationLatitudeMicro, longitudeMicro: job.destinationLongitudeMicro },
                  phase: "TO_PICKUP",
                };
              }
            }
            this.#drivers.set(id, driver);
            await this.opts.driverApi.setAvailability({ driverId: id, available: true, position: driver.position });
          }
        }
      }
    }
    this.opts.logger.info({ drivers: this.#drivers.size }, "sandbox fleet on duty");
  }

  async tick(): Promise<void> {
    const now = Date.now();
    const metres = (this.opts.speedKmh / 3.6) * ((now - this.#lastTick) / 1000);
    this.#lastTick = now;
    for (const driver of this.#drivers.values()) {
      if (this.#closed) return;
      try {
        if (driver.task) await this.#drive(driver, metres);
        else await this.#lookForOffers(driver);
      } catch (err) {
        this.opts.logger.warn({ err, driverId: driver.id }, "sandbox driver step failed; trying again next tick");
      }
    }
  }

  async #lookForOffers(driver: SimDriver): Promise<void> {
    const offers = await this.opts.driverApi.listOffers({ driverId: driver.id });
    const ready = offers.find((offer) => driver.seenOffers.has(offer.offerId));
    driver.seenOffers = new Set(offers.map((offer) => offer.offerId));
    if (!ready) return;
    try {
      await this.opts.driverApi.acceptOffer({ driverId: driver.id, offerId: ready.offerId });
    } catch (err) {
      if (err instanceof DomainError && err.kind !== "unavailable") return; // lapsed or taken meanwhile
      throw err;
    }
    driver.task = { shipmentId: ready.shipmentId, pickup: ready.pickup, destination: ready.destination, phase: "TO_PICKUP" };
    driver.seenOffers.clear();
  }

  async #drive(driver: SimDriver, metres: number): Promise<void> {
    const task = driver.task;
    if (!task) return;
    if (task.phase === "AT_PICKUP") {
      await this.#report(driver, "OUT_FOR_DELIVERY");
      task.phase = "TO_DESTINATION";
      return;
    }
    const target = task.phase === "TO_PICKUP" ? task.pickup : task.destination;
    const moved = moveToward(driver.position, target, metres);
    driver.position = moved.position;
    await this.opts.driverApi.reportLocation({ driverId: driver.id, position: moved.position, accuracyMetres: 10, recordTimeMs: BigInt(Date.now()) });
    if (!moved.arrived) return;
    if (task.phase === "TO_PICKUP") {
      await this.#report(driver, "PICKED_UP");
      task.phase = "AT_PICKUP";
      return;
    }
    const failed = (this.opts.random ?? Math.random)() < this.opts.failureRate;
    await this.#report(driver, failed ? "FAILED" : "DELIVERED", failed ? "RECIPIENT_UNAVAILABLE" : "");
    driver.task = undefined;
  }

  /** A step the shipment no longer allows (reported before a restart, or the shipment moved on) is skipped. */
  async #report(driver: SimDriver, progress: Progress, reasonCode = ""): Promise<void> {
    const task = driver.task;
    if (!task) return;
    try {
      await this.opts.driverApi.reportProgress({ driverId: driver.id, shipmentId: task.shipmentId, progress, reasonCode });
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      this.opts.logger.warn({ err, shipmentId: task.shipmentId, progress }, "sandbox driver step refused; moving on");
      if (err.reason === "NOT_ASSIGNED") driver.task = undefined;
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#running = this.tick().finally(() => this.#schedule());
    }, this.opts.tickMs ?? 250);
  }
}
