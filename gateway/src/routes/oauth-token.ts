import { Code, ConnectError } from "@connectrpc/connect";
import type { Client } from "@connectrpc/connect";
import { isWellFormedClientId } from "@tawsil/domain";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import type { FastifyInstance, FastifyReply, RouteHandlerMethod } from "fastify";
import { DRIVER_SCOPE, SCOPES } from "../auth/principal";
import { reasonOf } from "../problem/from-connect";
import type { AuthLockout } from "../rate-limit/lockout";
import { rateLimited } from "../rate-limit/rate-limited";
import type { SlidingWindow } from "../rate-limit/sliding-window";
import type { TokenBuckets } from "../rate-limit/token-bucket";
import { clientCredentials } from "./oauth-credentials";
import { resource } from "./route-table";

type OAuthError = "invalid_request" | "invalid_client" | "invalid_scope" | "unsupported_grant_type";

const FORM = "application/x-www-form-urlencoded";
const SINGLE_VALUED = ["grant_type", "scope", "client_id", "client_secret"];
// A driver's client may name its one scope; the merchant service checks which client holds which.
const KNOWN_SCOPES: ReadonlySet<string> = new Set([...SCOPES, DRIVER_SCOPE]);

export interface TokenEndpointDeps {
  readonly merchant: Client<typeof MerchantService>;
  /** Every token request of one client address, malformed ones included. */
  readonly perAddress: SlidingWindow;
  /** The requests this replica passes to the merchant service, all clients together. */
  readonly global: TokenBuckets;
  readonly perClient: SlidingWindow;
  readonly lockout: AuthLockout;
  readonly lockoutPolicy: { quota: number; windowSeconds: number };
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

/** The grant itself: syntax, throttles, then the merchant service authenticates and signs. */
function issueToken(deps: TokenEndpointDeps): RouteHandlerMethod {
  const { perAddress, global } = deps;
  return async (request, reply) => {
    void reply.header("cache-control", "no-store").header("pragma", "no-cache");
    const fromAddress = perAddress.take(request.ip);
    if (!fromAddress.allowed) throw rateLimited({ name: "token-address", quota: perAddress.limit, windowSeconds: perAddress.windowSeconds }, fromAddress);
    const contentType = request.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase();
    if (contentType !== FORM || typeof request.body !== "string") {
      return oauthError(reply, "invalid_request", `Send the parameters as ${FORM}.`);
    }
    const params = new URLSearchParams(request.body);
    const repeated = SINGLE_VALUED.find((name) => params.getAll(name).length > 1);
    if (repeated) return oauthError(reply, "invalid_request", `The parameter ${repeated} is repeated.`);

    const credentials = clientCredentials(request.headers.authorization, params);
    if (credentials.kind === "conflict") return oauthError(reply, "invalid_request", credentials.reason);
    if (credentials.kind === "none") return oauthError(reply, "invalid_client", "Client authentication failed.");
    const { clientId, clientSecret } = credentials;
    const lockedFor = deps.lockout.lockedFor(clientId);
    if (lockedFor > 0) throw rateLimited({ name: "auth-failures", ...deps.lockoutPolicy }, { retryAfterSeconds: lockedFor, remaining: 0 });
    const decision = deps.perClient.take(clientId);
    if (!decision.allowed) throw rateLimited({ name: "token", quota: deps.perClient.limit, windowSeconds: deps.perClient.windowSeconds }, decision);

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
      deps.lockout.recordFailure(clientId);
      return oauthError(reply, "invalid_client", "Client authentication failed.");
    }
    // Last, so that only requests the merchant service would really work on spend the shared budget.
    const shared = global.take("all");
    if (!shared.allowed) throw rateLimited({ name: "token-global", quota: global.capacity, windowSeconds: Math.max(1, Math.round(global.capacity / global.perSecond)) }, shared);
    try {
      const token = await deps.merchant.issueAccessToken({ clientId, clientSecret, scopes: requested });
      deps.lockout.recordSuccess(clientId);
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
        deps.lockout.recordFailure(clientId);
        return oauthError(reply, "invalid_client", "Client authentication failed.");
      }
      if (error.code === Code.InvalidArgument && reason === "INVALID_SCOPE") {
        return oauthError(reply, "invalid_scope", "The requested scope exceeds the scopes granted to this client.");
      }
      throw error;
    }
  };
}
