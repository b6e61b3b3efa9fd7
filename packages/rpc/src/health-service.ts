import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import type { Readiness } from "./readiness";

const WATCH_INTERVAL_MS = 1000;

/**
 * The service name a liveness (and startup) probe asks for: SERVING whenever the process answers,
 * as /healthz does. Never the dependencies: a database outage would otherwise fail every pod's
 * liveness probe and restart them all, which cures nothing. Not a proto service, so no clash.
 */
export const LIVENESS_SERVICE = "liveness";

/**
 * The gRPC health protocol (grpc.health.v1) answered from the same readiness checks as /readyz.
 * "" is the whole server (what Kubernetes' readiness probe asks); each registered service name
 * answers with the same status because every service of a process shares its dependencies;
 * LIVENESS_SERVICE answers whether the process is up at all.
 */
export function registerHealthService(router: ConnectRouter, readiness: Readiness, serviceNames: readonly string[]): void {
  const known = new Set(["", LIVENESS_SERVICE, ...serviceNames]);
  const status = async (service: string): Promise<Status> => {
    if (!known.has(service)) throw new ConnectError(`unknown service ${service}`, Code.NotFound);
    if (service === LIVENESS_SERVICE) return Status.SERVING;
    return (await readiness.report()).ready ? Status.SERVING : Status.NOT_SERVING;
  };

  router.service(Health, {
    async check(req) {
      return { status: await status(req.service) };
    },
    async *watch(req, ctx) {
      // Watch reports SERVICE_UNKNOWN instead of failing, as the protocol asks.
      let last: Status | undefined;
      while (!ctx.signal.aborted) {
        const current = known.has(req.service) ? await status(req.service) : Status.SERVICE_UNKNOWN;
        if (current !== last) yield { status: current };
        last = current;
        await sleep(WATCH_INTERVAL_MS, ctx.signal);
      }
      // A Watch never ends of itself: what stopped it (the deadline, DEADLINE_EXCEEDED, or the
      // caller's cancel, CANCELED) is its status. Returning would end it OK when the server's timer
      // for the deadline fires before the caller's.
      throw ConnectError.from(ctx.signal.reason);
    },
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
