import { randomUUID } from "node:crypto";
import { AlreadyExistsError, NotFoundError } from "@tawsil/errors";
import { changeEndpoint, isRegistrationOf, isRotationFrom, newEndpoint, rotateSecret, type Endpoint, type EndpointChange } from "../domain/endpoint";
import { parseEndpointUrl } from "../domain/endpoint-url";
import { EVENT_TYPES, type EventType } from "../domain/event-types";
import { RotationLimitedError } from "../domain/errors";
import { newSigningSecret } from "../domain/signature";
import type { Clock, EndpointStore, Resolver } from "./ports";
import { checkedAddress, type AddressPolicy } from "./receiver-address";

export interface ManageEndpointDeps {
  readonly store: EndpointStore;
  readonly resolver: Resolver;
  readonly clock: Clock;
  readonly policy: AddressPolicy;
  /** Rotations allowed per merchant per window (decisions.md section 14: 5 per hour). */
  readonly rotationQuota: number;
  readonly rotationWindowSeconds: number;
}

/** Registration, reads and changes of a merchant's single endpoint (decisions.md section 11). */
export class ManageEndpoint {
  constructor(private readonly deps: ManageEndpointDeps) {}

  /**
   * Registers, or answers a repeated registration (same url and events, endpoint unchanged, within
   * 24 h) with what the first committed, its secret included: a merchant whose first attempt
   * answered 503 after the commit retries safely. Any other registration while one exists is 409.
   */
  async register(merchantId: string, url: string, eventTypes: readonly EventType[]): Promise<{ endpoint: Endpoint; secret: string }> {
    const types = eventTypes.length > 0 ? eventTypes : EVENT_TYPES;
    const existing = await this.#registered(merchantId, url, types);
    if (existing) return existing;
    const checkedUrl = await this.#checkUrl(url);
    const secret = newSigningSecret();
    const endpoint = newEndpoint({ id: randomUUID(), merchantId, url: checkedUrl, eventTypes: types, secret, now: this.deps.clock.now() });
    try {
      await this.deps.store.insert(endpoint);
    } catch (error) {
      // The same registration, sent twice at once: the one that lost the insert answers the winner's.
      if (error instanceof AlreadyExistsError) return (await this.#registered(merchantId, url, types)) ?? Promise.reject(error);
      throw error;
    }
    return { endpoint, secret };
  }

  /** The merchant's endpoint when it is this registration's result; 409 when another one exists. */
  async #registered(merchantId: string, url: string, eventTypes: readonly EventType[]): Promise<{ endpoint: Endpoint; secret: string } | undefined> {
    const existing = await this.deps.store.find(merchantId);
    if (!existing) return undefined;
    if (!isRegistrationOf(existing, url, eventTypes, this.deps.clock.now())) throw new AlreadyExistsError("webhook", merchantId);
    return { endpoint: existing, secret: existing.secret };
  }

  async get(merchantId: string): Promise<Endpoint> {
    const endpoint = await this.deps.store.find(merchantId);
    if (!endpoint) throw new NotFoundError("webhook");
    return endpoint;
  }

  async update(merchantId: string, expectedVersion: bigint, change: EndpointChange): Promise<Endpoint> {
    const url = change.url === undefined ? undefined : await this.#checkUrl(change.url);
    return this.deps.store.modify(merchantId, async ({ endpoint }) => {
      const at = this.deps.clock.now();
      return { endpoint: changeEndpoint(endpoint, expectedVersion, { ...change, ...(url === undefined ? {} : { url }) }, at), at };
    });
  }

  remove(merchantId: string, expectedVersion: bigint): Promise<void> {
    return this.deps.store.remove(merchantId, expectedVersion);
  }

  /**
   * The version is checked before the quota, so a stale If-Match costs no rotation. The same
   * rotation again (If-Match of the version it rotated, nothing changed since) answers with its
   * result and rotates nothing, so a retry after a 503 that had committed is safe.
   */
  async rotate(merchantId: string, expectedVersion: bigint): Promise<{ endpoint: Endpoint; secret: string }> {
    const fresh = newSigningSecret();
    const { rotationQuota: quota, rotationWindowSeconds: windowSeconds } = this.deps;
    const endpoint = await this.deps.store.modify(merchantId, async ({ endpoint: current, rotationsSince }) => {
      const now = this.deps.clock.now();
      if (isRotationFrom(current, expectedVersion, now)) return { endpoint: current, unchanged: true };
      const rotated = rotateSecret(current, expectedVersion, fresh, now);
      const recent = await rotationsSince(new Date(now.getTime() - windowSeconds * 1000));
      const oldest = recent[0];
      if (recent.length >= quota && oldest) {
        const retryAfter = Math.max(1, Math.ceil((oldest.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
        throw new RotationLimitedError(retryAfter, quota, windowSeconds);
      }
      return { endpoint: rotated, rotatedAt: now };
    });
    return { endpoint, secret: endpoint.secret };
  }

  async #checkUrl(raw: string): Promise<string> {
    const url = parseEndpointUrl(raw, { allowHttp: this.deps.policy.allowInsecure });
    await checkedAddress(url, this.deps.resolver, this.deps.policy);
    return raw;
  }
}
