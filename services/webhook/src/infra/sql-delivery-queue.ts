import { context, propagation } from "@opentelemetry/api";
import type { SqlClient } from "@tawsil/events";
import type { WebhookEvent } from "../domain/webhook-event";
import type { ClaimedDelivery, ClaimRequest, CompletedAttempt, DeliveryQueue, QueueWriter } from "../app/ports";
import { readRoute, type EndpointRoutes } from "./endpoint-routes";
import type { SecretBox } from "./secret-box";

/*
 * Claiming reads the partial index of due, claimable rows (PENDING, not held by a pause: migration
 * claimable_index), oldest first, skipping endpoints this replica has at their cap, and keeps at
 * most each endpoint's free slots of what it read; then it takes those rows with FOR UPDATE SKIP
 * LOCKED, so concurrent replicas each get different rows, and in the same statement counts the
 * attempt, moves next_attempt_at to the lease's end and sets a fresh claim token. The send happens
 * after that commits; a worker that dies mid-send leaves the row to be claimed again when the
 * lease ends. The window read is the limit times the cap: enough that one endpoint's backlog at
 * the head of the queue cannot fill a claim with rows it may not take.
 */
const CLAIM = `
WITH candidate AS (
  SELECT d.id, d.endpoint_id, d.next_attempt_at FROM webhook_delivery d
  WHERE d.status = 'PENDING' AND NOT d.held AND d.next_attempt_at <= $1 AND d.endpoint_id <> ALL($4::uuid[])
  ORDER BY d.next_attempt_at
  LIMIT $5
), ranked AS (
  SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at) AS rank, $6::int - COALESCE(b.busy, 0) AS free
  FROM candidate c LEFT JOIN unnest($7::uuid[], $8::int[]) AS b(endpoint_id, busy) ON b.endpoint_id = c.endpoint_id
), due AS (
  SELECT d.id FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id
  WHERE d.id IN (SELECT id FROM ranked WHERE rank <= free ORDER BY next_attempt_at LIMIT $2)
    AND d.status = 'PENDING' AND NOT d.held AND d.next_attempt_at <= $1 AND e.status = 'ACTIVE'
  FOR UPDATE OF d SKIP LOCKED
)
${claimRows("$1", "$3", "$9")}`;

/*
 * The claim of one endpoint's freed slot: its oldest due rows from its own slice of the claimable
 * index (endpoint_id, next_attempt_at), taken as CLAIM takes them.
 */
const CLAIM_OF_ENDPOINT = `
WITH due AS (
  SELECT d.id FROM webhook_delivery d
  WHERE d.endpoint_id = $2::uuid AND d.status = 'PENDING' AND NOT d.held AND d.next_attempt_at <= $1
    AND EXISTS (SELECT 1 FROM webhook_endpoint e WHERE e.id = $2::uuid AND e.status = 'ACTIVE')
  ORDER BY d.next_attempt_at
  LIMIT $4
  FOR UPDATE OF d SKIP LOCKED
)
${claimRows("$1", "$3", "$5")}`;

/**
 * Leases the `due` rows: counts the attempt, moves next_attempt_at to the lease's end, sets a
 * fresh claim token and the holder. What the send needs of the endpoint (url, sealed secrets)
 * comes back with each row: no second statement per claim.
 */
function claimRows(now: string, leaseUntil: string, holder: string): string {
  return `UPDATE webhook_delivery d
SET attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}, claim_token = gen_random_uuid(), claimed_by = ${holder}, first_attempt_at = COALESCE(d.first_attempt_at, ${now})
FROM due, webhook_endpoint e WHERE d.id = due.id AND e.id = d.endpoint_id
RETURNING d.id, d.claim_token::text AS claim_token, d.attempts, d.payload, d.event_type, d.occurred_at, d.endpoint_id::text AS endpoint_id, d.trace_parent,
  e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_valid_until`;
}

/* A claim given back unsent: due now, its attempt not counted, if it is still ours. */
const RELEASE = `
UPDATE webhook_delivery SET attempts = attempts - 1, next_attempt_at = $3, claim_token = NULL
WHERE id = ANY($1::uuid[]) AND claim_token = ANY($2::uuid[]) AND status = 'PENDING'`;

/*
 * What a replica held when it died, taken back by the same replica started again: due now, the
 * attempt counted (it may have been sent), the claim no one's, so the claim that follows makes the
 * next attempt. Only rows still claimed by that replica name: one another replica took after the
 * lease carries that replica's name.
 */
const RECOVER = `
UPDATE webhook_delivery SET next_attempt_at = $2, claim_token = NULL, claimed_by = NULL
WHERE claimed_by = $1 AND claim_token IS NOT NULL AND status = 'PENDING'`;

/*
 * Claims of one replica that it never received (its claim committed and the answer was lost): due
 * now, the attempt not counted, as nothing was sent. `kept` names what it holds and knows of: its
 * sends in flight, and sends made whose outcome it could not record (those wait for their lease).
 */
const RELEASE_UNKNOWN = `
UPDATE webhook_delivery SET attempts = attempts - 1, next_attempt_at = $2, claim_token = NULL
WHERE claimed_by = $1 AND claim_token IS NOT NULL AND status = 'PENDING' AND id <> ALL($3::uuid[])`;

/* Records each outcome only while its claim is still ours, and its attempt, in one statement per batch. */
const COMPLETE = `
WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::text[], $7::timestamptz[], $8::int[], $9::int[], $10::text[])
    AS t(id, token, status, next_at, completed_at, error, started_at, duration_ms, status_code, outcome)
), done AS (
  UPDATE webhook_delivery d
  SET status = i.status::delivery_status, next_attempt_at = i.next_at, claim_token = NULL, completed_at = i.completed_at, last_error = i.error
  FROM input i WHERE d.id = i.id AND d.claim_token = i.token
  RETURNING d.id, d.attempts
)
INSERT INTO webhook_attempt (delivery_id, number, started_at, duration_ms, status_code, outcome)
SELECT done.id, done.attempts, i.started_at, i.duration_ms, i.status_code, i.outcome FROM done JOIN input i ON i.id = done.id`;

/* The claim's own index and conditions, so what it answers is what a claim would take. */
const NEXT_DUE = `
SELECT d.next_attempt_at AS at FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id
WHERE d.status = 'PENDING' AND NOT d.held AND e.status = 'ACTIVE' AND d.endpoint_id <> ALL($1::uuid[])
ORDER BY d.next_attempt_at LIMIT 1`;

/* An event of a PAUSED endpoint is queued held (outside the claim index) until the resume. */
const ENQUEUE = `
INSERT INTO webhook_delivery (id, endpoint_id, shipment_id, sequence, event_type, payload, status, next_attempt_at, occurred_at, created_at, trace_parent, held)
SELECT $1::uuid, e.id, $3::uuid, $4, $5, $6, 'PENDING', $7, $8, $7, $9, e.status = 'PAUSED'
FROM (SELECT id, status FROM webhook_endpoint WHERE id = $2::uuid FOR SHARE) e
ON CONFLICT (endpoint_id, shipment_id, sequence) DO NOTHING`;

interface ClaimedRow {
  id: string;
  claim_token: string;
  attempts: number;
  payload: string;
  event_type: string;
  occurred_at: Date;
  endpoint_id: string;
  trace_parent: string | null;
  url: string;
  secret_sealed: Uint8Array;
  previous_secret_sealed: Uint8Array | null;
  previous_secret_valid_until: Date | null;
}

/**
 * The queue on raw SQL: the service gives it the pool directly (ServiceDatabase.sql), since claims,
 * completions and releases run once per delivery (issue 34).
 */
export class SqlDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly db: SqlClient,
    private readonly box: SecretBox,
  ) {}

  async claimDue(now: Date, request: ClaimRequest): Promise<ClaimedDelivery[]> {
    const busy = [...request.busy];
    const full = busy.filter(([, n]) => n >= request.perEndpoint).map(([id]) => id);
    const leaseUntil = new Date(now.getTime() + request.leaseMs);
    const window = Math.min(request.limit * request.perEndpoint, 10_000);
    const rows = await this.db.$queryRawUnsafe<ClaimedRow[]>(CLAIM, now, request.limit, leaseUntil, full, window, request.perEndpoint, busy.map(([id]) => id), busy.map(([, n]) => n), request.holder);
    return this.#claimed(rows, leaseUntil);
  }

  async claimDueOf(endpointId: string, now: Date, request: Pick<ClaimRequest, "limit" | "leaseMs" | "holder">): Promise<ClaimedDelivery[]> {
    const leaseUntil = new Date(now.getTime() + request.leaseMs);
    const rows = await this.db.$queryRawUnsafe<ClaimedRow[]>(CLAIM_OF_ENDPOINT, now, endpointId, leaseUntil, request.limit, request.holder);
    return this.#claimed(rows, leaseUntil);
  }

  #claimed(rows: readonly ClaimedRow[], leaseUntil: Date): ClaimedDelivery[] {
    return rows.map((row) => ({
      id: row.id,
      claimToken: row.claim_token,
      endpointId: row.endpoint_id,
      leaseUntil,
      attempt: Number(row.attempts),
      body: row.payload,
      eventType: row.event_type,
      occurredAt: row.occurred_at,
      traceParent: row.trace_parent ?? undefined,
      url: row.url,
      secrets: this.#secretsOf(row),
    }));
  }

  /** Opened per row: an endpoint whose secret does not open fails its own attempt (SECRET_UNREADABLE), not the claim. */
  #secretsOf(row: ClaimedRow): ClaimedDelivery["secrets"] {
    try {
      return {
        secret: this.box.open(row.secret_sealed, row.endpoint_id),
        previousSecret: row.previous_secret_sealed ? this.box.open(row.previous_secret_sealed, row.endpoint_id) : undefined,
        previousSecretValidUntil: row.previous_secret_valid_until ?? undefined,
      };
    } catch {
      return undefined;
    }
  }

  async complete(results: readonly CompletedAttempt[]): Promise<void> {
    if (results.length === 0) return;
    const column = <T>(pick: (r: CompletedAttempt) => T) => results.map(pick);
    await this.db.$executeRawUnsafe(
      COMPLETE,
      column((r) => r.claim.id),
      column((r) => r.claim.claimToken),
      column((r) => (r.outcome.kind === "delivered" ? "DELIVERED" : r.outcome.kind === "exhausted" ? "EXHAUSTED" : "PENDING")),
      column((r) => (r.outcome.kind === "retry" ? r.outcome.at : r.record.startedAt)),
      column((r) => (r.outcome.kind === "retry" ? null : new Date(r.record.startedAt.getTime() + r.record.durationMs))),
      column((r) => (r.outcome.kind === "delivered" ? null : r.outcome.error)),
      column((r) => r.record.startedAt),
      column((r) => r.record.durationMs),
      column((r) => r.record.statusCode ?? null),
      column((r) => r.record.outcome),
    );
  }

  async release(claims: readonly ClaimedDelivery[], now: Date): Promise<void> {
    if (claims.length === 0) return;
    await this.db.$executeRawUnsafe(RELEASE, claims.map((c) => c.id), claims.map((c) => c.claimToken), now);
  }

  async recoverClaims(holder: string, now: Date): Promise<number> {
    return this.db.$executeRawUnsafe(RECOVER, holder, now);
  }

  async releaseUnknownClaims(holder: string, now: Date, kept: readonly string[]): Promise<number> {
    return this.db.$executeRawUnsafe(RELEASE_UNKNOWN, holder, now, [...kept]);
  }

  async nextDueAt(excluded: readonly string[]): Promise<Date | undefined> {
    const [row] = await this.db.$queryRawUnsafe<{ at: Date }[]>(NEXT_DUE, [...excluded]);
    return row?.at;
  }

  async depth(): Promise<number> {
    const [row] = await this.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM webhook_delivery WHERE status = 'PENDING'`);
    return Number(row?.n ?? 0);
  }
}

/**
 * The queue as the consumer writes it, inside its transaction. The merchant's endpoint comes from
 * the routes cache when one is given (the consumer's case), else from the transaction.
 */
export class SqlQueueWriter implements QueueWriter {
  constructor(
    private readonly tx: SqlClient,
    private readonly routes?: EndpointRoutes,
  ) {}

  async endpointOf(merchantId: string) {
    const route = this.routes ? await this.routes.routeOf(merchantId, this.tx) : await readRoute(this.tx, merchantId);
    return route;
  }

  async enqueue(endpointId: string, shipmentId: string, event: WebhookEvent, occurredAt: Date, dueAt: Date): Promise<boolean> {
    // The consumer runs in the trace of the request that changed the shipment: keep it for the attempts.
    const trace: { traceparent?: string } = {};
    propagation.inject(context.active(), trace);
    const inserted = await this.tx.$executeRawUnsafe(ENQUEUE, event.id, endpointId, shipmentId, event.sequence, event.type, event.body, dueAt, occurredAt, trace.traceparent ?? null);
    return inserted === 1;
  }
}
