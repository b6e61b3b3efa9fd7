import { describe, expect, it } from "vitest";
import type { WebhookEffects } from "./effects";
import type { Sample } from "./sampler";
import { soakFailures, type SoakFigures } from "./verdict";

const MiB = 1024 * 1024;
/** Two replicas of shipment, whose retention jobs have deleted `deleted` outbox rows between them. */
const sample = (second: number, rssMiB: number, outboxRows: number, deleted = 0, heap = { usedMiB: 40, keptMiB: 30 }): Sample => ({
  second,
  processes: Object.fromEntries(
    ["shipment", "shipment-2"].map((name) => [
      name,
      { rssBytes: rssMiB * MiB, heapUsedBytes: heap.usedMiB * MiB, heapAfterGcBytes: heap.keptMiB * MiB, retention: { outbox_event: { oldestAgeSeconds: 30, periodSeconds: 30, deletedRows: deleted / 2 } } },
    ]),
  ),
  tables: { "shipment.outbox_event": { rows: outboxRows, bytes: 0 }, "shipment.shipment": { rows: second * 10, bytes: 0 }, "tracking.parked_event": { rows: 0, bytes: 0 } },
  lag: {},
});
const webhooks: WebhookEffects = {
  delivered: 10,
  duplicateIds: [],
  missingCreated: [],
  missingCancelled: [],
  windows: [{ window: 0, deliveries: 10, p50Ms: 100, p99Ms: 2500 }],
  overall: { window: -1, deliveries: 10, p50Ms: 100, p99Ms: 300 },
  failingAttempts: { slow: 3, hanging: 2 },
};
const healthy: SoakFigures = {
  samples: [sample(0, 100, 50), sample(60, 120, 400, 100), sample(120, 125, 420, 600), sample(180, 130, 410, 900)],
  routes: [],
  shipments: { answered: 5, stored: 5, missing: [], duplicatedReferences: [] },
  webhooks,
  exited: [],
};

describe("the soak's verdict", () => {
  it("passes a run whose memory and retained tables level off (kept tables may grow; a few deliveries' p99 is judged over the load)", () => {
    expect(soakFailures(healthy)).toEqual([]);
  });

  it("fails memory that keeps growing past the first half's peak, and a retained table that holds more than its inflow over its period", () => {
    const growing = { ...healthy, samples: [sample(0, 100, 50), sample(60, 120, 400), sample(120, 160, 900), sample(180, 200, 1400)] };
    const failures = soakFailures(growing);
    expect(failures).toHaveLength(3);
    expect(failures.slice(0, 2)).toEqual([expect.stringMatching(/^shipment: RSS grew/), expect.stringMatching(/^shipment-2: RSS grew/)]);
    expect(failures[2]).toMatch(/^shipment\.outbox_event: 1400 rows at the end, more than its inflow \(8\.3 rows\/s\)/);
  });

  it("judges the heap on what it keeps after a major collection: a used heap that doubles with garbage passes, a kept heap that grows fails, a process without a collection yet is not judged", () => {
    const at = (second: number, usedMiB: number, keptMiB: number) => sample(second, 120, 400, second * 10, { usedMiB, keptMiB });
    const garbage = { ...healthy, samples: [at(0, 55, 30), at(60, 80, 31), at(120, 100, 31), at(180, 115, 32)] };
    expect(soakFailures(garbage)).toEqual([]);
    const leak = { ...healthy, samples: [at(0, 55, 30), at(60, 80, 40), at(120, 100, 60), at(180, 115, 80)] };
    expect(soakFailures(leak)).toEqual([
      "shipment: heap kept after a major collection grew from a peak of 40 MiB in the first half to 80 MiB at the end (does not level off)",
      "shipment-2: heap kept after a major collection grew from a peak of 40 MiB in the first half to 80 MiB at the end (does not level off)",
    ]);
    const noCollectionYet = { ...healthy, samples: [at(0, 55, Number.NaN), at(60, 80, Number.NaN), at(120, 100, Number.NaN), at(180, 115, 80)] };
    expect(soakFailures(noCollectionYet)).toEqual([]);
  });

  it("passes a retained table that grows only as fast as its inflow does", () => {
    const rising = { ...healthy, samples: [sample(0, 100, 50), sample(60, 120, 400, 1000), sample(120, 125, 800, 3000), sample(180, 130, 1200, 6000)] };
    expect(soakFailures(rising)).toEqual([]);
  });

  it("fails a 5xx, a lost shipment, a duplicated delivery, a slow healthy webhook, an unexercised receiver and a parked event", () => {
    const end = sample(180, 130, 410, 900);
    const failures = soakFailures({
      ...healthy,
      samples: [...healthy.samples.slice(0, 3), { ...end, tables: { ...end.tables, "tracking.parked_event": { rows: 2, bytes: 0 } } }],
      routes: [{ route: "create", gateway: "gateway", window: 0, figures: { throughput: 1, p50Ms: 1, p99Ms: 1, requests: 1, errors: 1, seconds: 1, clientCpuPercent: 0 }, failures: ["503 {}"] }],
      shipments: { answered: 5, stored: 4, missing: ["s1"], duplicatedReferences: [] },
      webhooks: { ...webhooks, duplicateIds: ["msg_1"], overall: { ...webhooks.overall, p99Ms: 2100 }, failingAttempts: { slow: 0, hanging: 2 } },
    });
    expect(failures).toEqual([
      "create via gateway, window 0: 1 unexpected answers or transport failures (503 {})",
      "1 shipments answered 201 do not exist (lost), e.g. s1",
      "5 creates answered 201, 4 shipments stored for the soak's merchants",
      "1 webhook events delivered twice to the healthy receiver, e.g. msg_1",
      "the slow receiver was never called: its merchant's failures were not exercised",
      "the healthy merchant's webhook p99 over the load is 2100 ms (limit 2000 ms) while the slow and hanging receivers fail",
      "tracking: 2 parked events (an event its consumer could not apply)",
    ]);
  });
});
