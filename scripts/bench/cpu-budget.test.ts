import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { afterMs, ceiling, cpuPerRequest, databaseBackends, medianCpu, readTicks, readWakeups, ticksBetween, wakeupsPerRequest } from "./cpu-budget";

const processes = [
  { name: "gateway", pid: 1 },
  { name: "shipment", pid: 2 },
  { name: "gone", pid: undefined },
];

describe("CPU per request", () => {
  it("divides each process's ticks in and after the round by the requests answered", () => {
    // 100 ticks a second: 50 ticks = 500 ms over 100 requests = 5 ms each.
    const one = (pid: number, ticks: number) => new Map([[pid, ticks]]);
    const cpu = cpuPerRequest(processes, { before: [one(1, 0), one(2, 100), undefined], end: [one(1, 50), one(2, 300), undefined], after: [one(1, 60), one(2, 300), undefined] }, 100, 100);
    expect(cpu).toEqual([
      { name: "gateway", duringMs: 5, afterMs: 1 },
      { name: "shipment", duringMs: 20, afterMs: 0 },
      { name: "gone", duringMs: Number.NaN, afterMs: Number.NaN },
    ]);
    const zero = [new Map([[1, 0]])];
    const once = [new Map([[1, 1]])];
    expect(cpuPerRequest(processes.slice(0, 1), { before: zero, end: once }, 0, 100)[0]!.duringMs).toBeNaN();
    expect(cpuPerRequest(processes.slice(0, 1), { before: zero, end: once }, 10, 100)[0]).toEqual({ name: "gateway", duringMs: 1 });
  });

  it("divides each process's thread wake-ups in the round by the requests answered, and sums the product's", () => {
    const one = (pid: number, n: number) => new Map([[pid, n]]);
    const wakeups = { before: [one(1, 1000), one(2, 50)], end: [one(1, 1400), one(2, 850)] };
    const cpu = cpuPerRequest(processes.slice(0, 2), { before: [one(1, 0), one(2, 0)], end: [one(1, 1), one(2, 2)], wakeups }, 100, 100);
    expect(cpu).toEqual([
      { name: "gateway", duringMs: 0.1, wakeups: 4 },
      { name: "shipment", duringMs: 0.2, wakeups: 8 },
    ]);
    expect(medianCpu([cpu, cpu.map((p) => ({ ...p, wakeups: p.wakeups! * 3 })), cpu]).map((p) => p.wakeups)).toEqual([4, 8]);
    // The simulated drivers' process is a client of the mesh: never in the product's sum.
    expect(wakeupsPerRequest([...cpu, { name: "sandbox-fleet", duringMs: 1, wakeups: 50 }])).toBe(12);
    expect(wakeupsPerRequest([{ name: "gateway", duringMs: 1 }])).toBeUndefined();
  });

  it("reads a live process's wake-ups, and none of a process that is gone", () => {
    const [self, gone] = readWakeups([{ name: "this", pid: process.pid }, { name: "gone", pid: 2 ** 22 + 1 }]);
    expect(self!.get(process.pid)).toBeGreaterThan(0);
    expect(gone).toBeUndefined();
  });

  it("counts a group's members one by one: a newcomer whole, one that left without going negative", () => {
    // Backend 7 left (its 500 ticks go with it), 8 grew by 20, 9 is new with 5.
    expect(ticksBetween(new Map([[7, 500], [8, 100]]), new Map([[8, 120], [9, 5]]))).toBe(25);
  });

  it("takes each process's median over the rounds, and leaves out an after it never measured", () => {
    const rounds = [
      [{ name: "gateway", duringMs: 1, afterMs: 3 }],
      [{ name: "gateway", duringMs: 5, afterMs: 1 }],
      [{ name: "gateway", duringMs: 2, afterMs: 2 }],
    ];
    expect(medianCpu(rounds)).toEqual([{ name: "gateway", duringMs: 2, afterMs: 2 }]);
    expect(medianCpu([[{ name: "gateway", duringMs: 4 }]])).toEqual([{ name: "gateway", duringMs: 4 }]);
    expect(medianCpu([])).toEqual([]);
  });

  it("turns the total into the most a machine of N cores can serve, skipping what could not be read", () => {
    expect(ceiling([{ name: "a", duringMs: 8, afterMs: 2 }, { name: "b", duringMs: 10 }, { name: "c", duringMs: Number.NaN }], 2)).toEqual({ totalMs: 20, maxPerSecond: 100 });
    expect(ceiling([], 2).maxPerSecond).toBeNaN();
    // The sandbox fleet's simulated drivers are a client of the mesh: shown, never in the product's total.
    const withFleet = [{ name: "a", duringMs: 8, afterMs: 2 }, { name: "b", duringMs: 10 }, { name: "sandbox-fleet", duringMs: 5, afterMs: 5 }];
    expect(ceiling(withFleet, 2)).toEqual({ totalMs: 20, maxPerSecond: 100 });
    expect(afterMs(withFleet)).toBe(2);
  });
});

describe("a group of processes read as one", () => {
  it("finds PostgreSQL backends by the database named in their title, and sums their CPU", async () => {
    // A process whose title looks like a backend's: node sets process.title from its argument.
    const title = `postgres: 15/main: postgres bench_test_${process.pid} 127.0.0.1(5000) idle`;
    const child = spawn(process.execPath, ["-e", `process.title = ${JSON.stringify(title)}; let x = 0; const end = Date.now() + 300; while (Date.now() < end) x++; setInterval(() => {}, 1000);`], { stdio: "ignore" });
    try {
      const group = databaseBackends([`bench_test_${process.pid}`, "another_database"]);
      let pids: number[] = [];
      for (let i = 0; i < 50 && pids.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        pids = group.pids!();
      }
      expect(pids).toEqual([child.pid]);
      expect(databaseBackends([`bench_test_${process.pid}0`]).pids!()).toEqual([]);
      await new Promise((r) => setTimeout(r, 400));
      // It spun for 300 ms: at least some ticks, read through the group as through a pid.
      const [ticks] = readTicks([group, { name: "child", pid: child.pid }]);
      expect(ticksBetween(new Map(), ticks!)).toBeGreaterThan(0);
      expect([...ticks!.keys()]).toEqual([child.pid]);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
