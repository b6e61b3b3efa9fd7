import http from "node:http";
import { listenOn } from "./listen";
import type { Registry } from "prom-client";
import { send } from "./probes";

export interface MetricsServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * GET /metrics (Prometheus text) on a port of its own, and nothing else: Prometheus scrapes it
 * inside the cluster while the service port, which peers and the gateway reach, shows no
 * internals. Plain HTTP/1.1, as scrapers speak it.
 */
export async function startMetricsServer(opts: { host: string; port: number; registry: Registry }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if ((req.method !== "GET" && req.method !== "HEAD") || path !== "/metrics") return send(res, 404, "application/json", '{"status":"not_found"}');
    opts.registry.metrics().then(
      (body) => send(res, 200, opts.registry.contentType, body),
      () => send(res, 500, "application/json", '{"status":"error"}'),
    );
  });
  // A scrape every 30 s: an idle keep-alive socket must not hold the close below.
  server.keepAliveTimeout = 5_000;
  const port = await listenOn(server, opts.port, opts.host);
  return {
    port,
    url: `http://${opts.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
