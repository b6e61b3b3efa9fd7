/** A point in microdegrees, as the tracking service sends the coarse areas and driver cell. */
export interface MicroPoint {
  readonly latitudeMicro: number;
  readonly longitudeMicro: number;
}

const WIDTH = 320;
const HEIGHT = 200;
const PAD = 28;
/** Half a grid cell (0.005 degree): each area is drawn as the cell it was snapped into. */
const HALF_CELL = 2_500;

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * An inline SVG sketch (no tiles, no outside assets): the pickup cell, the destination cell and,
 * when given, the driver's cell, placed by their coarse coordinates on one shared scale, north up.
 */
export function mapSketch(opts: { pickup: MicroPoint; destination: MicroPoint; driver: MicroPoint | null; labels: { pickup: string; destination: string; driver: string; description: string } }): string {
  const points = [opts.pickup, opts.destination, ...(opts.driver ? [opts.driver] : [])];
  const minLat = Math.min(...points.map((p) => p.latitudeMicro)) - HALF_CELL;
  const maxLat = Math.max(...points.map((p) => p.latitudeMicro)) + HALF_CELL;
  const minLon = Math.min(...points.map((p) => p.longitudeMicro)) - HALF_CELL;
  const maxLon = Math.max(...points.map((p) => p.longitudeMicro)) + HALF_CELL;
  const scale = Math.min((WIDTH - 2 * PAD) / Math.max(1, maxLon - minLon), (HEIGHT - 2 * PAD) / Math.max(1, maxLat - minLat));
  const x = (lon: number) => PAD + (lon - minLon) * scale;
  const y = (lat: number) => HEIGHT - PAD - (lat - minLat) * scale;
  const cell = (p: MicroPoint, cls: string, label: string) => {
    const left = x(p.longitudeMicro - HALF_CELL);
    const top = y(p.latitudeMicro + HALF_CELL);
    const size = Math.max(6, HALF_CELL * 2 * scale);
    return `<g class="${cls}"><rect x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${size.toFixed(1)}" height="${size.toFixed(1)}" rx="3"/><text x="${(left + size / 2).toFixed(1)}" y="${(top - 4).toFixed(1)}" text-anchor="middle">${escapeXml(label)}</text></g>`;
  };
  const driver = opts.driver
    ? `<g class="driver"><circle cx="${x(opts.driver.longitudeMicro).toFixed(1)}" cy="${y(opts.driver.latitudeMicro).toFixed(1)}" r="${Math.max(6, HALF_CELL * scale).toFixed(1)}"/><text x="${x(opts.driver.longitudeMicro).toFixed(1)}" y="${(y(opts.driver.latitudeMicro) + Math.max(6, HALF_CELL * scale) + 14).toFixed(1)}" text-anchor="middle">${escapeXml(opts.labels.driver)}</text></g>`
    : "";
  const route = `<line class="route" x1="${x(opts.pickup.longitudeMicro).toFixed(1)}" y1="${y(opts.pickup.latitudeMicro).toFixed(1)}" x2="${x(opts.destination.longitudeMicro).toFixed(1)}" y2="${y(opts.destination.latitudeMicro).toFixed(1)}"/>`;
  return `<svg class="map" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="map-desc"><desc id="map-desc">${escapeXml(opts.labels.description)}</desc><rect class="ground" width="${WIDTH}" height="${HEIGHT}"/>${route}${cell(opts.pickup, "pickup", opts.labels.pickup)}${cell(opts.destination, "destination", opts.labels.destination)}${driver}</svg>`;
}
