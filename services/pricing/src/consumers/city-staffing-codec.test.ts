import { create, toBinary } from "@bufbuild/protobuf";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { CityStaffingSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { describe, expect, it } from "vitest";
import { decodeCityStaffing } from "./city-staffing-codec";

const encode = (services: { level: ServiceLevel; requirements: string[] }[]) =>
  toBinary(CityStaffingSchema, create(CityStaffingSchema, { cityCode: "JED", services: services.map((s) => ({ ...s, maxWeightGrams: 5000n, maxLongestSideMm: 450, supportsCod: true })) }));

describe("decodeCityStaffing", () => {
  it("reads each staffed service's capability", () => {
    expect(decodeCityStaffing(encode([{ level: ServiceLevel.BIKE, requirements: ["FRAGILE"] }]))).toEqual({
      cityCode: "JED",
      services: [{ level: "BIKE", maxWeightGrams: 5000, maxLongestSideMm: 450, supportsCod: true, requirements: new Set(["FRAGILE"]) }],
    });
  });

  it("leaves out a service whose level or requirement this release does not know, rather than promising it", () => {
    const decoded = decodeCityStaffing(encode([{ level: 9 as ServiceLevel, requirements: [] }, { level: ServiceLevel.CAR, requirements: ["HOVERCRAFT"] }, { level: ServiceLevel.VAN, requirements: [] }]));
    expect(decoded.services.map((s) => s.level)).toEqual(["VAN"]);
  });
});
