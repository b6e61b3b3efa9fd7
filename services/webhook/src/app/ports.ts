import type { Endpoint } from "../domain/endpoint";
import type { EventType } from "../domain/event-types";
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
  /** When the change is made: a resume drops the held events older than 24 h at this instant. */
  readonly at?: Date;
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

/** Which events a merchant's endpoint would not take, known without a transaction (most merchants have none). */
export interface EventRoutes {
  /** True only when sure: an event of `type` for this merchant would queue nothing. */
  ignores(merchantId: string, type: EventType): Promise<boolean>;
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
  readonly endpointId: string;
  /** When the claim lapses and another worker may make this attempt: no send starts close to it. */
  readonly leaseUntil: Date;
  /** 1-based number of the attempt being made. */
  readonly attempt: number;
  readonly body: string;
  readonly eventType: string;
  readonly occurredAt: Date;
  /** W3C traceparent of the change that queued it, when it was queued inside a trace. */
  readonly traceParent?: string;
  readonly url: string;
  /** Undefined when the endpoint's sealed secret cannot be opened (the key changed): this attempt fails alone, unsent. */
  readonly secrets: Pick<Endpoint, "secret" | "previousSecret" | "previousSecretValidUntil"> | undefined;
}

/** What one claim may take: free slots of the replica's pool and of each endpoint. */
export interface ClaimRequest {
  readonly limit: number;
  readonly leaseMs: number;
  /** Sends in flight per endpoint allowed on this replica. */
  readonly perEndpoint: number;
  /** Sends this replica has in flight, by endpoint id. */
  readonly busy: ReadonlyMap<string, number>;
  /** The replica claiming (WEBHOOK_REPLICA_ID, else one name per start), recorded on each row it claims. */
  readonly holder: string;
}

export type AttemptOutcome =
  | { readonly kind: "delivered" }
  | { readonly kind: "retry"; readonly at: Date; readonly error: string }
  | { readonly kind: "exhausted"; readonly error: string };

export interface AttemptRecord {
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | undefined;
  /** DELIVERED, HTTP_<status>, REDIRECT, TIMEOUT, TRANSPORT, DNS_FAILURE, ADDRESS_REFUSED, SECRET_UNREADABLE. */
  readonly outcome: string;
}

export interface CompletedAttempt {
  readonly claim: ClaimedDelivery;
  readonly record: AttemptRecord;
  readonly outcome: AttemptOutcome;
}

/** The durable queue that every replica shares. */
export interface DeliveryQueue {
  /**
   * Claims up to `limit` due deliveries of ACTIVE endpoints, oldest first, at most `perEndpoint`
   * minus `busy` of each endpoint, leasing each for `leaseMs`; no two callers get the same row.
   */
  claimDue(now: Date, request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /**
   * Claims up to `limit` due deliveries of one endpoint (if ACTIVE), oldest first, as claimDue
   * would: a capped endpoint's freed slot refilled without reading any other endpoint's rows.
   */
  claimDueOf(endpointId: string, now: Date, request: Pick<ClaimRequest, "limit" | "leaseMs" | "holder">): Promise<ClaimedDelivery[]>;
  /** Records each attempt and its outcome, together; one whose claim was lost (its lease expired and another worker took it) is ignored. */
  complete(results: readonly CompletedAttempt[]): Promise<void>;
  /** Gives back claims that were not attempted (too little lease left): due again at `now`, the attempt not counted. */
  release(claims: readonly ClaimedDelivery[], now: Date): Promise<void>;
  /** Makes due at `now` every claim `holder` still holds: that replica died and was started again (nothing of it is in flight). Returns how many. */
  recoverClaims(holder: string, now: Date): Promise<number>;
  /**
   * Gives back, due at `now` and their attempt not counted, the claims `holder` holds other than
   * `kept`: a claim that failed on the way back (the connection lost as it committed) left rows
   * leased to `holder` whose tokens it never learnt and so never sent. Returns how many.
   */
  releaseUnknownClaims(holder: string, now: Date, kept: readonly string[]): Promise<number>;
  /** When the earliest pending delivery of an ACTIVE endpoint, other than `excluded` endpoints', is due, if any. */
  nextDueAt(excluded: readonly string[]): Promise<Date | undefined>;
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
  /** Attempts of this replica by stage (resolving, sending, recording), changed by `delta`. */
  inFlight(stage: AttemptStage, delta: number): void;
}

export type AttemptStage = "resolving" | "sending" | "recording";
