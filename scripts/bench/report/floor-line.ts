/**
 * The design floor beside a path: what the same request costs through this design's parts alone
 * (a fastify REST edge, one Connect call over HTTP/2 to another process, the handler's one
 * statement where the path has one; for a create, one more call, a transaction with its outbox
 * row and one event applied by three consumer groups), measured in the same rounds as the mesh
 * (floor/edge.ts).
 * Whatever a path spends above it is the product's own work; a target below it cannot be met by
 * any change inside the processes, only by a different design (fewer processes on the path).
 */
import { ceiling, processMs, wakeupsPerRequest } from "../cpu-budget";
import type { FloorFigures, ScenarioResult } from "../scenarios/scenario";

/** The floor's CPU per request: edge, inner service and PostgreSQL backends together. */
export const floorMs = (floor: FloorFigures): number => ceiling(floor.cpu, 1).totalMs;

const parts = (floor: FloorFigures) =>
  floor.cpu
    .map((p) => `${p.name} ${processMs(p).toFixed(2)}`)
    .join(", ");

/**
 * "the design floor (a fastify route, one Connect call over HTTP/2, a handler that reads one row by
 * primary key; same rounds) costs 1.21 ms (floor edge 0.60, floor inner 0.41, postgresql 0.20),
 * 42% of this path's 2.88 ms, and alone exceeds the 0.6 ms target: no change inside the
 * processes meets it in this design; the 1.67 ms above it is the product's work: ..."
 */
export function floorLine(s: ScenarioResult, limitMs: number): string | undefined {
  const floor = s.floor;
  if (!floor || !s.cpu?.length) return undefined;
  const floorTotal = floorMs(floor);
  const pathTotal = ceiling(s.cpu, 1).totalMs;
  if (!Number.isFinite(floorTotal) || !Number.isFinite(pathTotal) || pathTotal <= 0) return undefined;
  const share = `${((100 * floorTotal) / pathTotal).toFixed(0)}% of this path's ${pathTotal.toFixed(2)} ms`;
  const verdict =
    floorTotal > limitMs
      ? `and alone exceeds the ${limitMs} ms target: no change inside the processes meets it in this design`
      : `under the ${limitMs} ms target, so the ${(pathTotal - floorTotal).toFixed(2)} ms above it (the product's work) is what must shrink`;
  return `the design floor (a fastify route, one Connect call over HTTP/2 to a handler that ${floor.what}; same rounds, ${floor.figures.median.throughput.toFixed(0)} req/s) costs ${floorTotal.toFixed(2)} ms (${parts(floor)}), ${share}, ${verdict}${wakeupsLine(s)}`;
}

/** How many times a request woke a thread of the path and of its floor: the hops and round trips each costs. */
function wakeupsLine(s: ScenarioResult): string {
  const [path, floor] = [wakeupsPerRequest(s.cpu ?? []), wakeupsPerRequest(s.floor?.cpu ?? [])];
  if (path === undefined || floor === undefined || !Number.isFinite(path) || !Number.isFinite(floor)) return "";
  return `; a request woke the path's threads ${path.toFixed(1)} times, the floor's ${floor.toFixed(1)}`;
}
