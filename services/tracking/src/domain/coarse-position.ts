import type { Coordinate } from "@tawsil/domain";

/** The public grid: 0.005 degree (about 500 m), in microdegrees. */
export const GRID_MICRO = 5_000;
/** The radius a coarse position stands for; the only accuracy customers ever see. */
export const COARSE_ACCURACY_METRES = 500;

/** Snaps a point to the nearest node of the 0.005 degree grid (exact: integer microdegrees). */
export function coarsen(point: Coordinate): Coordinate {
  const snap = (micro: number) => Math.round(micro / GRID_MICRO) * GRID_MICRO;
  return { latitudeMicro: snap(point.latitudeMicro), longitudeMicro: snap(point.longitudeMicro) };
}
