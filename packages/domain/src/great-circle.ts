import type { Coordinate } from "./coordinate";

/** Mean Earth radius (IUGG): one radius for every distance the mesh computes, so they agree. */
export const EARTH_RADIUS_METRES = 6_371_008.8;

const radians = (micro: number) => (micro / 1e6) * (Math.PI / 180);

/** Great-circle distance in metres on a spherical Earth; error under 0.5 % against the ellipsoid. */
export function haversineMetres(a: Coordinate, b: Coordinate): number {
  const dLat = radians(b.latitudeMicro - a.latitudeMicro);
  const dLon = radians(b.longitudeMicro - a.longitudeMicro);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.latitudeMicro)) * Math.cos(radians(b.latitudeMicro)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_METRES * Math.asin(Math.min(1, Math.sqrt(h)));
}
