import { SERVICE_LEVELS, type ServiceLevel } from "@tawsil/domain";

export { SERVICE_LEVELS, type ServiceLevel };

/** Position in SERVICE_LEVELS: lower is smaller (and cheaper to run). */
export function rankOf(level: ServiceLevel): number {
  return SERVICE_LEVELS.indexOf(level);
}
