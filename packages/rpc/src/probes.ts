import type { Readiness } from "./readiness";

/** The little of Node's HTTP/1.1 and HTTP/2 compatibility objects that the probes use. */
export interface Request {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
}
export interface Response {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/**
 * /healthz (the process is alive) and /readyz (its dependencies answer), served on the RPC port
 * for requests that are not RPCs, where the kubelet reaches them. Anything else is a plain 404:
 * /metrics has a port of its own (metrics-server.ts), so whoever may call the service cannot read
 * its internals.
 */
export type NonRpcHandler = (req: Request, res: Response) => Promise<void>;

export function probeHandler(readiness: Readiness): NonRpcHandler {
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
      default:
        return send(res, 404, "application/json", '{"status":"not_found"}');
    }
  };
}

/** Every non-RPC request on the admin listener: it serves operators' RPCs and nothing else. */
export async function notFound(_req: Request, res: Response): Promise<void> {
  send(res, 404, "application/json", '{"status":"not_found"}');
}

export function send(res: Response, status: number, contentType: string, body: string): void {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" });
  res.end(body);
}
