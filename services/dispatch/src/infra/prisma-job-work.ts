import type { TransactionClient } from "@tawsil/db";
import type { AssignmentChange, DriverChange, JobWork } from "../app/ports";
import type { Coordinate } from "@tawsil/domain";
import type { DispatchJob } from "../domain/dispatch-job";
import type { Driver } from "../domain/driver";
import type { Offer, OfferState } from "../domain/offer";
import { driverFromRow, jobChanges, jobFromRow, newJobRow, offerFromRow } from "./dispatch-rows";
import { writeAssignmentChanged, writeCityStaffing, writeDriverLocation } from "./events";
import type { CityStaffing } from "../domain/city-staffing";
import type { PrismaClient } from "./prisma/generated/client";
import { announceOffer, announceShiftChange, wakeForDriver, wakeForJob } from "./wake-ups";

export type Tx = TransactionClient<PrismaClient>;

/** JobWork over one Prisma transaction (the dispatch store's, or the event consumer's). */
export class PrismaJobWork implements JobWork {
  constructor(private readonly tx: Tx) {}

  async lockJob(shipmentId: string): Promise<DispatchJob | undefined> {
    await this.tx.$queryRawUnsafe(`SELECT shipment_id FROM dispatch_job WHERE shipment_id = $1::uuid FOR UPDATE`, shipmentId);
    const row = await this.tx.dispatchJob.findUnique({ where: { shipmentId } });
    return row ? jobFromRow(row) : undefined;
  }

  async createJob(job: DispatchJob): Promise<void> {
    await this.tx.dispatchJob.create({ data: newJobRow(job) });
  }

  async saveJob(job: DispatchJob): Promise<void> {
    await this.tx.dispatchJob.update({ where: { shipmentId: job.shipmentId }, data: jobChanges(job) });
  }

  async openOffer(shipmentId: string): Promise<Offer | undefined> {
    const row = await this.tx.offer.findFirst({ where: { shipmentId, state: "OPEN" } });
    return row ? offerFromRow(row) : undefined;
  }

  async offer(offerId: string): Promise<Offer | undefined> {
    const row = await this.tx.offer.findUnique({ where: { id: offerId } });
    return row ? offerFromRow(row) : undefined;
  }

  async createOffer(offer: { shipmentId: string; driverId: string; expiresAt: Date }): Promise<Offer> {
    return offerFromRow(await this.tx.offer.create({ data: { ...offer, state: "OPEN" } }));
  }

  async setOfferState(offerId: string, state: OfferState): Promise<void> {
    await this.tx.offer.update({ where: { id: offerId }, data: { state } });
  }

  async withdrawOpenOffers(shipmentId: string): Promise<void> {
    await this.tx.offer.updateMany({ where: { shipmentId, state: "OPEN" }, data: { state: "WITHDRAWN" } });
  }

  async driver(driverId: string): Promise<Driver | undefined> {
    const row = await this.tx.driver.findUnique({ where: { id: driverId } });
    return row ? driverFromRow(row) : undefined;
  }

  async freeDrivers(cityCode: string, serviceIds: readonly string[]): Promise<Driver[]> {
    const rows = await this.tx.driver.findMany({
      where: { cityCode, available: true, currentShipmentId: null, carrierServiceId: { in: [...serviceIds] }, offers: { none: { state: "OPEN" } } },
    });
    return rows.map(driverFromRow);
  }

  async updateDriver(driverId: string, change: DriverChange): Promise<void> {
    const { position, ...rest } = change;
    await this.tx.driver.update({
      where: { id: driverId },
      data: { ...rest, ...(position ? { latitudeMicro: position.latitudeMicro, longitudeMicro: position.longitudeMicro } : {}) },
    });
  }

  recordAssignmentChange(change: { shipmentId: string; offerId: string; driverId: string; change: AssignmentChange; at: Date }): Promise<void> {
    return writeAssignmentChanged(this.tx, change);
  }

  recordDriverLocation(fix: { driverId: string; shipmentId: string | null; position: Coordinate; accuracyMetres: number; recordedAt: Date }): Promise<void> {
    return writeDriverLocation(this.tx, fix);
  }

  wakeForJob = (shipmentId: string) => wakeForJob(this.tx, shipmentId);
  wakeForDriver = (driverId: string) => wakeForDriver(this.tx, driverId);
  announceOffer = (driverId: string) => announceOffer(this.tx, driverId);
  announceShiftChange = () => announceShiftChange(this.tx);
  recordCityStaffing = (staffing: CityStaffing, at: Date) => writeCityStaffing(this.tx, staffing, at);
}
