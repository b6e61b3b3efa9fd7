import type { OAuthErrorBody, Problem, Violation } from "./types.js";

/** An RFC 9457 problem answered by the API (decisions.md section 12), with its contract extensions. */
export class TawsilProblemError extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly violations: readonly Violation[];
  readonly requestId: string | undefined;
  readonly correlationId: string | undefined;
  readonly traceId: string | undefined;
  /** Seconds from a `Retry-After` header (429, 503, 409 IDEMPOTENCY_KEY_IN_USE), when one came. */
  readonly retryAfter: number | undefined;
  readonly problem: Problem;

  constructor(problem: Problem, retryAfter: number | undefined) {
    super(`${problem.status} ${problem.code}: ${problem.detail ?? problem.title}`);
    this.name = "TawsilProblemError";
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.violations = problem.violations ?? [];
    this.requestId = problem.requestId;
    this.correlationId = problem.correlationId;
    this.traceId = problem.traceId;
    this.retryAfter = retryAfter;
  }
}

/** An RFC 6749 error of the token endpoint (`invalid_client`, `invalid_scope`, ...). */
export class TawsilOAuthError extends Error {
  readonly status: number;
  readonly error: OAuthErrorBody["error"];
  readonly errorDescription: string | undefined;

  constructor(status: number, body: OAuthErrorBody) {
    super(`${status} ${body.error}${body.error_description ? `: ${body.error_description}` : ""}`);
    this.name = "TawsilOAuthError";
    this.status = status;
    this.error = body.error;
    this.errorDescription = body.error_description;
  }
}

/** A response that is neither a success nor a problem (a proxy's HTML page, say). */
export class TawsilUnexpectedResponseError extends Error {
  readonly status: number;
  readonly body: string;

  constructor(status: number, contentType: string | null, body: string) {
    super(`unexpected ${status} response (${contentType ?? "no content type"})`);
    this.name = "TawsilUnexpectedResponseError";
    this.status = status;
    this.body = body;
  }
}

/** A webhook delivery whose signature, timestamp or body does not verify. */
export class TawsilWebhookVerificationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TawsilWebhookVerificationError";
  }
}
