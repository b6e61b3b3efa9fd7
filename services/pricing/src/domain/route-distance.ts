import { haversineMetres, type Coordinate } from "@tawsil/domain";

/** A covered point: its coordinate and the city whose service area holds it. */
export interface Place {
  readonly coordinate: Coordinate;
  readonly cityCode: string;
}

/**
 * The port behind which route distance is computed: whole metres by road from `from` to `to`.
 * Implementations fail with DependencyUnavailableError when their engine cannot answer in time.
 */
export interface RouteDistance {
  metres(from: Place, to: Place, signal: AbortSignal): Promise<number>;
}

/**
 * How much longer the road is than the straight line, per city. Defaults are typical urban
 * detour indexes: grid-like Riyadh, Dammam–Khobar and Madinah 1.30; Jeddah 1.35 (the coast, the
 * Obhur creek and the port force detours); Makkah 1.45 (mountains, tunnels and one-way rings
 * around the Haram). Override with CIRCUITY_FACTORS, e.g. "RUH=1.3,JED=1.35".
 */
export const DEFAULT_CIRCUITY_FACTORS: Readonly<Record<string, number>> = Object.freeze({
  RUH: 1.3,
  JED: 1.35,
  DMM: 1.3,
  MKK: 1.45,
  MED: 1.3,
});

const ENTRY = /^([A-Z]{3})=(\d+(?:\.\d+)?)$/;

/** "RUH=1.3,JED=1.35" over the defaults; every factor from 1 to 3. Throws with the offending entry. */
export function parseCircuityFactors(value: string): Record<string, number> {
  const factors: Record<string, number> = { ...DEFAULT_CIRCUITY_FACTORS };
  for (const entry of value.split(",").map((part) => part.trim()).filter(Boolean)) {
    const match = ENTRY.exec(entry);
    const factor = Number(match?.[2]);
    if (!match?.[1] || !(factor >= 1 && factor <= 3)) {
      throw new Error(`"${entry}" is not CITY=FACTOR with a three-letter city code and a factor from 1 to 3`);
    }
    factors[match[1]] = factor;
  }
  return factors;
}

/**
 * The default model, without a routing engine: great-circle distance times the city's circuity
 * factor, rounded to whole metres. Deterministic and instant, so it never fails.
 */
export class GreatCircleDistance implements RouteDistance {
  constructor(private readonly factors: Readonly<Record<string, number>>) {}

  factorOf(cityCode: string): number {
    const factor = this.factors[cityCode];
    if (factor === undefined) throw new Error(`no circuity factor for city ${cityCode}`);
    return factor;
  }

  async metres(from: Place, to: Place, _signal?: AbortSignal): Promise<number> {
    return Math.round(haversineMetres(from.coordinate, to.coordinate) * this.factorOf(from.cityCode));
  }
}
