import { FailedPreconditionError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import { EMPTY_CATALOGUE } from "../domain/catalogue";
import { DriverAdmin } from "./driver-admin";
import type { DriverRegistry } from "./ports";

const unreachable = () => {
  throw new Error("production must refuse before reaching the registry");
};
const registry: DriverRegistry = { carrierService: unreachable, register: unreachable, list: unreachable, get: unreachable, fleetCounts: unreachable };
const logger = { info: () => undefined } as never;

describe("the sandbox fleet's admin calls in production", () => {
  const admin = new DriverAdmin({ registry, setAvailability: unreachable, catalogue: { current: () => EMPTY_CATALOGUE }, environment: "production", logger });

  it("refuses to register or list the fleet's drivers and to tell its demand: SANDBOX_ONLY", async () => {
    const calls: (() => Promise<unknown>)[] = [
      () => admin.register({ name: "Sandbox", cityCode: "RUH", carrierCode: "SAQR", serviceLevel: "BIKE", sandboxFleet: true }),
      () => admin.list(0, true),
      () => admin.fleetDemand(new Date()),
    ];
    for (const call of calls) {
      const error = await Promise.resolve().then(call).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FailedPreconditionError);
      expect(error).toMatchObject({ reason: "SANDBOX_ONLY" });
    }
  });
});
