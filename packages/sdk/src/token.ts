import { TawsilOAuthError, TawsilProblemError, TawsilUnexpectedResponseError } from "./errors.js";
import { type Clock, parseRetryAfter } from "./retry.js";
import type { OAuthErrorBody, Problem, TokenResponse } from "./types.js";

export interface TokenSourceOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A subset of the client's scopes, space-separated; all of them when omitted. */
  scope?: string;
  /** How long before its expiry a token is replaced (default 60 s), so none expires in flight. */
  refreshSkewMs?: number;
  fetch: typeof fetch;
  clock: Clock;
}

/**
 * Client-credentials tokens (RFC 6749 section 4.4, HTTP Basic), cached until shortly before they
 * expire. Concurrent callers share one token request: at most one is in flight at a time.
 */
export class TokenSource {
  private cached: { token: string; refreshAt: number } | undefined;
  private inFlight: Promise<string> | undefined;

  constructor(private readonly options: TokenSourceOptions) {}

  /** A valid access token, from the cache when it still has time left. */
  async token(): Promise<string> {
    if (this.cached && this.options.clock.now() < this.cached.refreshAt) return this.cached.token;
    return this.refresh();
  }

  /**
   * Forgets `rejected` (a token the API answered 401 to) and fetches a new one; a token that was
   * already replaced by a concurrent caller is not fetched again.
   */
  async renew(rejected: string): Promise<string> {
    if (this.cached?.token === rejected) this.cached = undefined;
    return this.token();
  }

  private refresh(): Promise<string> {
    this.inFlight ??= this.request().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async request(): Promise<string> {
    const { baseUrl, clientId, clientSecret, scope, fetch, clock } = this.options;
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (scope) form.set("scope", scope);
    // RFC 6749 section 2.3.1: the id and secret are form-encoded before Basic encoding.
    const basic = btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`);
    const startedAt = clock.now();
    const res = await fetch(new URL("/oauth/token", baseUrl).toString(), {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
    });
    const text = await res.text();
    if (res.ok) {
      const body = JSON.parse(text) as TokenResponse;
      const skew = this.options.refreshSkewMs ?? 60_000;
      this.cached = { token: body.access_token, refreshAt: startedAt + Math.max(0, body.expires_in * 1000 - skew) };
      return body.access_token;
    }
    const contentType = res.headers.get("content-type");
    // Rate limits and outages of the token endpoint are problems, not RFC 6749 errors.
    if (contentType?.startsWith("application/problem+json")) throw new TawsilProblemError(JSON.parse(text) as Problem, parseRetryAfter(res.headers.get("retry-after"), clock.now()));
    if (contentType?.startsWith("application/json")) throw new TawsilOAuthError(res.status, JSON.parse(text) as OAuthErrorBody);
    throw new TawsilUnexpectedResponseError(res.status, contentType, text);
  }
}
