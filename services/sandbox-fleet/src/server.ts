import type { Logger } from "@tawsil/logging";
import { createMetrics, type ServiceSpec } from "@tawsil/rpc";
import { TawsilDriverClient } from "@tawsil/sdk";
import { Fleet } from "./app/fleet";
import type { Config } from "./config";
import { driverAppOver } from "./infra/driver-app";
import { fleetAdminOver } from "./infra/fleet-admin";
import { fleetMetricsIn } from "./infra/fleet-metrics";
import { systemClock } from "./infra/system-clock";

/** How long a start that could not reach the admin listeners waits before it tries again. */
const START_RETRY_MS = 2_000;

/** The refusal of any environment but the sandbox: production's drivers are real people. */
export class NotSandboxError extends Error {
  override readonly name = "NotSandboxError";
  constructor(environment: string) {
    super(`the sandbox fleet runs only where TAWSIL_ENVIRONMENT=sandbox (this is ${environment}): in production every driver is a real one`);
  }
}

/** The fleet from its configuration: drivers drive through the gateway, the fleet is managed through the admin listeners. */
export function composeFleet(config: Config, logger: Logger, metrics = createMetrics("sandbox-fleet")): Fleet {
  if (config.TAWSIL_ENVIRONMENT !== "sandbox") throw new NotSandboxError(config.TAWSIL_ENVIRONMENT);
  return new Fleet({
    cities: config.FLEET_CITIES,
    admin: fleetAdminOver({ dispatch: config.DISPATCH_ADMIN_URL, merchant: config.MERCHANT_ADMIN_URL, shipment: config.SHIPMENT_ADMIN_URL }, config.ADMIN_TIMEOUT_MS),
    appFor: (account) => driverAppOver(new TawsilDriverClient({ baseUrl: config.GATEWAY_URL, clientId: account.clientId, clientSecret: account.clientSecret })),
    rules: {
      baseline: config.FLEET_DRIVERS_PER_SERVICE,
      cap: config.FLEET_MAX_DRIVERS_PER_SERVICE,
      reserve: config.FLEET_RESERVE_DRIVERS_PER_SERVICE,
      recentMs: config.FLEET_RECENT_DEMAND_MS,
      idleOffShiftMs: config.FLEET_IDLE_OFF_SHIFT_MS,
    },
    driving: {
      speedKmh: config.FLEET_SPEED_KMH,
      failureRate: config.FLEET_FAILURE_RATE,
      tickMs: config.FLEET_TICK_MS,
      fixIntervalMs: config.FLEET_FIX_INTERVAL_MS,
      acceptDelayMs: config.FLEET_ACCEPT_DELAY_MS,
      random: Math.random,
    },
    clock: systemClock,
    logger,
    metrics: fleetMetricsIn(metrics.registry),
  });
}

/**
 * The whole process as main.ts runs it: no RPCs of its own, only /healthz, /readyz (ready once
 * every pair's baseline is on shift) and /metrics. The fleet starts in the background, trying
 * again until the admin listeners answer; SIGTERM stops its drivers and leaves them on shift, so
 * the next process resumes them and their jobs.
 */
export async function fleetProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const metrics = createMetrics("sandbox-fleet");
  const fleet = composeFleet(config, logger, metrics);
  let stopping = false;
  const starting = (async () => {
    while (!stopping) {
      try {
        return await fleet.start();
      } catch (err) {
        logger.warn({ err }, "sandbox fleet: the admin listeners did not answer; starting again shortly");
        await systemClock.sleep(START_RETRY_MS);
      }
    }
  })();
  const onDuty = {
    name: "fleet-on-duty",
    async check(): Promise<void> {
      if (!fleet.onDuty) throw new Error("the fleet's drivers are not on shift yet");
    },
  };
  const close = async () => {
    stopping = true;
    await starting;
    await fleet.close();
  };
  return { name: "sandbox-fleet", config, logger, metrics, checks: [onDuty], closers: [{ name: "fleet", close }] };
}
