import { Code, ConnectError } from "@connectrpc/connect";
import type { Client } from "@connectrpc/connect";
import { isWellFormedClientId } from "@tawsil/domain";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import type { FastifyInstance, FastifyReply, RouteHandlerMethod } from "fastify";
import { DRIVER_SCOPE, SCOPES } from "./principal";
import { reasonOf } from "../problem/from-connect";
import type { Chain, LimitStore } from "../rate-limit/limit-store";
import { policyOf, type LockoutLimit, type SlidingWindowLimit } from "../rate-limit/limits";
import { rateLimited } from "../rate-limit/rate-limited";
import type { TokenBuckets } from "../rate-limit/token-bucket";
import { clientCredentials } from "./credentials";
import { resource } from "../routes/route-table";

type OAuthError = "invalid_request" | "invalid_client" | "invalid_scope" | "unsupported_grant_type";

const FORM = "application/x-www-form-urlencoded";
const SINGLE_VALUED = ["grant_type", "scope", "client_id", "client_secret"];
// A driver's client may name its one scope; the merchant service checks which client holds which.
const KNOWN_SCOPES: ReadonlySet<string> = new Set([...SCOPES, DRIVER_SCOPE]);

export interface TokenEndpointDeps {
  readonly merchant: Client<typeof MerchantService>;
  /** Where the deployment's limits below are counted (shared by the replicas, or this one's memory). */
  readonly store: LimitStore;
  /** Every token request of one client address, malformed ones included. */
  readonly perAddress: SlidingWindowLimit;
  /**
   * The requests this replica passes to the merchant service, all clients together: in this
   * replica's memory on purpose, as it guards the merchant service's capacity per caller.
   */
  readonly global: TokenBuckets;
  readonly perClient: SlidingWindowLimit;
  readonly lockout: LockoutLimit;
}

/** RFC 6749 section 5.2 error body; 401 for client authentication failures with a Basic challenge. */
function oauthError(reply: FastifyReply, error: OAuthError, description: string): FastifyReply {
  const status = error === "invalid_client" ? 401 : 400;
  if (status === 401) void reply.header("www-authenticate", 'Basic realm="tawsil"');
  return reply.code(status).send({ error, error_description: description });
}

/**
 * POST /oauth/token: the client credentials grant (RFC 6749 section 4.4) with client
 * authentication by HTTP Basic or by body parameters (never both), scope narrowing, the
 * per-client-id rate limit and the failed-authentication lockout of decisions.md section 14.
 * Each token costs the merchant service a query and a scrypt verification, so random client ids
 * must not reach it at will: a per-address limit comes first, a client id of the wrong shape is
 * refused without asking, and a global limit caps what this replica passes on.
 */
export function registerTokenEndpoint(app: FastifyInstance, deps: TokenEndpointDeps): void {
  void app.register(async (scope) => {
    // Only this route reads form bodies (elsewhere a form is an unsupported media type), and here
    // any other body is read unparsed so the answer is RFC 6749's invalid_request, not a problem.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

    resource(scope, "/oauth/token", { POST: { handler: issueToken(deps) } });
  });
}

/** The answer a request's syntax gets before any throttle but the per-address one, or its credentials. */
type Parsed =
  | { readonly kind: "answer"; readonly error: OAuthError; readonly description: string }
  | { readonly kind: "credentials"; readonly params: URLSearchParams; readonly clientId: string; readonly clientSecret: string };

function parseTokenRequest(contentTypeHeader: string | undefined, body: unknown, authorization: string | undefined): Parsed {
  const contentType = contentTypeHeader?.split(";", 1)[0]?.trim().toLowerCase();
  if (contentType !== FORM || typeof body !== "string") return { kind: "answer", error: "invalid_request", description: `Send the parameters as ${FORM}.` };
  const params = new URLSearchParams(body);
  const repeated = SINGLE_VALUED.find((name) => params.getAll(name).length > 1);
  if (repeated) return { kind: "answer", error: "invalid_request", description: `The parameter ${repeated} is repeated.` };
  const credentials = clientCredentials(authorization, params);
  if (credentials.kind === "conflict") return { kind: "answer", error: "invalid_request", description: credentials.reason };
  if (credentials.kind === "none") return { kind: "answer", error: "invalid_client", description: "Client authentication failed." };
  return { kind: "credentials", params, clientId: credentials.clientId, clientSecret: credentials.clientSecret };
}

/**
 * The grant itself: syntax, throttles, then the merchant service authenticates and signs. The
 * request's syntax is read first (it costs nothing), so that its limits are asked in one call to
 * the store: the per-address limit, then, when it names a client, the lockout and the per-client
 * limit. The answers keep their order: a refusal by the address limit comes before any syntax error.
 */
function issueToken(deps: TokenEndpointDeps): RouteHandlerMethod {
  const { store, perAddress, perClient, lockout, global } = deps;
  const addressOnly: Chain = [perAddress];
  const addressAndClient: Chain = [perAddress, lockout, perClient];
  return async (request, reply) => {
    void reply.header("cache-control", "no-store").header("pragma", "no-cache");
    const parsed = parseTokenRequest(request.headers["content-type"], request.body, request.headers.authorization);
    const verdict =
      parsed.kind === "credentials" ? await store.take(addressAndClient, [request.ip, parsed.clientId, parsed.clientId]) : await store.take(addressOnly, [request.ip]);
    if (verdict.refusedBy === perAddress) throw rateLimited(policyOf(perAddress), verdict.decision);
    if (parsed.kind === "answer") return oauthError(reply, parsed.error, parsed.description);
    if (verdict.refusedBy) throw rateLimited(policyOf(verdict.refusedBy), verdict.decision);
    const { params, clientId, clientSecret } = parsed;

    const grantType = params.get("grant_type");
    if (!grantType) return oauthError(reply, "invalid_request", "The parameter grant_type is required.");
    if (grantType !== "client_credentials") return oauthError(reply, "unsupported_grant_type", "Only client_credentials is supported.");

    const requested = (params.get("scope") ?? "").split(" ").filter(Boolean);
    const unknown = requested.find((s) => !KNOWN_SCOPES.has(s));
    if (unknown !== undefined) return oauthError(reply, "invalid_scope", `Unknown scope ${unknown}.`);
    // A client id we never issue is answered as an unknown client is, failed authentication (and
    // its lockout) included, without asking the merchant service: its shape says nothing a caller
    // could not know.
    if (!isWellFormedClientId(clientId)) {
      await store.recordFailure(lockout, clientId);
      return oauthError(reply, "invalid_client", "Client authentication failed.");
    }
    // Last, so that only requests the merchant service would really work on spend the shared budget.
    const shared = global.take("all");
    if (!shared.allowed) throw rateLimited({ name: "token-global", quota: global.capacity, windowSeconds: Math.max(1, Math.round(global.capacity / global.perSecond)) }, shared);
    try {
      const token = await deps.merchant.issueAccessToken({ clientId, clientSecret, scopes: requested });
      // Only when there may be failures to forget: a success costs the shared store no second call.
      if (verdict.mayHaveFailures) await store.recordSuccess(lockout, clientId);
      return reply.code(200).send({
        access_token: token.accessToken,
        token_type: "Bearer",
        expires_in: token.expiresInSeconds,
        scope: token.scopes.join(" "),
      });
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const reason = reasonOf(error);
      if (error.code === Code.Unauthenticated && reason === "INVALID_CLIENT") {
        await store.recordFailure(lockout, clientId);
        return oauthError(reply, "invalid_client", "Client authentication failed.");
      }
      if (error.code === Code.InvalidArgument && reason === "INVALID_SCOPE") {
        return oauthError(reply, "invalid_scope", "The requested scope exceeds the scopes granted to this client.");
      }
      throw error;
    }
  };
}
