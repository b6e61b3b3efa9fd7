/** The handling requirements catalogue of decisions.md section 2: what a parcel may ask for. */
export const REQUIREMENTS = [
  "FRAGILE",
  "KEEP_UPRIGHT",
  "COLD_CHAIN",
  "LARGE_VEHICLE",
  "SIGNATURE_ON_DELIVERY",
  "PIN_ON_DELIVERY",
  "ID_VERIFICATION",
  "NO_CONTACT",
] as const;

export type Requirement = (typeof REQUIREMENTS)[number];

const KNOWN: ReadonlySet<string> = new Set(REQUIREMENTS);

export function isRequirement(value: string): value is Requirement {
  return KNOWN.has(value);
}
