import type { Coordinate } from "@tawsil/domain";
import type { Catalogue, CarrierService } from "../domain/catalogue";
import type { CityStaffing } from "../domain/city-staffing";
import type { DispatchJob, ShipmentSnapshot } from "../domain/dispatch-job";
import type { Driver, ShipmentStep } from "../domain/driver";
import type { Offer, OfferState } from "../domain/offer";
import type { ServiceLevel } from "../domain/service-level";

/*
 * What the dispatch use cases need from the outside world, implemented by infra/ (PostgreSQL
 * through Prisma, pg_notify wake-ups, the outbox, the shipment service's client) and wired in
 * server.ts.
 */

export type { ShipmentSnapshot };

/** What a driver proves with DELIVERED: the PIN the recipient gave, evidence assets, the cash collected. */
export interface DeliveryProof {
  readonly driverId: string;
  /** "" when none. */
  readonly deliveryPin: string;
  readonly evidenceMediaAssetIds: readonly string[];
  readonly codCollected: { readonly currency: string; readonly amount: string } | null;
}

/** What the recipient of a sandbox shipment would tell the simulated driver at the door. */
export interface SandboxDeliveryProof {
  /** "" when the shipment requires no PIN. */
  readonly deliveryPin: string;
  readonly requirements: readonly string[];
  readonly codAmount: { readonly currency: string; readonly amount: string };
}

/** The shipment service refused (its state machine, a stale version, or no such shipment). */
/** An accepted step; an acceptance also carries the recipient's phone, for the driver who now carries the shipment. */
export type StepOutcome = ({ readonly ok: true; readonly recipientPhone?: string } & ShipmentSnapshot) | { readonly ok: false; readonly reason: string };

/**
 * The shipment service, the only writer of shipments. Never called inside a JobWork: a slow or
 * down peer must not hold dispatch's row locks (an outage throws DependencyUnavailableError).
 */
export interface Shipments {
  reserveForOffer(shipmentId: string, expectedVersion: bigint): Promise<StepOutcome>;
  /**
   * `proof` goes with DELIVER (decisions.md section 17); a refused proof throws
   * DeliveryProofRefusedError, the shipment service's verdict to pass on to the driver.
   */
  applyStep(shipmentId: string, step: ShipmentStep, expectedVersion: bigint, reasonCode?: string, proof?: DeliveryProof): Promise<StepOutcome>;

  /** The shipment now; `undefined` when it does not exist. */
  read(merchantId: string, shipmentId: string): Promise<ShipmentSnapshot | undefined>;
}

export type AssignmentChange = "OFFERED" | "DECLINED" | "EXPIRED" | "ACCEPTED" | "UNRESOLVED";

export interface DriverChange {
  readonly available?: boolean;
  readonly availableSince?: Date;
  readonly position?: Coordinate;
  readonly positionAt?: Date;
  readonly currentShipmentId?: string | null;
}

/**
 * One transaction of dispatch's database. Jobs are row-locked by `lockJob`: the dispatcher, the
 * shipment event consumer and the driver API all take that lock first, so an offer's expiry, its
 * acceptance and a cancellation never interleave. Events and wake-ups are written in the same
 * transaction (outbox, pg_notify), so they exist exactly when the change commits.
 */
export interface JobWork {
  lockJob(shipmentId: string): Promise<DispatchJob | undefined>;
  /**
   * Creates the job and wakes the dispatcher's leader for it on commit, as wakeForJob does; false,
   * having written nothing, when the shipment has a job already.
   */
  createJob(job: DispatchJob): Promise<boolean>;
  /** createJob for jobs of distinct shipments, in one statement, in their order; the shipments whose job it created. */
  createJobs(jobs: readonly DispatchJob[]): Promise<Set<string>>;
  saveJob(job: DispatchJob): Promise<void>;
  openOffer(shipmentId: string): Promise<Offer | undefined>;
  offer(offerId: string): Promise<Offer | undefined>;
  createOffer(offer: { shipmentId: string; driverId: string; expiresAt: Date }): Promise<Offer>;
  setOfferState(offerId: string, state: OfferState): Promise<void>;
  /** The recipient's phone, kept for the job's driver until the job ends (saveJob clears it). */
  recordRecipientPhone(shipmentId: string, phone: string): Promise<void>;
  withdrawOpenOffers(shipmentId: string): Promise<void>;
  driver(driverId: string): Promise<Driver | undefined>;
  /** On shift, carrying nothing, holding no open offer, of one of `serviceIds`, in the city. */
  freeDrivers(cityCode: string, serviceIds: readonly string[]): Promise<Driver[]>;
  updateDriver(driverId: string, change: DriverChange): Promise<void>;
  recordAssignmentChange(change: { shipmentId: string; offerId: string; driverId: string; change: AssignmentChange; at: Date }): Promise<void>;
  /**
   * Moves each driver to its latest fix and records every fix with the shipment the driver
   * carries, set-based (one app's batch, or many drivers' fixes): two statements whatever the
   * batch. False, having written nothing the caller may keep, when a driver does not exist.
   */
  moveDrivers(fixes: readonly { driverId: string; position: Coordinate; accuracyMetres: number; recordedAt: Date }[]): Promise<boolean>;
  /** The job may be offerable now: the dispatcher's leader tries it on commit. */
  wakeForJob(shipmentId: string): Promise<void>;
  /** The driver may take a job now: the leader looks for one on commit. */
  wakeForDriver(driverId: string): Promise<void>;
  /** The driver has a new open offer (the sandbox fleet's drivers act on it). */
  announceOffer(driverId: string): Promise<void>;
  /** A driver went on or off shift: every replica reloads its active driver index on commit. */
  announceShiftChange(): Promise<void>;
  /** What a city's drivers on shift can carry, for pricing's eligibility (dispatch.city-staffing.v1). */
  recordCityStaffing(staffing: CityStaffing, at: Date): Promise<void>;
}

/** A shipment as its driver sees it, offered or carried: where, what, and what it asks for. */
export interface DriverJob {
  readonly shipmentId: string;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  readonly cityCode: string;
  readonly weightGrams: number;
  readonly longestSideMm: number;
  readonly requirements: readonly string[];
  readonly cashOnDelivery: boolean;
  /** Empty for a job created before dispatch kept them. */
  readonly pickupAddress: string;
  readonly destinationAddress: string;
  /** Decimal SAR, "0.00" when prepaid. */
  readonly codAmount: string;
}

/** A job the driver carries now: the recipient is told only here, while it is active. */
export interface CurrentJob extends DriverJob {
  readonly recipientName: string;
  /** "" for a job accepted before dispatch kept it. */
  readonly recipientPhone: string;
}

/** An open offer as a driver's app lists it. */
export interface OpenOffer extends DriverJob {
  readonly offerId: string;
  readonly expiresAt: Date;
}

/** A driver as operators see it. */
export interface RegisteredDriver {
  readonly id: string;
  readonly name: string;
  readonly cityCode: string;
  readonly carrierCode: string;
  readonly serviceLevel: ServiceLevel;
  readonly available: boolean;
}

/**
 * Which waiting job a freed driver is given first. Production keeps promises in order (oldest
 * first); the sandbox gives the newest, so a backlog a load test left behind never starves the
 * shipment a developer just created (issue 30): its simulated fleet grows to meet the newest.
 */
export type BacklogOrder = "OLDEST_FIRST" | "NEWEST_FIRST";

/** Drivers on shift and free, per carrier service and city; jobs waiting, per city and level. */
export interface FleetCounts {
  readonly drivers: ReadonlyMap<string, { readonly onShift: number; readonly free: number }>;
  /** Jobs waiting, and those of them created since the `recentSince` asked for. */
  readonly waiting: ReadonlyMap<string, { readonly all: number; readonly recent: number }>;
}

/** The key of FleetCounts.drivers. */
export const driversKey = (carrierServiceId: string, cityCode: string): string => `${carrierServiceId}/${cityCode}`;
/** The key of FleetCounts.waiting. */
export const waitingKey = (cityCode: string, level: ServiceLevel): string => `${cityCode}/${level}`;

/**
 * Operators' registry of drivers: production's, and apart from them the sandbox fleet's (its own
 * process registers them here like an operator would, flagged so operators' lists leave them out).
 */
export interface DriverRegistry {
  /** The service of an active carrier at that level, with the cities it covers; undefined when there is none. */
  carrierService(carrierCode: string, level: ServiceLevel): Promise<{ id: string; cities: readonly string[] } | undefined>;
  register(driver: { name: string; cityCode: string; carrierServiceId: string; sandboxFleet: boolean }): Promise<RegisteredDriver>;
  list(limit: number, sandboxFleet: boolean): Promise<RegisteredDriver[]>;
  get(driverId: string): Promise<RegisteredDriver | undefined>;
  /** Two grouped counts: bounded by the drivers and the waiting jobs' index, run only when the sandbox fleet asks. */
  fleetCounts(now: Date, recentSince: Date): Promise<FleetCounts>;
}

/**
 * Dispatch's database. The reads outside a transaction are the dispatcher's: each is an index
 * lookup whose cost is bounded by drivers or offers, never by the number of jobs waiting.
 */
export interface DispatchStore {
  transaction<R>(fn: (work: JobWork) => Promise<R>): Promise<R>;
  freeDriver(driverId: string): Promise<Driver | undefined>;
  freeDriverIds(): Promise<string[]>;
  offeredJobsWithoutOffer(): Promise<string[]>;
  dueOffers(now: Date, limit: number): Promise<string[]>;
  nextOfferExpiry(): Promise<Date | undefined>;
  /** Held jobs whose offerable instant has come, earliest first: marked no longer held, and returned. */
  releaseHeldJobs(now: Date, limit: number): Promise<string[]>;
  /** The earliest instant a held job may be offered, if any job is held. */
  nextHeldRelease(): Promise<Date | undefined>;
  /** The oldest job of the driver's city their service can carry and that may be offered to them. */
  nextJobFor(driver: Driver, service: CarrierService, now: Date, skip: readonly string[], order: BacklogOrder): Promise<string | undefined>;
  /** The driver's open offers, oldest first; undefined for a driver unknown here. */
  openOffersOf(driverId: string, now: Date): Promise<OpenOffer[] | undefined>;
  /** The shipment the driver carries now, if any, as a list (a driver carries one at a time today); undefined for a driver unknown here. */
  currentJobsOf(driverId: string): Promise<CurrentJob[] | undefined>;
  offerParties(offerId: string): Promise<{ shipmentId: string; driverId: string } | undefined>;
  job(shipmentId: string): Promise<DispatchJob | undefined>;
  /**
   * The job and its city's free drivers (of every service), read together in one statement with
   * no lock and no transaction: the dispatcher's first look at a job, enough to plan any step that
   * writes nothing here (every state but OFFERED). Undefined for a job unknown here.
   */
  jobWithFreeDrivers(shipmentId: string): Promise<{ job: DispatchJob; freeDrivers: Driver[] } | undefined>;
  /** The sandbox fleet's driver row, created once with these facts and otherwise left as it is. */
}

/** A background role that exactly one replica plays at a time (see infra/leader-session.ts). */
export interface LeaderRole {
  /** Called once this replica holds the lead and listens: catch up on what happened meanwhile. */
  lead(): Promise<void>;
  /** A notification on one of the role's channels, delivered only while leading. */
  notified(channel: string, payload: string): void;
  /** Leadership ended (connection lost or closing): stop acting before another replica starts. */
  stepDown(): Promise<void>;
}

export interface Leadership {
  readonly leading: boolean;
  start(): void;
  close(): Promise<void>;
}

/** Runs for the lead of `role`, woken by the notifications of `channel`. */
export type Elect = (role: LeaderRole & { readonly name: string }, channel: "dispatcher") => Leadership;

export interface LoadedCatalogue {
  readonly catalogue: Catalogue;
  /** Requirement values in the data that the catalogue does not know; they are ignored. */
  readonly unknownRequirements: readonly string[];
}

/** One city and carrier service with at least one driver on shift (free or busy). */
export interface ActiveDriverPair {
  readonly cityCode: string;
  readonly carrierServiceId: string;
}
