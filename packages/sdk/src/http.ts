/**
 * One logical API call: authentication (one token renewal after a 401), retries of what is safe to
 * repeat, and the answer turned into data or a typed error.
 */
import { TawsilProblemError, TawsilUnexpectedResponseError } from "./errors.js";
import { backoffDelay, type Clock, isRetryableStatus, parseRetryAfter, type RetryPolicy } from "./retry.js";
import type { TokenSource } from "./token.js";
import type { Problem } from "./types.js";

export interface CallOptions {
  /** Cancels the call, its waits included. */
  signal?: AbortSignal;
  /** `en` or `ar`: the language of problem titles, details and violation messages. */
  acceptLanguage?: string;
  /** A uuid echoed in the response and in problems, to correlate this call with others. */
  correlationId?: string;
}

export interface Call extends CallOptions {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent as it is (a file), instead of `body` as JSON. */
  content?: { data: Blob | Uint8Array; type: string };
  headers?: Record<string, string>;
  /** Sent with every attempt, so that the server sees retries as one call. */
  idempotencyKey?: string;
  /** False for the public endpoints that take no token. */
  authenticated?: boolean;
  /** Statuses that are answers, not errors (304 for a conditional read). */
  acceptStatuses?: readonly number[];
}

export interface Reply<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Transport {
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  retry: RetryPolicy;
  tokens: TokenSource | undefined;
}

/**
 * A request may be sent again only when repeating it cannot do twice what it does once: a read, or
 * a write carrying an idempotency key the server deduplicates on.
 */
const isSafeToRepeat = (call: Call) => call.method === "GET" || call.idempotencyKey !== undefined;

/** undici reports a failure to reach the server (refused, reset, DNS) as a TypeError. */
const isNetworkError = (error: unknown) => error instanceof TypeError;

export async function send<T>(transport: Transport, call: Call): Promise<Reply<T>> {
  const { clock, retry } = transport;
  const startedAt = clock.now();
  let renewedToken = false;
  for (let attempt = 1; ; attempt++) {
    let outcome: Failure;
    try {
      const token = call.authenticated === false ? undefined : await requireTokens(transport).token();
      const res = await transport.fetch(urlOf(transport.baseUrl, call), { method: call.method, headers: headersOf(call, token), body: bodyOf(call), signal: call.signal });
      if (res.ok || call.acceptStatuses?.includes(res.status)) {
        const text = await res.text();
        return { status: res.status, headers: res.headers, body: (text === "" ? undefined : JSON.parse(text)) as T };
      }
      // An expired or revoked token: renew it once per call and try again at once (not a retry).
      if (res.status === 401 && token !== undefined && !renewedToken) {
        await res.body?.cancel();
        renewedToken = true;
        await requireTokens(transport).renew(token);
        attempt--;
        continue;
      }
      outcome = classify(await errorOf(res, clock.now()));
    } catch (error) {
      if (isNetworkError(error)) outcome = { error, retryable: true, waitMs: undefined };
      // The token endpoint's own rate limit or outage, met while authenticating.
      else if (error instanceof TawsilProblemError) outcome = classify(error);
      else throw error;
    }
    if (!outcome.retryable || !isSafeToRepeat(call) || attempt >= retry.maxAttempts) throw outcome.error;
    const delay = outcome.waitMs ?? backoffDelay(retry, attempt, clock.random);
    if (clock.now() + delay - startedAt > retry.maxElapsedMs) throw outcome.error;
    await clock.sleep(delay, call.signal);
  }
}

interface Failure {
  error: unknown;
  retryable: boolean;
  /** The server's Retry-After, which wins over the computed backoff. */
  waitMs: number | undefined;
}

function classify(error: TawsilProblemError | TawsilUnexpectedResponseError): Failure {
  if (error instanceof TawsilProblemError) {
    return { error, retryable: isRetryableStatus(error.status, error.code), waitMs: error.retryAfter === undefined ? undefined : error.retryAfter * 1000 };
  }
  return { error, retryable: isRetryableStatus(error.status, undefined), waitMs: undefined };
}

function requireTokens(transport: Transport): TokenSource {
  if (!transport.tokens) throw new Error("this operation needs clientId and clientSecret");
  return transport.tokens;
}

function urlOf(baseUrl: string, call: Call): string {
  const url = new URL(call.path, baseUrl);
  for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  return url.toString();
}

function headersOf(call: Call, token: string | undefined): Record<string, string> {
  return {
    accept: "application/json",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...(call.body === undefined ? {} : { "content-type": "application/json" }),
    ...(call.content === undefined ? {} : { "content-type": call.content.type }),
    ...(call.idempotencyKey === undefined ? {} : { "idempotency-key": call.idempotencyKey }),
    ...(call.acceptLanguage === undefined ? {} : { "accept-language": call.acceptLanguage }),
    ...(call.correlationId === undefined ? {} : { "x-correlation-id": call.correlationId }),
    ...call.headers,
  };
}

const bodyOf = (call: Call): RequestInit["body"] => (call.content !== undefined ? (call.content.data as RequestInit["body"]) : call.body === undefined ? undefined : JSON.stringify(call.body));

async function errorOf(res: Response, now: number): Promise<TawsilProblemError | TawsilUnexpectedResponseError> {
  const text = await res.text();
  const contentType = res.headers.get("content-type");
  if (contentType?.startsWith("application/problem+json")) {
    try {
      return new TawsilProblemError(JSON.parse(text) as Problem, parseRetryAfter(res.headers.get("retry-after"), now));
    } catch {
      // Not JSON after all: reported as unexpected below.
    }
  }
  return new TawsilUnexpectedResponseError(res.status, contentType, text);
}
