import type { CommonEnv } from "@tawsil/config";
import type { Logger } from "@tawsil/logging";
import type { CallerCheck } from "./caller-check";
import type { CallerPolicy } from "./caller-policy";
import { CallerVerifier } from "./caller-verifier";
import { ServiceIdentity } from "./service-identity";

/** A process's side of service identity: how it signs its calls and checks its callers. */
export interface ProcessIdentity {
  /** Signs this process's calls to peers; undefined when no key is configured (local runs only). */
  readonly self: ServiceIdentity | undefined;
  /** Checks callers against `policy`; undefined when no caller keys are configured (local runs only). */
  readonly callers: CallerCheck | undefined;
}

/**
 * Builds a process's identity from its configuration, once at start. In production both keys are
 * required and a process without them refuses to start; elsewhere a process without them signs
 * nothing and admits any caller, which a warning says (the tests' in-process stacks; `make dev`
 * and the e2e mesh configure keys).
 */
export function processIdentity(name: string, config: CommonEnv, logger: Logger, policy?: CallerPolicy): ProcessIdentity {
  const privateKey = config.SERVICE_IDENTITY_PRIVATE_KEY;
  const publicKeys = config.SERVICE_IDENTITY_PUBLIC_KEYS;
  const missing = [...(privateKey ? [] : ["SERVICE_IDENTITY_PRIVATE_KEY"]), ...(publicKeys || !policy ? [] : ["SERVICE_IDENTITY_PUBLIC_KEYS"])];
  if (missing.length > 0 && config.NODE_ENV === "production") {
    throw new Error(`service identity is required in production: set ${missing.join(" and ")}`);
  }
  if (missing.length > 0) logger.warn({ missing }, "service identity not configured: calls carry no token and callers are not checked");
  return {
    self: privateKey ? new ServiceIdentity(name, privateKey, Date.now, config.SERVICE_IDENTITY_TOKEN_KID ?? "key") : undefined,
    callers: publicKeys && policy ? { verifier: new CallerVerifier(name, publicKeys), policy } : undefined,
  };
}
