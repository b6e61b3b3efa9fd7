/**
 * The real gateway with no service behind it (every peer address refuses connections): for what
 * the gateway answers on its own, before any service is asked (framework refusals, body limits).
 */
import type { AddressInfo } from "node:net";
import { createLogger, initTracing } from "@tawsil/logging";
import { createMetrics } from "@tawsil/rpc";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import type { Registry } from "prom-client";
import { buildGateway } from "../../src/app";
import { readConfig, SERVICES } from "../../src/config";

export interface BareGateway {
  readonly base: string;
  readonly port: number;
  /** The gateway's metrics, as its /metrics serves them. */
  readonly registry: Registry;
  /** A request injected as if from `remoteAddress` (light-my-request), for what depends on the peer's address. */
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startBareGateway(env: Record<string, string> = {}): Promise<BareGateway> {
  initTracing();
  const logger = createLogger({ service: "gateway-test", level: "silent" });
  const config = readConfig({
    PORT: "0",
    PUBLIC_BASE_URL: "https://api.tawsil.test",
    // Required; buildGateway alone starts no revocation feed (main.ts does).
    KAFKA_BROKERS: "127.0.0.1:9092",
    ...Object.fromEntries(SERVICES.map((name) => [`${name.toUpperCase()}_SERVICE_URL`, "http://127.0.0.1:9"])),
    ...env,
  });
  const { registry } = createMetrics("gateway");
  const gateway: FastifyInstance = buildGateway({ config, logger, registry });
  // A route of the real app that only echoes, to reach body parsing without a token.
  gateway.post("/test/echo", async (request) => request.body);
  await gateway.listen({ host: "127.0.0.1", port: 0 });
  const port = (gateway.server.address() as AddressInfo).port;
  return { base: `http://127.0.0.1:${port}`, port, registry, inject: (options) => gateway.inject(options), close: () => gateway.close() };
}
