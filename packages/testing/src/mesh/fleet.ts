/**
 * The sandbox fleet in the mesh (services/sandbox-fleet): not a peer of the services (nothing calls
 * it, it has no database and no broker), so it is not one of SERVICES; it starts once the others
 * are ready, and drives through the gateway and manages its drivers through the admin listeners.
 */
import path from "node:path";
import { FLEET } from "@tawsil/topology";
import { freePort } from "../free-port";

/** The fleet's own two ports: /healthz and /readyz, and /metrics. */
export interface FleetPorts {
  readonly port: number;
  readonly metricsPort: number;
}

export async function fleetPorts(given: FleetPorts | undefined): Promise<FleetPorts> {
  return given ?? { port: await freePort(), metricsPort: await freePort() };
}

/** Its settings: where the gateway and the admin listeners are, plus the caller's (its FLEET_* rates, say). */
export function fleetEnv(gatewayPort: number, adminPorts: { dispatch: number; merchant: number; shipment: number }, env: Record<string, string> | undefined): Record<string, string> {
  return {
    GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
    DISPATCH_ADMIN_URL: `http://127.0.0.1:${adminPorts.dispatch}`,
    MERCHANT_ADMIN_URL: `http://127.0.0.1:${adminPorts.merchant}`,
    SHIPMENT_ADMIN_URL: `http://127.0.0.1:${adminPorts.shipment}`,
    ...env,
  };
}

export const fleetDir = (root: string) => path.join(root, "services", FLEET);
