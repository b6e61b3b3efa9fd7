import type { Logger } from "@tawsil/logging";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DriverApi } from "./driver-api";
import { SandboxDriver } from "./sandbox-driver";

const RIYADH = { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 };
const logger = { warn: () => {}, info: () => {} } as unknown as Logger;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000_300 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("a sandbox driver at the door", () => {
  it("delivers with what the recipient proves: the PIN, its own evidence and the COD amount", async () => {
    const reports: unknown[] = [];
    const asked: [string, string][] = [];
    const proof = { deliveryPin: "0427", evidenceMediaAssetIds: ["0190a0b0-0000-7000-8000-00000000000e"], codCollected: { currency: "SAR", amount: "75.25" } };
    const driverApi = { reportProgress: async (input: unknown) => void reports.push(input) } as unknown as DriverApi;
    // Already at the destination: its first tick arrives and delivers.
    const driver = new SandboxDriver(
      "d-1",
      RIYADH,
      {
        driverApi,
        reportLocation: async () => {},
        logger,
        speedKmh: 36,
        failureRate: 0,
        tickMs: 2_000,
        acceptDelayMs: 300,
        random: () => 0.5,
        recipient: {
          proofFor: async (driverId, shipmentId) => {
            asked.push([driverId, shipmentId]);
            return proof;
          },
        },
      },
      { shipmentId: "s-1", pickup: RIYADH, destination: RIYADH, phase: "TO_DESTINATION" },
    );
    driver.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(asked).toEqual([["d-1", "s-1"]]);
    expect(reports).toEqual([{ driverId: "d-1", shipmentId: "s-1", progress: "DELIVERED", reasonCode: "", proof }]);
    expect(driver.task).toBeUndefined();
    await driver.stop();
  });
});
