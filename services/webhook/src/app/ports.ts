import type { Endpoint } from "../domain/endpoint";
import type { WebhookEvent } from "../domain/webhook-event";

/** The time the service reads; tests control it to compress hours of retries. */
export interface Clock {
  now(): Date;
}

/** An address a receiver's name resolved to, as the connection will use it. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Name resolution: every address of a host name (empty when the name does not exist); DependencyUnavailableError when the resolver cannot say. */
export interface Resolver {
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

/** The endpoint row and what the locked-modification callback may consult. */
export interface LockedEndpoint {
  readonly endpoint: Endpoint;
  /** Rotations of this merchant at or after `since`, oldest first. */
  rotationsSince(since: Date): Promise<Date[]>;
}

export interface Modification {
  readonly endpoint: Endpoint;
  /** Counts a rotation at this instant for the hourly limit. */
  readonly rotatedAt?: Date;
  /** Nothing to store: the endpoint is answered as it is (a replayed rotation). */
  readonly unchanged?: boolean;
}

export interface EndpointStore {
  find(merchantId: string): Promise<Endpoint | undefined>;
  /** Throws AlreadyExistsError("webhook") when the merchant has one. */
  insert(endpoint: Endpoint): Promise<void>;
  /** Runs `modify` on the merchant's endpoint under a row lock and stores what it returns; NotFoundError("webhook") when none. */
  modify(merchantId: string, modify: (locked: LockedEndpoint) => Promise<Modification>): Promise<Endpoint>;
  /** Deletes the endpoint at `expectedVersion` with its queue; NotFoundError or StaleVersionError otherwise. */
  remove(merchantId: string, expectedVersion: bigint): Promise<void>;
}

/** Where an event is queued, inside the consumer's transaction. */
export interface QueueWriter {
  /** The merchant's endpoint, if any, for deciding whether the event is due. */
  endpointOf(merchantId: string): Promise<Pick<Endpoint, "id" | "eventTypes"> | undefined>;
  /** Queues the event, due at `dueAt`; false when this (endpoint, shipment, sequence) was queued before. */
  enqueue(endpointId: string, shipmentId: string, event: WebhookEvent, occurredAt: Date, dueAt: Date): Promise<boolean>;
}

/** A queued delivery claimed for one attempt by one worker. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly claimToken: string;
  /** 1-based number of the attempt being made. */
  readonly attempt: number;
  readonly body: string;
  readonly eventType: string;
  readonly occurredAt: Date;
  /** W3C traceparent of the change that queued it, when it was queued inside a trace. */
  readonly traceParent?: string;
  readonly url: string;
  readonly secrets: Pick<Endpoint, "secret" | "previousSecret" | "previousSecretValidUntil">;
}

export type AttemptOutcome =
  | { readonly kind: "delivered" }
  | { readonly kind: "retry"; readonly at: Date; readonly error: string }
  | { readonly kind: "exhausted"; readonly error: string };

export interface AttemptRecord {
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | undefined;
  /** DELIVERED, HTTP_<status>, REDIRECT, TIMEOUT, TRANSPORT, DNS_FAILURE, ADDRESS_REFUSED. */
  readonly outcome: string;
}

export interface CompletedAttempt {
  readonly claim: ClaimedDelivery;
  readonly record: AttemptRecord;
  readonly outcome: AttemptOutcome;
}

/** The durable queue that every replica shares. */
export interface DeliveryQueue {
  /** Claims up to `limit` due deliveries of ACTIVE endpoints, leasing each for `leaseMs`; no two callers get the same row. */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records each attempt and its outcome, together; one whose claim was lost (its lease expired and another worker took it) is ignored. */
  complete(results: readonly CompletedAttempt[]): Promise<void>;
  /** When the earliest pending delivery of an ACTIVE endpoint is due, if any. */
  nextDueAt(): Promise<Date | undefined>;
  /** Pending deliveries. */
  depth(): Promise<number>;
}

/** One HTTP request to a receiver, connected to `address` exactly. */
export interface ReceiverRequest {
  readonly url: URL;
  readonly address: ResolvedAddress;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly timeoutMs: number;
}

export type ReceiverAnswer =
  | { readonly kind: "answered"; readonly status: number; readonly retryAfter: string | undefined }
  | { readonly kind: "timeout" }
  | { readonly kind: "transport" };

export interface Receiver {
  send(request: ReceiverRequest): Promise<ReceiverAnswer>;
}

/** What the engine reports for metrics. */
export interface DeliveryObserver {
  attempted(outcome: string, statusCode: number | undefined): void;
  firstAttemptLag(seconds: number): void;
}
