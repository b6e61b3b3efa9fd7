import { problemSettings } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";

const BASE = {
  PORT: "7040",
  GATEWAY_URL: "http://127.0.0.1:7000",
  DISPATCH_ADMIN_URL: "http://127.0.0.1:7014",
  MERCHANT_ADMIN_URL: "http://127.0.0.1:7011",
  SHIPMENT_ADMIN_URL: "http://127.0.0.1:7012",
};

describe("sandbox fleet configuration", () => {
  it("needs the gateway and the three admin listeners; staffs 2 per pair up to 30, with a reserve of 3 for shipments of the last minute", () => {
    expect(readConfig(BASE)).toMatchObject({
      FLEET_DRIVERS_PER_SERVICE: 2,
      FLEET_MAX_DRIVERS_PER_SERVICE: 30,
      FLEET_RESERVE_DRIVERS_PER_SERVICE: 3,
      FLEET_RECENT_DEMAND_MS: 60_000,
      FLEET_FIX_INTERVAL_MS: 2_000,
      FLEET_FAILURE_RATE: 0.05,
      FLEET_CITIES: new Set(["RUH", "JED", "DMM", "MKK", "MED"]),
    });
    expect(readConfig({ ...BASE, FLEET_CITIES: "RUH, JED" }).FLEET_CITIES).toEqual(new Set(["RUH", "JED"]));
    expect(problemSettings(readConfig, {})).toEqual(["DISPATCH_ADMIN_URL", "GATEWAY_URL", "MERCHANT_ADMIN_URL", "PORT", "SHIPMENT_ADMIN_URL"]);
  });

  it("names every bad setting at once", () => {
    const env = { ...BASE, FLEET_FAILURE_RATE: "1.5", FLEET_RESERVE_DRIVERS_PER_SERVICE: "-1", FLEET_RECENT_DEMAND_MS: "10", GATEWAY_URL: "gateway:7000", FLEET_CITIES: "RUH,XXX" };
    expect(problemSettings(readConfig, env)).toEqual(["FLEET_CITIES", "FLEET_FAILURE_RATE", "FLEET_RECENT_DEMAND_MS", "FLEET_RESERVE_DRIVERS_PER_SERVICE", "GATEWAY_URL"]);
  });
});
