/** A point in microdegrees, as the tracking service sends the coarse areas and driver cell. */
export interface MicroPoint {
  readonly latitudeMicro: number;
  readonly longitudeMicro: number;
}

const WIDTH = 320;
const HEIGHT = 200;
const PAD = 16;
/** Half a grid cell (0.005 degree): each area is drawn as the cell it was snapped into. */
const HALF_CELL = 2_500;

const escapeText = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface MapLabels {
  readonly pickup: string;
  readonly destination: string;
  /** Null when no driver position is shown. */
  readonly driver: string | null;
}

/**
 * An inline SVG sketch (no tiles, no outside assets): the pickup cell, the destination cell and,
 * when given, the driver's cell, placed by their coarse coordinates on one shared scale, north up.
 * It carries no text: the markers are named by a legend under it (mapLegend). Labels drawn inside
 * the sketch collided with each other and the markers, or ran off its edge, whenever two areas
 * were close (the driver at the pickup, a short trip), and a server cannot measure text to place
 * them; the legend is laid out by the browser, in either direction, at any width.
 */
export function mapSketch(opts: { pickup: MicroPoint; destination: MicroPoint; driver: MicroPoint | null; description: string }): string {
  const points = [opts.pickup, opts.destination, ...(opts.driver ? [opts.driver] : [])];
  const minLat = Math.min(...points.map((p) => p.latitudeMicro)) - HALF_CELL;
  const maxLat = Math.max(...points.map((p) => p.latitudeMicro)) + HALF_CELL;
  const minLon = Math.min(...points.map((p) => p.longitudeMicro)) - HALF_CELL;
  const maxLon = Math.max(...points.map((p) => p.longitudeMicro)) + HALF_CELL;
  const scale = Math.min((WIDTH - 2 * PAD) / Math.max(1, maxLon - minLon), (HEIGHT - 2 * PAD) / Math.max(1, maxLat - minLat));
  // Centred: the sketch's spare room split evenly on both sides.
  const left = (WIDTH - (maxLon - minLon) * scale) / 2;
  const bottom = (HEIGHT + (maxLat - minLat) * scale) / 2;
  const x = (lon: number) => (left + (lon - minLon) * scale).toFixed(1);
  const y = (lat: number) => (bottom - (lat - minLat) * scale).toFixed(1);
  const size = Math.max(8, HALF_CELL * 2 * scale).toFixed(1);
  const cell = (p: MicroPoint, cls: string) =>
    `<rect class="${cls}" x="${x(p.longitudeMicro - HALF_CELL)}" y="${y(p.latitudeMicro + HALF_CELL)}" width="${size}" height="${size}" rx="3"/>`;
  const driver = opts.driver ? `<circle class="driver" cx="${x(opts.driver.longitudeMicro)}" cy="${y(opts.driver.latitudeMicro)}" r="${Math.max(6, HALF_CELL * scale).toFixed(1)}"/>` : "";
  const route = `<line class="route" x1="${x(opts.pickup.longitudeMicro)}" y1="${y(opts.pickup.latitudeMicro)}" x2="${x(opts.destination.longitudeMicro)}" y2="${y(opts.destination.latitudeMicro)}"/>`;
  return `<svg class="map" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="map-desc" aria-describedby="map-legend"><desc id="map-desc">${escapeText(opts.description)}</desc><rect class="ground" width="${WIDTH}" height="${HEIGHT}"/>${route}${cell(opts.pickup, "pickup")}${cell(opts.destination, "destination")}${driver}</svg>`;
}

/** The sketch's key: one swatch per marker drawn, styled like the marker, with its name. */
export function mapLegend(labels: MapLabels): string {
  const item = (cls: string, label: string) => `<li><span class="swatch ${cls}" aria-hidden="true"></span><span>${escapeText(label)}</span></li>`;
  const items = [item("pickup", labels.pickup), item("destination", labels.destination), ...(labels.driver ? [item("driver", labels.driver)] : [])];
  return `<ul class="legend" id="map-legend">${items.join("")}</ul>`;
}
