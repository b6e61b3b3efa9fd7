import { ServiceLevel as ProtoLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import type { ServiceLevel } from "../domain/service-level";

const TO_PROTO: Record<ServiceLevel, ProtoLevel> = {
  BIKE: ProtoLevel.BIKE,
  CAR: ProtoLevel.CAR,
  VAN: ProtoLevel.VAN,
  COLD_CHAIN_VAN: ProtoLevel.COLD_CHAIN_VAN,
};

export function serviceLevelToProto(level: ServiceLevel): ProtoLevel {
  return TO_PROTO[level];
}
