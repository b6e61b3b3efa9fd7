import { formatDegrees, type Coordinate } from "@tawsil/domain";
import { DependencyUnavailableError, FailedPreconditionError } from "@tawsil/errors";
import { z } from "zod";
import type { Place, RouteDistance } from "../domain/route-distance";

const ENGINE = "the routing engine";

/** The part of OSRM's route response we read (http://project-osrm.org/docs/v5.24.0/api/#route-service). */
const routeResponse = z.object({
  code: z.string(),
  routes: z.array(z.object({ distance: z.number().finite().nonnegative() })).optional(),
});

/** OSRM's codes for "these points are not connected by the road network it knows". */
const NO_ROUTE = new Set(["NoRoute", "NoSegment"]);

/**
 * Road distance from an OSRM-compatible server (`ROUTING_URL`), driving profile, whole metres.
 * Within the deadline or not at all: a server that is down, slow, answers 5xx or something that
 * is not a route fails the quote with DependencyUnavailableError (503), never a silent fallback to
 * the great-circle model, whose distances (and so prices) would differ from what was promised.
 * A server that says the two points are not connected by road fails with OUTSIDE_COVERAGE: it is
 * an answer about the delivery, not an outage.
 */
export class OsrmRouteDistance implements RouteDistance {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(opts: { baseUrl: string; timeoutMs: number }) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = opts.timeoutMs;
  }

  async metres(from: Place, to: Place, signal: AbortSignal): Promise<number> {
    const url = `${this.baseUrl}/route/v1/driving/${lngLat(from.coordinate)};${lngLat(to.coordinate)}?overview=false`;
    let status: number;
    let body: unknown;
    try {
      // The deadline covers the body too: a server that sends headers and then stalls is as slow.
      const res = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]), headers: { accept: "application/json" } });
      status = res.status;
      body = status >= 500 ? undefined : await res.json();
    } catch (error) {
      throw new DependencyUnavailableError(ENGINE, { cause: error });
    }
    if (status >= 500) throw new DependencyUnavailableError(ENGINE, { cause: new Error(`routing engine answered HTTP ${status}`) });
    const parsed = routeResponse.safeParse(body);
    if (!parsed.success) throw new DependencyUnavailableError(ENGINE, { cause: new Error(`routing engine answered HTTP ${status} without a route response`) });
    const { code, routes } = parsed.data;
    if (NO_ROUTE.has(code)) throw new FailedPreconditionError("OUTSIDE_COVERAGE", "no road connects the pickup and the destination");
    const distance = routes?.[0]?.distance;
    if (code !== "Ok" || distance === undefined) {
      throw new DependencyUnavailableError(ENGINE, { cause: new Error(`routing engine answered HTTP ${status} code ${code}`) });
    }
    return Math.round(distance);
  }
}

function lngLat(c: Coordinate): string {
  return `${formatDegrees(c.longitudeMicro)},${formatDegrees(c.latitudeMicro)}`;
}
