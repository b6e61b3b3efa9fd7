import { describe, expect, it } from "vitest";
import { following, gaveUp, isHeld, mayBeOfferedTo, mayOfferFirst, newJob, offerableFrom, offeredTo, type DispatchJob } from "./dispatch-job";
import type { Driver } from "./driver";

const at = (ms: number) => new Date(ms);
const facts = {
  shipmentId: "s-1",
  merchantId: "m-1",
  cityCode: "RUH",
  serviceLevel: "BIKE" as const,
  pickup: { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 },
  destination: { latitudeMicro: 24_774_265, longitudeMicro: 46_738_586 },
  weightGrams: 1000,
  longestSideMm: 200,
  requirements: [],
  cashOnDelivery: false,
  shipmentVersion: 2n,
};
const driver = (id: string, availableSince: Date | null = null): Driver => ({
  id,
  carrierServiceId: "svc",
  cityCode: "RUH",
  available: true,
  availableSince,
  position: undefined,
  currentShipmentId: null,
});

describe("a dispatch job", () => {
  it("starts its deadline at the first offer and keeps it through re-offers", () => {
    const waiting = newJob(facts, "READY_FOR_DISPATCH");
    expect(waiting).toMatchObject({ state: "WAITING", deadline: null, attempts: 0, triedDriverIds: [] });
    const first = offeredTo(waiting, "d-1", 3n, at(1_000), 60_000);
    expect(first).toMatchObject({ state: "OFFERED", shipmentVersion: 3n, attempts: 1, triedDriverIds: ["d-1"], deadline: at(61_000) });
    const second = offeredTo(first, "d-2", 4n, at(40_000), 60_000);
    expect(second).toMatchObject({ attempts: 2, triedDriverIds: ["d-1", "d-2"], deadline: at(61_000) });
  });

  it("gives up with a back-off that doubles from the second time, and retries with drivers freed since", () => {
    const offered = offeredTo(newJob(facts, "READY_FOR_DISPATCH"), "d-1", 3n, at(0), 60_000);
    const once = gaveUp(offered, 4n, at(60_000), 30_000);
    expect(once).toMatchObject({ state: "UNRESOLVED", deadline: at(60_000), unresolvedCount: 1, retryAt: at(60_000) });
    expect(mayBeOfferedTo(once, driver("d-1", at(59_000)))).toBe(false);
    expect(mayBeOfferedTo(once, driver("d-1", at(61_000)))).toBe(true);
    const retried = offeredTo(once, "d-1", 5n, at(70_000), 60_000);
    expect(retried).toMatchObject({ triedDriverIds: ["d-1"], deadline: at(130_000) });
    const twice = gaveUp(retried, 6n, at(130_000), 30_000);
    expect(twice).toMatchObject({ unresolvedCount: 2, retryAt: at(160_000) });
    expect(mayOfferFirst(twice, at(159_999))).toBe(false);
    expect(mayOfferFirst(twice, at(160_000))).toBe(true);
  });

  it("follows the shipment's state without ever taking its version back", () => {
    const job: DispatchJob = { ...newJob(facts, "READY_FOR_DISPATCH"), shipmentVersion: 7n };
    expect(following(job, { state: "CANCELLED", version: 5n }, at(0))).toMatchObject({ state: "CANCELLED", shipmentVersion: 7n });
    expect(following(job, { state: "DISPATCH_UNRESOLVED", version: 8n }, at(9))).toMatchObject({ state: "UNRESOLVED", shipmentVersion: 8n, deadline: at(9) });
    expect(following(job, { state: "PICKED_UP", version: 9n }, at(0)).state).toBe("ASSIGNED");
  });

  it("holds a shipment whose pickup window starts later until the lead time before it", () => {
    const lead = 45 * 60_000;
    expect(offerableFrom(undefined, lead, at(0))).toBeNull();
    expect(offerableFrom(at(lead + 1), lead, at(0))).toEqual(at(1));
    expect(offerableFrom(at(lead), lead, at(0))).toBeNull();
    const held = newJob(facts, "READY_FOR_DISPATCH", at(1_000));
    expect(isHeld(held, at(999))).toBe(true);
    expect(mayOfferFirst(held, at(999))).toBe(false);
    expect(mayOfferFirst(held, at(1_000))).toBe(true);
    expect(newJob(facts, "DISPATCH_UNRESOLVED", at(1_000)).offerableAt).toBeNull();
  });
});
