import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createLogger, initTracing } from "@tawsil/logging";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { afterEach, describe, expect, it } from "vitest";
import { startInProcess, type InProcessService } from "../src/index";

initTracing();
const logger = createLogger({ service: "test", level: "silent" });

let running: InProcessService | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A process with one admin service (any descriptor will do: the listener, not the RPC, is under test). */
function start(config: Record<string, unknown>) {
  return startInProcess({
    name: "test",
    config: { NODE_ENV: "test", TAWSIL_ENVIRONMENT: "sandbox", LOG_LEVEL: "silent", HOST: "127.0.0.1", PORT: 0, SHUTDOWN_GRACE_MS: 50, ...config },
    logger,
    checks: [],
    closers: [],
    admin: {
      routes: (router) => void router.service(ShipmentAdminService, { listPendingShipments: async () => ({ shipments: [] }) }),
      serviceNames: [ShipmentAdminService.typeName],
    },
  });
}

const adminOver = (url: string) => createClient(ShipmentAdminService, createConnectTransport({ baseUrl: url, httpVersion: "2" }));

describe("a service's listeners", () => {
  it("serves admin RPCs on the admin listener only: the service port answers them as unimplemented", async () => {
    running = await start({});
    expect(running.adminUrl).toBeDefined();
    expect(running.adminUrl).not.toBe(running.url);
    expect(await adminOver(running.adminUrl!).listPendingShipments({})).toMatchObject({ shipments: [] });
    const refused = await adminOver(running.url).listPendingShipments({}).catch((e: unknown) => ConnectError.from(e));
    expect(refused).toMatchObject({ code: Code.Unimplemented });
    // The admin listener answers the health protocol for its own services, and serves nothing over plain HTTP.
    const health = createClient(Health, createConnectTransport({ baseUrl: running.adminUrl!, httpVersion: "2" }));
    expect((await health.check({ service: ShipmentAdminService.typeName })).status).toBe(Status.SERVING);
    expect((await fetch(`${running.adminUrl}/healthz`)).status).toBe(404);
  });

  it("binds the admin listener to loopback by default, even when the service port listens on every interface", async () => {
    running = await start({ HOST: "0.0.0.0" });
    expect(new URL(running.url).hostname).toBe("0.0.0.0");
    expect(new URL(running.adminUrl!).hostname).toBe("127.0.0.1");
  });

  it("binds the admin listener where ADMIN_HOST and ADMIN_PORT say", async () => {
    const probe = await start({});
    const port = Number(new URL(probe.adminUrl!).port);
    await probe.close();
    running = await start({ ADMIN_HOST: "127.0.0.1", ADMIN_PORT: port });
    expect(running.adminUrl).toBe(`http://127.0.0.1:${port}`);
  });

  it("serves /metrics on the metrics port, and not on the service port", async () => {
    running = await start({});
    const scrape = await fetch(`${running.metricsUrl}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain("process_cpu_user_seconds_total");
    expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${running.metricsUrl}/healthz`)).status).toBe(404);
  });

  it("starts no admin listener for a service without admin RPCs", async () => {
    running = await startInProcess({
      name: "plain",
      config: { NODE_ENV: "test", TAWSIL_ENVIRONMENT: "sandbox", LOG_LEVEL: "silent", HOST: "127.0.0.1", PORT: 0, SHUTDOWN_GRACE_MS: 50 },
      logger,
      checks: [],
      closers: [],
    });
    expect(running.adminUrl).toBeUndefined();
  });
});
