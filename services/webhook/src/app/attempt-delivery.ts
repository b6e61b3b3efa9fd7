import { DependencyUnavailableError } from "@tawsil/errors";
import { signingSecrets } from "../domain/endpoint";
import { parseEndpointUrl } from "../domain/endpoint-url";
import { EndpointUrlError } from "../domain/errors";
import { parseRetryAfter, retryDelaySeconds } from "../domain/retry-schedule";
import { signatureHeader } from "../domain/signature";
import type { AttemptOutcome, AttemptRecord, AttemptStage, ClaimedDelivery, Clock, Receiver, Resolver } from "./ports";
import { checkedAddress, type AddressPolicy } from "./receiver-address";

export interface AttemptDeps {
  readonly receiver: Receiver;
  readonly resolver: Resolver;
  readonly clock: Clock;
  readonly policy: AddressPolicy;
  readonly timeoutMs: number;
  /** First wait of the retry schedule, doubling after (decisions.md section 11: 30 s). */
  readonly firstRetrySeconds?: number;
}

/** Lease a send must have left beyond its own timeout to start: clock distance between replicas and the time to record it. */
export const LEASE_MARGIN_MS = 10_000;

export type AttemptResult = { readonly record: AttemptRecord; readonly outcome: AttemptOutcome } | { readonly notSent: "LEASE_SHORT" };

/**
 * One attempt of one claimed delivery: check the receiver's address again (it may resolve elsewhere
 * now), sign with this attempt's timestamp, send, and decide what comes next. Only a 2xx answer
 * delivers; redirects, other statuses, timeouts, transport errors (a name that could not be
 * resolved now included), refused addresses and a secret that cannot be opened are failed
 * attempts that follow the retry schedule (Retry-After on 429 and 503). A send never starts with
 * less of the claim's lease left than its timeout and a margin: past the lease another replica
 * may make the same attempt, so such a claim is given back unsent (`notSent`).
 */
export async function attemptDelivery(deps: AttemptDeps, claim: ClaimedDelivery, stage: (now: AttemptStage) => void = () => undefined): Promise<AttemptResult> {
  const startedAt = deps.clock.now();
  const started = performance.now();
  const finish = (outcome: string, statusCode?: number, retryAfter?: number) => {
    const record: AttemptRecord = { startedAt, durationMs: Math.round(performance.now() - started), statusCode, outcome };
    return { record, outcome: next(claim.attempt, outcome, deps.clock.now(), retryAfter, deps.firstRetrySeconds) };
  };
  // Not this delivery's fault, nor any other's: retried on schedule, and a fixed key sends it.
  if (!claim.secrets) return finish("SECRET_UNREADABLE");
  let address;
  let url: URL;
  stage("resolving");
  try {
    url = parseEndpointUrl(claim.url, { allowHttp: deps.policy.allowInsecure });
    address = await checkedAddress(url, deps.resolver, deps.policy);
  } catch (error) {
    if (error instanceof EndpointUrlError) return finish("ADDRESS_REFUSED");
    // The resolver failed or timed out: a transport failure of this attempt, retried on schedule.
    if (error instanceof DependencyUnavailableError) return finish("DNS_FAILURE");
    throw error;
  }
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": "Tawsil-Webhooks/1.0",
    "webhook-id": claim.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(signingSecrets(claim.secrets, startedAt), claim.id, timestamp, claim.body),
  };
  if (claim.leaseUntil.getTime() - deps.clock.now().getTime() < deps.timeoutMs + LEASE_MARGIN_MS) return { notSent: "LEASE_SHORT" };
  stage("sending");
  const answer = await deps.receiver.send({ url, address, headers, body: claim.body, timeoutMs: deps.timeoutMs });
  if (answer.kind === "timeout") return finish("TIMEOUT");
  if (answer.kind === "transport") return finish("TRANSPORT");
  const { status } = answer;
  if (status >= 200 && status < 300) return finish("DELIVERED", status);
  if (status >= 300 && status < 400) return finish("REDIRECT", status);
  const retryAfter = status === 429 || status === 503 ? parseRetryAfter(answer.retryAfter, deps.clock.now()) : undefined;
  return finish(`HTTP_${status}`, status, retryAfter);
}

function next(attempt: number, outcome: string, now: Date, retryAfter: number | undefined, firstRetrySeconds: number | undefined): AttemptOutcome {
  if (outcome === "DELIVERED") return { kind: "delivered" };
  const wait = retryDelaySeconds(attempt, retryAfter, firstRetrySeconds);
  if (wait === undefined) return { kind: "exhausted", error: outcome };
  return { kind: "retry", at: new Date(now.getTime() + wait * 1000), error: outcome };
}
