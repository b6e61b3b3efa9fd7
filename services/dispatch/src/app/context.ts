import type { Logger } from "@tawsil/logging";
import { isRequirement, type Requirement } from "@tawsil/domain";
import type { Catalogue } from "../domain/catalogue";
import type { DispatchJob } from "../domain/dispatch-job";
import { evaluateEligibility } from "../domain/eligibility";
import type { DispatchStore, Shipments } from "./ports";
import type { StepEchoes } from "./step-echoes";

/** What the dispatch use cases share. */
export interface DispatchContext {
  readonly store: DispatchStore;
  readonly shipments: Shipments;
  readonly catalogue: { current(): Catalogue };
  readonly logger: Logger;
  readonly offerTimeoutMs: number;
  readonly dispatchTimeoutMs: number;
  /** How long before its pickup window starts a shipment is first offered (decisions.md section 4). */
  readonly offerLeadMs: number;
  readonly now?: () => Date;
  /** Where the steps recorded from the shipment service's answers note the echo the consumer may skip. */
  readonly echoes?: StepEchoes;
}

export const nowOf = (ctx: DispatchContext): Date => ctx.now?.() ?? new Date();

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
