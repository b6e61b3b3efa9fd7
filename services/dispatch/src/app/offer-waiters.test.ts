import { describe, expect, it } from "vitest";
import { OfferWaiters } from "./offer-waiters";

describe("a driver's waiter for offers", () => {
  it("is woken by a notification for its driver, or for anyone, and says so", async () => {
    const waiters = new OfferWaiters();
    const mine = waiters.wait("d1", 60_000);
    const other = waiters.wait("d2", 60_000);
    waiters.wake("d1");
    expect(await mine.woken).toBe(true);
    expect(waiters.size).toBe(1);
    waiters.wake(undefined);
    expect(await other.woken).toBe(true);
    expect(waiters.size).toBe(0);
  });

  it("ends without a notification when its time passes, the caller leaves or cancels: nothing new is known", async () => {
    const waiters = new OfferWaiters();
    expect(await waiters.wait("d1", 10).woken).toBe(false);
    const leaving = new AbortController();
    const left = waiters.wait("d1", 60_000, leaving.signal);
    leaving.abort();
    expect(await left.woken).toBe(false);
    const cancelled = waiters.wait("d1", 60_000);
    cancelled.cancel();
    expect(await cancelled.woken).toBe(false);
    // A notification after the end changes nothing.
    waiters.wake("d1");
    expect(waiters.size).toBe(0);
  });
});
