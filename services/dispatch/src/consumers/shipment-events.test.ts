import { create, toBinary } from "@bufbuild/protobuf";
import type { ConsumedEvent } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { describe, expect, it } from "vitest";
import type { DispatchContext } from "../app/context";
import type { JobWork } from "../app/ports";
import type { Catalogue } from "../domain/catalogue";
import type { DispatchJob } from "../domain/dispatch-job";
import { shipmentEventBatchHandler, shipmentEventHandler } from "./shipment-events";

/** One carrier with a bike service in Riyadh: every shipment below is eligible. */
const CATALOGUE: Catalogue = {
  carriers: [
    {
      id: "carrier",
      code: "SAQR",
      active: true,
      services: [{ id: "bike", level: "BIKE", maxWeightGrams: 5000, maxLongestSideMm: 450, supportsCod: true, requirements: new Set(), cities: new Set(["RUH"]), active: true }],
    },
  ],
};
const ctx = { catalogue: { current: () => CATALOGUE }, logger: createLogger({ service: "batch-handler-test", level: "silent" }), offerLeadMs: 0 } as unknown as DispatchContext;

let offset = 0;
function event(shipmentId: string, state: ShipmentState, version: bigint): ConsumedEvent {
  const payload = create(ShipmentChangedSchema, {
    shipment: {
      shipmentId,
      merchantId: "00000000-0000-4000-8000-000000000001",
      state,
      version,
      pickup: { cityCode: "RUH", coordinate: { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 } },
      destination: { cityCode: "RUH", coordinate: { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 } },
      totalWeightKilograms: "1.000",
    },
  });
  return { eventId: `e${offset}`, type: ShipmentChangedSchema.typeName, key: shipmentId, payload: toBinary(ShipmentChangedSchema, payload), topic: "t", partition: 0, offset: String(offset++) };
}

/** A JobWork recording what the handlers asked of it; `existing` shipments have a job already. */
function recordingWork(existing: ReadonlySet<string>) {
  const calls: string[] = [];
  const jobs = new Map<string, DispatchJob>();
  const work = {
    async createJobs(batch: readonly DispatchJob[]) {
      calls.push(`createJobs ${batch.map((j) => j.shipmentId).join(",")}`);
      const created = batch.filter((j) => !existing.has(j.shipmentId) && !jobs.has(j.shipmentId));
      for (const j of created) jobs.set(j.shipmentId, j);
      return new Set(created.map((j) => j.shipmentId));
    },
    async createJob(job: DispatchJob) {
      calls.push(`createJob ${job.shipmentId}`);
      if (existing.has(job.shipmentId) || jobs.has(job.shipmentId)) return false;
      jobs.set(job.shipmentId, job);
      return true;
    },
    // Recorded only: what the handler does with a locked job is job-refresh's, tested on its own.
    async lockJob(shipmentId: string) {
      calls.push(`lockJob ${shipmentId}`);
      return undefined;
    },
  };
  return { calls, work: work as unknown as JobWork };
}

describe("the shipment events a fetch brought together", () => {
  it("creates the jobs of lone creations in one call, in order, and gives the handler the rest in order", async () => {
    const { calls, work } = recordingWork(new Set(["exists"]));
    const batch = [
      event("a", ShipmentState.READY_FOR_DISPATCH, 1n),
      event("twice", ShipmentState.READY_FOR_DISPATCH, 1n),
      event("exists", ShipmentState.READY_FOR_DISPATCH, 2n),
      event("b", ShipmentState.DISPATCH_UNRESOLVED, 1n),
      event("twice", ShipmentState.CANCELLED, 2n),
      event("held", ShipmentState.PENDING_APPROVAL, 1n),
    ];
    await shipmentEventBatchHandler(ctx, () => work)(undefined as never, batch);
    expect(calls).toEqual([
      // The lone creations together; "twice" has two events here, so both go one by one.
      "createJobs a,exists,b",
      // A shipment with a job already: the handler's way (the insert finds it, the job is locked).
      "createJob twice",
      "createJob exists",
      "lockJob exists",
      "lockJob twice",
      "lockJob held",
    ]);
  });

  it("does what the one-event handler does, event after event", async () => {
    const batch = [event("c", ShipmentState.READY_FOR_DISPATCH, 1n), event("d", ShipmentState.READY_FOR_DISPATCH, 1n)];
    const together = recordingWork(new Set());
    await shipmentEventBatchHandler(ctx, () => together.work)(undefined as never, batch);
    const alone = recordingWork(new Set());
    for (const e of batch) await shipmentEventHandler(ctx, () => alone.work)(undefined as never, e);
    expect(alone.calls).toEqual(["createJob c", "createJob d"]);
    expect(together.calls).toEqual(["createJobs c,d"]);
  });
});
