/** The services, each a process of its own that serves RPCs to its peers. */
export const SERVICES = ["merchant", "shipment", "pricing", "dispatch", "tracking", "webhook"] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * The services that own data, each in a database of its own. The others open none and count none
 * in their readiness: pricing's data (cities, service areas) ships with it in data/.
 */
export const SERVICES_WITH_DATABASE = ["merchant", "shipment", "dispatch", "tracking", "webhook"] as const satisfies readonly ServiceName[];
export type DatabaseServiceName = (typeof SERVICES_WITH_DATABASE)[number];

export const ownsDatabase = (name: ServiceName): name is DatabaseServiceName => (SERVICES_WITH_DATABASE as readonly ServiceName[]).includes(name);

/** The services with operators' RPCs, served on an admin listener of their own (ADMIN_PORT). */
export const ADMIN_SERVICES = ["merchant", "shipment", "dispatch", "tracking", "webhook"] as const satisfies readonly ServiceName[];
export type AdminServiceName = (typeof ADMIN_SERVICES)[number];

export const hasAdmin = (name: ServiceName): name is AdminServiceName => (ADMIN_SERVICES as readonly ServiceName[]).includes(name);

/**
 * Who signs service tokens, each with a key pair of its own: the gateway and the services (drivers
 * reach dispatch through the gateway's /v2/driver routes, so they sign nothing of ours).
 */
export const IDENTITIES = ["gateway", ...SERVICES] as const;
export type IdentityName = (typeof IDENTITIES)[number];

/**
 * The sandbox's simulated driver fleet (services/sandbox-fleet): a process, but not a peer of the
 * services (nothing calls it; no database, no broker, no service identity), so not one of SERVICES.
 */
export const FLEET = "sandbox-fleet";
