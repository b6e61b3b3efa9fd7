import type { ServiceName } from "./config";
import type { PeerStatus } from "./peers/peer-health";

type Status = "up" | "down";

export interface GatewayReadinessReport {
  readonly ready: boolean;
  /** What this process needs to serve at all. */
  readonly checks: { readonly signingKeys: Status };
  /** What the gateway knows of each service now (an operator's view; it gates nothing). */
  readonly services: Record<ServiceName, PeerStatus>;
}

/** The issuer's keys, as far as readiness cares. */
interface Keys {
  readonly loaded: boolean;
  refresh(): Promise<void>;
}

/**
 * The gateway's /readyz (the Kubernetes readinessProbe): ready when this process can serve, which
 * is once it holds the signing keys that verify tokens. Not the mesh's health: a service that is
 * down fails only the routes that call it (503 with Retry-After), and the broker is no concern of
 * the gateway's readiness at all. Draining needs no flag: once closing, fastify answers 503 to
 * every request (return503OnClosing), this probe included. Asks no peer: the services' statuses
 * are what the health watch last learned, so the probe answers at once whatever the mesh does.
 */
export function gatewayReadiness(keys: Keys, services: () => Record<ServiceName, PeerStatus>): () => GatewayReadinessReport {
  return () => {
    // Until the issuer has answered once, each probe asks again in the background (coalesced).
    if (!keys.loaded) keys.refresh().catch(() => {});
    return { ready: keys.loaded, checks: { signingKeys: keys.loaded ? "up" : "down" }, services: services() };
  };
}
