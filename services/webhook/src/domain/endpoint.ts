import { normaliseEventTypes, type EventType } from "./event-types";
import { StaleVersionError } from "./errors";

export type EndpointStatus = "ACTIVE" | "PAUSED";

/** How long the previous secret keeps signing after a rotation (delivery-api.md Limits). */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 3600_000;

/** The expected version that `If-Match: *` names: any current version matches (RFC 9110 section 13.1.1). */
export const ANY_VERSION = 0n;

/** How long a repeated registration answers with what the first committed (decisions.md section 3's 24 h). */
export const REGISTRATION_REPLAY_MS = 24 * 3600_000;

/** A merchant's single endpoint. Secrets are plain here; only the store seals them. */
export interface Endpoint {
  readonly id: string;
  readonly merchantId: string;
  readonly url: string;
  readonly status: EndpointStatus;
  readonly eventTypes: readonly EventType[];
  readonly version: bigint;
  readonly secret: string;
  readonly previousSecret: string | undefined;
  readonly previousSecretValidUntil: Date | undefined;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface EndpointChange {
  readonly url?: string;
  readonly status?: EndpointStatus;
  readonly eventTypes?: readonly EventType[];
}

export function newEndpoint(fields: { id: string; merchantId: string; url: string; eventTypes: readonly EventType[]; secret: string; now: Date }): Endpoint {
  return {
    id: fields.id,
    merchantId: fields.merchantId,
    url: fields.url,
    status: "ACTIVE",
    eventTypes: normaliseEventTypes(fields.eventTypes),
    version: 1n,
    secret: fields.secret,
    previousSecret: undefined,
    previousSecretValidUntil: undefined,
    createdAt: fields.now,
    updatedAt: fields.now,
  };
}

/** Every change names the version it was based on (If-Match), or ANY_VERSION; another version is refused. */
export function assertVersion(endpoint: Endpoint, expected: bigint): void {
  if (expected !== ANY_VERSION && endpoint.version !== expected) throw new StaleVersionError(expected, endpoint.version);
}

/**
 * The endpoint is what registering `url` for `eventTypes` committed, unchanged since (version 1),
 * at most REGISTRATION_REPLAY_MS ago: the same request again (a retry after an answer that was
 * lost, a 503 after the commit) answers with it instead of 409.
 */
export function isRegistrationOf(endpoint: Endpoint, url: string, eventTypes: readonly EventType[], now: Date): boolean {
  const types = normaliseEventTypes(eventTypes);
  return (
    endpoint.version === 1n &&
    endpoint.url === url &&
    endpoint.eventTypes.length === types.length &&
    endpoint.eventTypes.every((type, i) => type === types[i]) &&
    now.getTime() - endpoint.createdAt.getTime() < REGISTRATION_REPLAY_MS
  );
}

/**
 * The endpoint is what rotating at version `expected` committed, changed by nothing since (the
 * rotation's instant is still its last change) and within that rotation's 24 h: the same rotation
 * again (a retry after a lost answer) answers with its result instead of 412, and rotates nothing.
 */
export function isRotationFrom(endpoint: Endpoint, expected: bigint, now: Date): boolean {
  const until = endpoint.previousSecretValidUntil;
  return (
    expected !== ANY_VERSION &&
    endpoint.version === expected + 1n &&
    until !== undefined &&
    until.getTime() - PREVIOUS_SECRET_VALIDITY_MS === endpoint.updatedAt.getTime() &&
    until > now
  );
}

export function changeEndpoint(endpoint: Endpoint, expected: bigint, change: EndpointChange, now: Date): Endpoint {
  assertVersion(endpoint, expected);
  return {
    ...endpoint,
    url: change.url ?? endpoint.url,
    status: change.status ?? endpoint.status,
    eventTypes: change.eventTypes ? normaliseEventTypes(change.eventTypes) : endpoint.eventTypes,
    version: endpoint.version + 1n,
    updatedAt: now,
  };
}

/** The new secret signs from now on; the current one keeps signing for 24 hours. */
export function rotateSecret(endpoint: Endpoint, expected: bigint, secret: string, now: Date): Endpoint {
  assertVersion(endpoint, expected);
  return {
    ...endpoint,
    secret,
    previousSecret: endpoint.secret,
    previousSecretValidUntil: new Date(now.getTime() + PREVIOUS_SECRET_VALIDITY_MS),
    version: endpoint.version + 1n,
    updatedAt: now,
  };
}

/** The secrets a delivery made at `now` is signed with: the current one, then the previous while valid. */
export function signingSecrets(endpoint: Pick<Endpoint, "secret" | "previousSecret" | "previousSecretValidUntil">, now: Date): string[] {
  const previous = endpoint.previousSecret && endpoint.previousSecretValidUntil && endpoint.previousSecretValidUntil > now ? [endpoint.previousSecret] : [];
  return [endpoint.secret, ...previous];
}
