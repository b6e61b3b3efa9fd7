import { DependencyUnavailableError } from "@tawsil/errors";
import { signingSecrets } from "../domain/endpoint";
import { parseEndpointUrl } from "../domain/endpoint-url";
import { EndpointUrlError } from "../domain/errors";
import { parseRetryAfter, retryDelaySeconds } from "../domain/retry-schedule";
import { signatureHeader } from "../domain/signature";
import type { AttemptOutcome, AttemptRecord, ClaimedDelivery, Clock, Receiver, Resolver } from "./ports";
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

/**
 * One attempt of one claimed delivery: check the receiver's address again (it may resolve elsewhere
 * now), sign with this attempt's timestamp, send, and decide what comes next. Only a 2xx answer
 * delivers; redirects, other statuses, timeouts, transport errors (a name that could not be
 * resolved now included) and refused addresses are failed
 * attempts that follow the retry schedule (Retry-After on 429 and 503).
 */
export async function attemptDelivery(deps: AttemptDeps, claim: ClaimedDelivery): Promise<{ record: AttemptRecord; outcome: AttemptOutcome }> {
  const startedAt = deps.clock.now();
  const started = performance.now();
  const finish = (outcome: string, statusCode?: number, retryAfter?: number) => {
    const record: AttemptRecord = { startedAt, durationMs: Math.round(performance.now() - started), statusCode, outcome };
    return { record, outcome: next(claim.attempt, outcome, deps.clock.now(), retryAfter, deps.firstRetrySeconds) };
  };
  let address;
  let url: URL;
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
