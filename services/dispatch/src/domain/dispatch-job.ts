import type { Coordinate, ShipmentState } from "@tawsil/domain";
import type { Driver } from "./driver";
import type { ServiceLevel } from "./service-level";

/*
 * The dispatch job: dispatch's own view of a shipment waiting for, offered to or carried by a
 * driver. Pure and immutable: each transition returns the next job, and the use cases persist it
 * through a port. The shipment service stays the writer of the shipment's state; the job follows
 * it by version.
 */

export type JobState = "WAITING" | "OFFERED" | "UNRESOLVED" | "ASSIGNED" | "DONE" | "CANCELLED";

/** A shipment state as the shipment service reports it ("UNSPECIFIED" for an answer without one). */
export type ShipmentStateName = ShipmentState | "UNSPECIFIED";

/** What dispatch learns of a shipment after a call or from an event: its state and version. */
export interface ShipmentSnapshot {
  readonly state: ShipmentStateName;
  readonly version: bigint;
}

/**
 * What a driver is told of a delivery beyond the parcel (decisions.md section 17): the addresses,
 * the cash to collect (a decimal SAR string) and the recipient's name and phone, which dispatch forgets
 * once the job is done or cancelled.
 */
export interface DeliveryFacts {
  readonly pickupAddress: string;
  readonly destinationAddress: string;
  readonly codAmount: string;
  readonly recipientName: string;
  /** Known from the driver's acceptance on (decisions.md section 17); "" before. */
  readonly recipientPhone?: string;
}

export interface DispatchJob {
  readonly shipmentId: string;
  readonly merchantId: string;
  readonly cityCode: string;
  /** The smallest eligible level; null when no service was eligible (the job then waits). */
  readonly serviceLevel: ServiceLevel | null;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  readonly weightGrams: number;
  readonly longestSideMm: number;
  /** As the shipment stated them; values this code does not know are ignored by eligibility. */
  readonly requirements: readonly string[];
  readonly cashOnDelivery: boolean;
  readonly state: JobState;
  /** The last shipment version dispatch saw: every step sent compares against it. */
  readonly shipmentVersion: bigint;
  readonly attempts: number;
  readonly triedDriverIds: readonly string[];
  readonly deadline: Date | null;
  /** How many times dispatch gave up; each further time doubles the wait before a retry (retryAt). */
  readonly unresolvedCount: number;
  readonly retryAt: Date | null;
  /**
   * A waiting job whose pickup window starts later is held: no driver is offered it before this
   * instant (decisions.md section 4), so the merchant can still cancel it. Null once it may be offered.
   */
  readonly offerableAt: Date | null;
  /** Absent for jobs created before dispatch kept them. */
  readonly delivery?: DeliveryFacts | undefined;
  /**
   * When the shipment was created, which the job's created_at takes (else the insert's clock):
   * the backlog's order (oldest or newest first) is the shipments', whatever order the events of
   * several shipments reached dispatch in (they travel on different partitions).
   */
  readonly shipmentCreatedAt?: Date | undefined;
}

export type NewJobFacts = Omit<DispatchJob, "state" | "attempts" | "triedDriverIds" | "deadline" | "unresolvedCount" | "retryAt" | "offerableAt">;

/**
 * A shipment ready for dispatch waits for its first offer (held until `offerableAt` when given);
 * an unresolved one retries with any driver.
 */
export function newJob(facts: NewJobFacts, shipmentState: "READY_FOR_DISPATCH" | "DISPATCH_UNRESOLVED", offerableAt: Date | null = null): DispatchJob {
  const ready = shipmentState === "READY_FOR_DISPATCH";
  // An unresolved job retries with any available driver: "since" the beginning of time.
  return {
    ...facts,
    state: ready ? "WAITING" : "UNRESOLVED",
    attempts: 0,
    triedDriverIds: [],
    deadline: ready ? null : new Date(0),
    unresolvedCount: 0,
    retryAt: null,
    offerableAt: ready ? offerableAt : null,
  };
}

/**
 * When a shipment may first be offered: `leadMs` before its pickup window starts, or null (at
 * once) when it has no window or that instant has passed.
 */
export function offerableFrom(pickupWindowStart: Date | undefined, leadMs: number, now: Date): Date | null {
  if (!pickupWindowStart) return null;
  const at = new Date(pickupWindowStart.getTime() - leadMs);
  return at > now ? at : null;
}

/** A waiting job still held for its pickup window. */
export const isHeld = (job: DispatchJob, now: Date): boolean => job.state === "WAITING" && job.offerableAt !== null && job.offerableAt > now;

export function jobStateFor(state: ShipmentStateName): JobState {
  switch (state) {
    case "READY_FOR_DISPATCH":
    case "PENDING_APPROVAL":
    case "UNSPECIFIED":
      return "WAITING";
    case "OFFERED":
      return "OFFERED";
    case "DISPATCH_UNRESOLVED":
      return "UNRESOLVED";
    case "ACCEPTED":
    case "PICKED_UP":
    case "OUT_FOR_DELIVERY":
      return "ASSIGNED";
    case "DELIVERED":
    case "DELIVERY_FAILED":
      return "DONE";
    case "CANCELLED":
      return "CANCELLED";
  }
}

export const isClosed = (job: DispatchJob): boolean => job.state === "DONE" || job.state === "CANCELLED";

/** The job brought in line with the shipment; a version never goes back. */
export function following(job: DispatchJob, snapshot: ShipmentSnapshot, now: Date): DispatchJob {
  const state = jobStateFor(snapshot.state);
  return {
    ...job,
    state,
    shipmentVersion: snapshot.version > job.shipmentVersion ? snapshot.version : job.shipmentVersion,
    deadline: state === "UNRESOLVED" && job.state !== "UNRESOLVED" ? now : job.deadline,
  };
}

/** The wait before a freed driver may retry a job that went unresolved `count` times: none the first time, then doubling. */
export function unresolvedBackoffMs(count: number, baseMs: number): number {
  return count <= 1 ? 0 : Math.min(baseMs * 2 ** (count - 2), baseMs * 64);
}

/** A waiting job no longer held, or an unresolved one past its back-off, may be offered now. */
export function mayOfferFirst(job: DispatchJob, now: Date): boolean {
  if (job.state === "WAITING") return !isHeld(job, now);
  return job.state === "UNRESOLVED" && (job.retryAt === null || job.retryAt <= now);
}

export const hasTimedOut = (job: DispatchJob, now: Date): boolean => job.deadline !== null && job.deadline <= now;

/** A driver not tried for this job yet, or (for an unresolved job) free again since it gave up. */
export function mayBeOfferedTo(job: DispatchJob, driver: Driver): boolean {
  if (!job.triedDriverIds.includes(driver.id)) return true;
  return job.state === "UNRESOLVED" && driver.availableSince !== null && job.deadline !== null && driver.availableSince > job.deadline;
}

/**
 * Offered to `driverId` at shipment version `version`. A first offer (from waiting or unresolved)
 * starts the dispatch deadline; an unresolved job starts over with this driver alone as tried.
 */
export function offeredTo(job: DispatchJob, driverId: string, version: bigint, now: Date, dispatchTimeoutMs: number): DispatchJob {
  const retry = job.state === "UNRESOLVED";
  const first = job.state !== "OFFERED";
  return {
    ...job,
    state: "OFFERED",
    shipmentVersion: version,
    attempts: job.attempts + 1,
    triedDriverIds: retry ? [driverId] : [...job.triedDriverIds, driverId],
    deadline: first && (retry || job.deadline === null) ? new Date(now.getTime() + dispatchTimeoutMs) : job.deadline,
  };
}

/** No driver took it in time: unresolved, retried later with a back-off that grows each time. */
export function gaveUp(job: DispatchJob, version: bigint, now: Date, backoffBaseMs: number): DispatchJob {
  const unresolvedCount = job.unresolvedCount + 1;
  return {
    ...job,
    state: "UNRESOLVED",
    shipmentVersion: version,
    deadline: now,
    unresolvedCount,
    retryAt: new Date(now.getTime() + unresolvedBackoffMs(unresolvedCount, backoffBaseMs)),
  };
}

/** A driver accepted at `version`; a version never goes back. */
export function assigned(job: DispatchJob, version: bigint): DispatchJob {
  return { ...job, state: "ASSIGNED", shipmentVersion: version > job.shipmentVersion ? version : job.shipmentVersion };
}

/** A progress step landed at `version`; the last one closes the job. */
export function progressed(job: DispatchJob, version: bigint, finished: boolean): DispatchJob {
  return { ...job, shipmentVersion: version > job.shipmentVersion ? version : job.shipmentVersion, state: finished ? "DONE" : job.state };
}
