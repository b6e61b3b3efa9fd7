import { withTransaction, type TransactionClient } from "@tawsil/db";
import type { Logger } from "@tawsil/logging";
import type { Catalogue } from "../domain/catalogue";
import { evaluateEligibility } from "../domain/eligibility";
import { isRequirement, type Requirement } from "@tawsil/domain";
import type { PrismaClient } from "../infra/prisma/generated/client";
import type { DispatchJob } from "../infra/prisma/generated/client";
import type { Shipments, ShipmentSnapshot } from "../infra/shipment-client";

export type Tx = TransactionClient<PrismaClient>;

/** What the dispatch use cases share. */
export interface DispatchContext {
  readonly db: PrismaClient;
  readonly shipments: Shipments;
  readonly catalogue: { current(): Catalogue };
  readonly logger: Logger;
  readonly offerTimeoutMs: number;
  readonly dispatchTimeoutMs: number;
  readonly now?: () => Date;
}

export const nowOf = (ctx: DispatchContext): Date => ctx.now?.() ?? new Date();

/** One transaction; calls to the shipment service happen inside it, under the job's row lock. */
export function inTransaction<R>(ctx: DispatchContext, fn: (tx: Tx) => Promise<R>): Promise<R> {
  return withTransaction(ctx.db, fn, { timeoutMs: 30_000, maxWaitMs: 10_000 });
}

/**
 * Locks and reads a job: the dispatcher, the shipment event consumer and the driver API all take
 * this lock first, so an offer's expiry, its acceptance and a cancellation never interleave.
 */
export async function lockJob(tx: Tx, shipmentId: string): Promise<DispatchJob | undefined> {
  await tx.$queryRawUnsafe(`SELECT shipment_id FROM dispatch_job WHERE shipment_id = $1::uuid FOR UPDATE`, shipmentId);
  return (await tx.dispatchJob.findUnique({ where: { shipmentId } })) ?? undefined;
}

/** Ids of the carrier services that can carry the job's parcel now (the catalogue may have changed). */
export function eligibleServiceIds(ctx: DispatchContext, job: DispatchJob): ReadonlySet<string> {
  const verdict = evaluateEligibility(ctx.catalogue.current(), {
    cityCode: job.cityCode,
    weightGrams: job.weightGrams,
    longestSideMm: job.longestSideMm,
    requirements: new Set(job.requirements.filter((r): r is Requirement => isRequirement(r))),
    cashOnDelivery: job.cashOnDelivery,
  });
  return new Set(verdict.eligible ? verdict.services.map((s) => s.service.id) : []);
}

/**
 * Brings a job in line with the shipment after the shipment service refused a step (a cancel won
 * the race, a stale version, a reservation whose commit was lost): reads the shipment and maps its
 * state; open offers of a job that is no longer offering are withdrawn.
 */
export async function refreshJob(ctx: DispatchContext, tx: Tx, job: DispatchJob): Promise<void> {
  const snapshot = await ctx.shipments.read(job.merchantId, job.shipmentId);
  await applySnapshot(ctx, tx, job, snapshot ?? { state: "CANCELLED", version: job.shipmentVersion });
}

export async function applySnapshot(ctx: DispatchContext, tx: Tx, job: DispatchJob, snapshot: ShipmentSnapshot): Promise<void> {
  const now = nowOf(ctx);
  const state = jobStateFor(snapshot.state);
  if (state !== "OFFERED") {
    await tx.offer.updateMany({ where: { shipmentId: job.shipmentId, state: "OPEN" }, data: { state: "WITHDRAWN" } });
  }
  await tx.dispatchJob.update({
    where: { shipmentId: job.shipmentId },
    data: {
      state,
      shipmentVersion: snapshot.version > job.shipmentVersion ? snapshot.version : job.shipmentVersion,
      ...(state === "UNRESOLVED" && job.state !== "UNRESOLVED" ? { deadline: now } : {}),
    },
  });
}

export function jobStateFor(state: ShipmentSnapshot["state"]): DispatchJob["state"] {
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
