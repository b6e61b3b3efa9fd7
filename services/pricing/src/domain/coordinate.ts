import type { Coordinate } from "@tawsil/domain";

/** GeoJSON order, [longitude, latitude] in degrees. Correctly rounded, so 46960000 gives exactly 46.96. */
export function toPosition(c: Coordinate): [number, number] {
  return [c.longitudeMicro / 1e6, c.latitudeMicro / 1e6];
}

export function fromDegrees(latitude: number, longitude: number): Coordinate {
  return { latitudeMicro: Math.round(latitude * 1e6), longitudeMicro: Math.round(longitude * 1e6) };
}

/** Mean Earth radius (IUGG), the usual choice for haversine distances. */
const EARTH_RADIUS_METRES = 6_371_008.8;

/** Great-circle distance on a spherical Earth; error under 0.5 % against the ellipsoid. */
export function haversineMetres(a: Coordinate, b: Coordinate): number {
  const rad = (micro: number) => ((micro / 1e6) * Math.PI) / 180;
  const dLat = rad(b.latitudeMicro - a.latitudeMicro);
  const dLng = rad(b.longitudeMicro - a.longitudeMicro);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitudeMicro)) * Math.cos(rad(b.latitudeMicro)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_METRES * Math.asin(Math.min(1, Math.sqrt(h)));
}
