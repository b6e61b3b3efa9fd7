import { ConnectError, type Client } from "@connectrpc/connect";
import type { TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from "fastify";
import { problemFromConnect, reasonOf, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../problem/from-connect";
import { rateLimitHeaders } from "../rate-limit/rate-limited";
import { resource } from "../routes/route-table";
import { correlate } from "../request/correlation";
import { negotiateLanguage, type Language } from "../request/language";
import { errorPage, trackingPage } from "./page";
import { STYLESHEET, STYLESHEET_PATH } from "./page-style";
import type { ErrorPage } from "./page-texts";
import { takePublicRead, type PublicTrackingLimits } from "./public-limits";

const CODE = /^[A-Za-z0-9_-]{43}$/;

/** Nothing from elsewhere, nothing inline that runs: one same-origin stylesheet, no scripts, no frames. */
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `?lang=` (the page's switch) wins over Accept-Language. */
function pageLanguage(request: FastifyRequest): Language {
  const chosen = (request.query as { lang?: unknown }).lang;
  if (chosen === "ar" || chosen === "en") return chosen;
  const header = request.headers["accept-language"];
  return negotiateLanguage(typeof header === "string" ? header : undefined);
}

function sendHtml(reply: FastifyReply, status: number, lang: Language, html: string, headers: Record<string, string> = {}): FastifyReply {
  return reply
    .code(status)
    .headers({
      "content-type": "text/html; charset=utf-8",
      "content-language": lang,
      "content-security-policy": CSP,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      vary: "Accept-Language",
      ...headers,
    })
    .send(html);
}

const PAGE_STATUS: Record<ErrorPage, number> = { notFound: 404, expired: 410, busy: 429, unavailable: 503 };

/** A customer page's address (`/t/{anything}`), read by GET or HEAD: what a browser opening a link sends. */
export function isCustomerPageRequest(request: FastifyRequest): boolean {
  return (request.method === "GET" || request.method === "HEAD") && /^\/t\/[^/?#]*(?:[?#]|$)/.test(request.raw.url ?? "");
}

/**
 * The not-found page for a customer link the router refused before any route ran (a code far over
 * the router's parameter length, one that does not percent-decode): a customer who opens a
 * mangled link sees a page in their language, never a problem document.
 */
export function sendLinkNotFoundPage(request: FastifyRequest, reply: FastifyReply): void {
  correlate(request, reply); // no hook ran before the router's refusal
  const header = request.headers["accept-language"];
  const lang = negotiateLanguage(typeof header === "string" ? header : undefined);
  void sendHtml(reply, PAGE_STATUS.notFound, lang, errorPage("notFound", lang));
}

/**
 * GET /t/{code}: the customer page the trackingUrl opens, server-rendered from the public
 * projection in English or Arabic (right to left). It shares the public tracking limits with the
 * JSON endpoint (and its 429 carries the same RateLimit headers), and answers its failures as
 * pages, not problem documents.
 */
export function registerTrackingPage(app: FastifyInstance, tracking: Client<typeof TrackingService>, limits: PublicTrackingLimits): void {
  // Through resource(): another method on the page or its stylesheet is a 405 with Allow, as on
  // every path of the document (found by fuzzing: POST /t/{code} was a 404).
  resource(app, STYLESHEET_PATH, {
    GET: {
      handler: async (_request, reply) =>
        reply.headers({ "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }).send(STYLESHEET),
    },
  });
  const page: RouteHandlerMethod = async (request, reply) => {
    const lang = pageLanguage(request);
    const fail = (kind: ErrorPage, headers: Record<string, string> = {}) => sendHtml(reply, PAGE_STATUS[kind], lang, errorPage(kind, lang), headers);
    const code = (request.params as { code?: string }).code ?? "";
    if (!CODE.test(code)) return fail("notFound");
    const refusal = await takePublicRead(limits, request, code);
    if (refusal) return fail("busy", rateLimitHeaders(refusal.policy, refusal.decision));
    try {
      return sendHtml(reply, 200, lang, trackingPage(await tracking.getPublicTracking({ code, includeDeliveryPin: true }), lang));
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const reason = reasonOf(error);
      if (reason === "TRACKING_LINK_NOT_FOUND" || reason === "INVALID_ARGUMENT") return fail("notFound");
      if (reason === "TRACKING_LINK_EXPIRED") return fail("expired");
      // An outage as the API would call it (a peer that died mid-call included), as a page.
      if (problemFromConnect(error)?.code === "SERVICE_UNAVAILABLE") return fail("unavailable", { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
      throw error;
    }
  };
  resource(app, "/t/:code", { GET: { handler: page } });
}
