import type { Registry } from "prom-client";
import type { Readiness } from "./readiness";

/** The little of Node's HTTP/1.1 and HTTP/2 compatibility objects that the probes use. */
interface Request {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
}
interface Response {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/**
 * /healthz (the process is alive), /readyz (its dependencies answer) and /metrics (Prometheus),
 * served on the RPC port for requests that are not RPCs. Anything else is a plain 404.
 */
export function probeHandler(readiness: Readiness, registry: Registry) {
  return async (req: Request, res: Response): Promise<void> => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 404, "application/json", '{"status":"not_found"}');
    switch (path) {
      case "/healthz":
        return send(res, 200, "application/json", '{"status":"ok"}');
      case "/readyz": {
        const report = await readiness.report();
        const body = JSON.stringify({ status: report.ready ? "ready" : "not_ready", checks: report.checks });
        return send(res, report.ready ? 200 : 503, "application/json", body);
      }
      case "/metrics":
        return send(res, 200, registry.contentType, await registry.metrics());
      default:
        return send(res, 404, "application/json", '{"status":"not_found"}');
    }
  };
}

function send(res: Response, status: number, contentType: string, body: string): void {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" });
  res.end(body);
}
