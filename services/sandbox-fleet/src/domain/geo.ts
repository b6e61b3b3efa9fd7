import { haversineMetres, type Coordinate } from "@tawsil/domain";

/**
 * The point `metres` along the straight line from `from` to `to` (linear in degrees, which is
 * plausible enough over a city), or `to` itself when it is closer than that.
 */
export function moveToward(from: Coordinate, to: Coordinate, metres: number): { position: Coordinate; arrived: boolean } {
  const total = haversineMetres(from, to);
  if (total <= metres) return { position: to, arrived: true };
  const share = metres / total;
  return {
    position: {
      latitudeMicro: Math.round(from.latitudeMicro + (to.latitudeMicro - from.latitudeMicro) * share),
      longitudeMicro: Math.round(from.longitudeMicro + (to.longitudeMicro - from.longitudeMicro) * share),
    },
    arrived: false,
  };
}

/**
 * Centres of the cities the fleet staffs, where its drivers start. The fleet's own table (not
 * dispatch's, not @tawsil/domain's): only the simulation needs a city's centre, and a city without
 * one here is not staffed.
 */
export const CITY_CENTRES: Readonly<Record<string, Coordinate>> = {
  RUH: { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 },
  JED: { latitudeMicro: 21_485_800, longitudeMicro: 39_192_500 },
  DMM: { latitudeMicro: 26_420_700, longitudeMicro: 50_088_800 },
  MKK: { latitudeMicro: 21_389_100, longitudeMicro: 39_857_900 },
  MED: { latitudeMicro: 24_524_700, longitudeMicro: 39_569_200 },
};

/** A start position within about 2 km of the centre, the same for a driver's name on every start. */
export function startPosition(centre: Coordinate, seed: number): Coordinate {
  const spread = (n: number) => ((Math.imul(seed ^ n, 2_654_435_761) >>> 0) % 36_000) - 18_000;
  return { latitudeMicro: centre.latitudeMicro + spread(0x5bd1), longitudeMicro: centre.longitudeMicro + spread(0x1b87) };
}
