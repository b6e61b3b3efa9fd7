import type { Coordinate } from "@tawsil/domain";

/** GeoJSON order, [longitude, latitude] in degrees. Correctly rounded, so 46960000 gives exactly 46.96. */
export function toPosition(c: Coordinate): [number, number] {
  return [c.longitudeMicro / 1e6, c.latitudeMicro / 1e6];
}

export function fromDegrees(latitude: number, longitude: number): Coordinate {
  return { latitudeMicro: Math.round(latitude * 1e6), longitudeMicro: Math.round(longitude * 1e6) };
}
