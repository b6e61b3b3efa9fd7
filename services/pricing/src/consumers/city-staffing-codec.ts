import { fromBinary } from "@bufbuild/protobuf";
import { isRequirement, type ServiceCapability } from "@tawsil/domain";
import { CityStaffingSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { serviceLevelFromProto } from "@tawsil/rpc";

/** A CityStaffing message as the staffing index takes it. */
export interface DecodedCityStaffing {
  readonly cityCode: string;
  readonly services: readonly ServiceCapability[];
}

/**
 * Decodes dispatch's CityStaffing. A service whose level or a requirement this release does not
 * know is left out (a newer dispatch may add them): it cannot be judged, and counting it eligible
 * would promise what may not be carried.
 */
export function decodeCityStaffing(payload: Uint8Array): DecodedCityStaffing {
  const message = fromBinary(CityStaffingSchema, payload);
  const services: ServiceCapability[] = [];
  for (const service of message.services) {
    const level = serviceLevelFromProto(service.level);
    if (!level || !service.requirements.every(isRequirement)) continue;
    services.push({
      level,
      maxWeightGrams: Number(service.maxWeightGrams),
      maxLongestSideMm: service.maxLongestSideMm,
      supportsCod: service.supportsCod,
      requirements: new Set(service.requirements.filter(isRequirement)),
    });
  }
  return { cityCode: message.cityCode, services };
}
