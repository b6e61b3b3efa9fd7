import { ServiceLevel as ServiceLevelMessage } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import type { ServiceLevel } from "@tawsil/domain";

const TO_PROTO: Readonly<Record<ServiceLevel, ServiceLevelMessage>> = {
  BIKE: ServiceLevelMessage.BIKE,
  CAR: ServiceLevelMessage.CAR,
  VAN: ServiceLevelMessage.VAN,
  COLD_CHAIN_VAN: ServiceLevelMessage.COLD_CHAIN_VAN,
};

/** tawsil.dispatch.v1.ServiceLevel, as dispatch sends it and pricing answers it. */
export function serviceLevelToProto(level: ServiceLevel): ServiceLevelMessage {
  return TO_PROTO[level];
}

/** Undefined for SERVICE_LEVEL_UNSPECIFIED and values newer than this build. */
export function serviceLevelFromProto(message: ServiceLevelMessage): ServiceLevel | undefined {
  return (Object.keys(TO_PROTO) as ServiceLevel[]).find((level) => TO_PROTO[level] === message);
}
