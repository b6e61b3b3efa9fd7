import { describe, expect, it } from "vitest";
import { AuthLockout } from "./lockout";
import { SlidingWindow } from "./sliding-window";
import { TokenBuckets } from "./token-bucket";

describe("TokenBuckets", () => {
  it("allows the burst at once, then the sustained rate, and says when to retry", () => {
    const buckets = new TokenBuckets(200, 100);
    const t0 = 1_000_000;
    for (let i = 0; i < 200; i++) expect(buckets.take("client", t0).allowed).toBe(true);
    const refused = buckets.take("client", t0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(buckets.take("client", t0 + 10).allowed).toBe(true); // 10 ms refill one token at 100/s
    expect(buckets.take("other", t0).allowed).toBe(true);
  });

  it("refills no further than its capacity", () => {
    const buckets = new TokenBuckets(20, 20 / 60);
    const t0 = 5_000;
    for (let i = 0; i < 20; i++) buckets.take("id", t0);
    const refused = buckets.take("id", t0);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(3);
    expect(buckets.take("id", t0 + 3_600_000).remaining).toBe(19);
  });
});

describe("AuthLockout", () => {
  it("locks a client id after five failures within a minute, for a minute", () => {
    const lockout = new AuthLockout(5, 60, 60);
    const t0 = 10_000;
    for (let i = 0; i < 4; i++) lockout.recordFailure("c", t0 + i * 1000);
    expect(lockout.lockedFor("c", t0 + 4000)).toBe(0);
    lockout.recordFailure("c", t0 + 5000);
    expect(lockout.lockedFor("c", t0 + 5000)).toBe(60);
    expect(lockout.lockedFor("c", t0 + 64_500)).toBe(1);
    expect(lockout.lockedFor("c", t0 + 65_000)).toBe(0);
  });

  it("forgets failures older than the window", () => {
    const lockout = new AuthLockout(5, 60, 60);
    for (let i = 0; i < 4; i++) lockout.recordFailure("c", i * 1000);
    lockout.recordFailure("c", 61_000 + 3000);
    expect(lockout.lockedFor("c", 64_000)).toBe(0);
  });
});

describe("SlidingWindow", () => {
  it("allows exactly the limit within any window, however slowly the requests come", () => {
    const window = new SlidingWindow(20, 60);
    for (let i = 0; i < 20; i++) expect(window.take("id", i * 2900).allowed).toBe(true); // 20 requests over 55 s
    const refused = window.take("id", 58_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 2 });
    expect(window.take("id", 60_000).allowed).toBe(true); // the first left the window
    expect(window.take("other", 60_000).allowed).toBe(true);
  });
});
