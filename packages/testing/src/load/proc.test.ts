import { describe, expect, it } from "vitest";
import { cpuPercent, parseStatTicks, parseStatusRssBytes, parseVoluntarySwitches, threadWakeups } from "./proc";

// A real line, with a command name holding a space and a parenthesis.
const STAT = "4242 (node (main) x) S 1 4242 4242 0 -1 4194560 12000 0 3 0 1534 287 0 0 20 0 11 0 3810 1155960832 31337 18446744073709551615 1 1 0 0 0 0 0 16781312 17922 0 0 0 17 1 0 0 0 0 0";

describe("/proc parsing", () => {
  it("adds utime and stime, whatever the command name holds", () => {
    expect(parseStatTicks(STAT)).toBe(1534 + 287);
  });

  it("refuses a line that is not a stat line", () => {
    expect(() => parseStatTicks("garbage")).toThrow();
  });

  it("reads VmRSS in bytes", () => {
    const status = "Name:\tnode\nVmPeak:\t 1200000 kB\nVmRSS:\t  125344 kB\nRssAnon:\t 90000 kB\n";
    expect(parseStatusRssBytes(status)).toBe(125_344 * 1024);
  });

  it("counts a process without VmRSS (a zombie) as 0 bytes", () => {
    expect(parseStatusRssBytes("Name:\tjava\nState:\tZ (zombie)\n")).toBe(0);
  });

  it("turns tick deltas into % of one core", () => {
    expect(cpuPercent(1000, 1050, 10, 100)).toBeCloseTo(5);
    expect(cpuPercent(0, 400, 2, 100)).toBeCloseTo(200);
  });
});

describe("thread wake-ups", () => {
  it("reads a thread's voluntary context switches, and sums a live process's threads", () => {
    expect(parseVoluntarySwitches("Name:\tnode\nvoluntary_ctxt_switches:\t1234\nnonvoluntary_ctxt_switches:\t56\n")).toBe(1234);
    expect(parseVoluntarySwitches("Name:\tzombie\n")).toBe(0);
    const before = threadWakeups(process.pid)!;
    // Each wait blocks the main thread on a futex until the kernel wakes it at the timeout: a
    // voluntary switch every time. (Awaited timers were not: a loaded run's worker, busy with
    // other files' I/O when a timer fell due, woke 19 times for 20 timers.)
    const futex = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 20; i++) Atomics.wait(futex, 0, 0, 2);
    expect(threadWakeups(process.pid)! - before).toBeGreaterThanOrEqual(20);
    expect(threadWakeups(2 ** 22 + 1)).toBeUndefined();
  });
});
