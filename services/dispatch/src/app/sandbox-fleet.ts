import { createHash } from "node:crypto";
import type { Logger } from "@tawsil/logging";
import type { Catalogue } from "../domain/catalogue";
import { CITY_CENTRES } from "../domain/geo";
import type { DriverApi, LocationReport } from "./driver-api";
import { LocationBatch } from "./location-batch";
import type { DispatchStore, Elect, LeaderRole, Leadership } from "./ports";
import { SandboxDriver, type SandboxRecipient, type Task } from "./sandbox-driver";

export interface SandboxFleetOptions {
  readonly store: DispatchStore;
  /** Runs for the lead among replicas: exactly one drives the fleet. */
  readonly elect: Elect;
  readonly driverApi: DriverApi;
  readonly catalogue: { current(): Catalogue };
  readonly logger: Logger;
  readonly speedKmh: number;
  readonly failureRate: number;
  readonly driversPerService?: number;
  /** Movement timer of a driver carrying a shipment. */
  readonly tickMs?: number;
  /** How long a simulated driver takes to accept an offer. */
  readonly acceptDelayMs?: number;
  readonly random?: () => number;
  /** What each delivery must prove, and the evidence uploads (decisions.md section 17). */
  readonly recipient?: SandboxRecipient;
}

/** A stable uuid per simulated driver, so restarts find the same drivers. */
function simulatedDriverId(serviceId: string, city: string, index: number): string {
  const hex = createHash("sha256").update(`sandbox-driver:${serviceId}:${city}:${index}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Every active service of an active carrier, in each city it serves that has a centre: what the fleet staffs. */
function staffedPairs(catalogue: Catalogue) {
  return catalogue.carriers
    .filter((carrier) => carrier.active)
    .flatMap((carrier) => carrier.services.filter((service) => service.active).map((service) => ({ carrier, service })))
    .flatMap(({ carrier, service }) => [...service.cities].flatMap((city) => (CITY_CENTRES[city] ? [{ carrier, service, city, centre: CITY_CENTRES[city] }] : [])));
}

/**
 * Whether every pair the fleet staffs has a driver on shift, as this replica's index sees it
 * (whichever replica leads the fleet). Until then a create finds no driver (decisions.md section
 * 2), so a sandbox replica is not ready before it.
 */
export function fleetOnDuty(catalogue: Catalogue, activeDrivers: { has(cityCode: string, carrierServiceId: string): boolean }): boolean {
  return staffedPairs(catalogue).every(({ service, city }) => activeDrivers.has(city, service.id));
}

/**
 * The sandbox's simulated drivers: a few per city and eligible service, near the city centre,
 * driven by exactly one replica (a session advisory lock; another takes over when it stops).
 * Offers reach them as notifications sent on commit by whichever replica made the offer; a driver
 * accepts after a moment, drives in a straight line to the pickup and on to the destination at a
 * compressed speed, reporting its position, and delivers (or fails a configurable share, with a
 * reason). Taking the lead resumes tasks from the database, so a restart or a takeover carries on.
 */
export class SandboxFleet implements LeaderRole {
  readonly name = "sandbox-fleet";
  readonly #drivers = new Map<string, SandboxDriver>();
  readonly #session: Leadership;

  constructor(private readonly opts: SandboxFleetOptions) {
    this.#session = opts.elect(this, "offers");
  }

  get leading(): boolean {
    return this.#session.leading;
  }

  start(): void {
    this.#session.start();
  }

  async close(): Promise<void> {
    await this.#session.close();
  }

  async lead(): Promise<void> {
    await this.#provision();
    // Offers made while no replica drove the fleet.
    for (const driver of this.#drivers.values()) if (!driver.task) driver.offered();
  }

  notified(_channel: string, driverId: string): void {
    this.#drivers.get(driverId)?.offered();
  }

  async stepDown(): Promise<void> {
    const drivers = [...this.#drivers.values()];
    this.#drivers.clear();
    await Promise.all(drivers.map((driver) => driver.stop()));
  }

  /** Provisioning is fleet management, not driving: it writes the driver rows; all else goes through the API. */
  async #provision(): Promise<void> {
    const perService = this.opts.driversPerService ?? 2;
    const locations = new LocationBatch((reports) => this.opts.driverApi.reportLocations(reports));
    const settings = {
      driverApi: this.opts.driverApi,
      reportLocation: (report: LocationReport) => locations.report(report),
      logger: this.opts.logger,
      speedKmh: this.opts.speedKmh,
      failureRate: this.opts.failureRate,
      tickMs: this.opts.tickMs ?? 250,
      acceptDelayMs: this.opts.acceptDelayMs ?? 300,
      random: this.opts.random ?? Math.random,
      recipient: this.opts.recipient,
    };
    for (const { carrier, service, city, centre } of staffedPairs(this.opts.catalogue.current())) {
      for (let index = 0; index < perService; index++) {
        const id = simulatedDriverId(service.id, city, index);
        const h = createHash("sha256").update(id).digest();
        // Within about 2 km of the centre.
        let position = { latitudeMicro: centre.latitudeMicro + (h.readInt16BE(0) % 18_000), longitudeMicro: centre.longitudeMicro + (h.readInt16BE(2) % 18_000) };
        const row = await this.opts.store.ensureDriver({ id, carrierServiceId: service.id, cityCode: city, name: `Sandbox ${carrier.code} ${service.level} ${city} ${index + 1}`, simulated: true });
        if (row.position) position = row.position;
        const driver = new SandboxDriver(id, position, settings, await this.#resumedTask(row.currentShipmentId));
        this.#drivers.set(id, driver);
        await this.opts.driverApi.setAvailability({ driverId: id, available: true, position });
        driver.start();
      }
    }
    this.opts.logger.info({ drivers: this.#drivers.size }, "sandbox fleet on duty");
  }

  /** A shipment the driver carried before a restart; its progress steps already done are skipped by the API. */
  async #resumedTask(shipmentId: string | null): Promise<Task | undefined> {
    if (!shipmentId) return undefined;
    const job = await this.opts.store.job(shipmentId);
    return job ? { shipmentId: job.shipmentId, pickup: job.pickup, destination: job.destination, phase: "TO_PICKUP" } : undefined;
  }
}
