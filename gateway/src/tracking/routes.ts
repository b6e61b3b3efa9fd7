import type { Client } from "@connectrpc/connect";
import type { TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ProblemError } from "../problem/problem-error";
import { rateLimited } from "../rate-limit/rate-limited";
import { registerTrackingPage } from "./page-route";
import { takePublicRead, type PublicTrackingLimits } from "./public-limits";
import { renderMerchantTracking, renderPublicTracking } from "./render";
import { resource } from "../routes/route-table";
import { shipmentIdOf } from "../shipments/shipment-id";

const CODE = /^[A-Za-z0-9_-]{43}$/;

/** The `code` path parameter of a public link; anything but 43 base64url characters is a 400. */
export function trackingCodeOf(request: FastifyRequest): string {
  const code = (request.params as { code?: string }).code ?? "";
  if (!CODE.test(code)) throw new ProblemError("INVALID_PARAMETER", { en: "The tracking code must be 43 characters of A-Z, a-z, 0-9, _ or -.", ar: "يجب أن يتكون رمز التتبع من 43 حرفًا من A-Z أو a-z أو 0-9 أو _ أو -." });
  return code;
}

/** The two tracking projections (decisions.md section 9) and the customer page behind trackingUrl. */
export function registerTracking(app: FastifyInstance, tracking: Client<typeof TrackingService>, limits: PublicTrackingLimits): void {
  resource(app, "/v2/external/shipments/:shipmentId/tracking", {
    GET: {
      onRequest: app.guard("shipments:read"),
      handler: async (request, reply) => {
        const answer = await tracking.getShipmentTracking({ merchantId: request.principal!.merchantId, shipmentId: shipmentIdOf(request) });
        void reply.header("cache-control", "no-store");
        return renderMerchantTracking(answer);
      },
    },
  });
  resource(app, "/v2/public/tracking/:code", {
    GET: {
      handler: async (request, reply) => {
        const code = trackingCodeOf(request);
        const refusal = await takePublicRead(limits, request, code);
        if (refusal) throw rateLimited(refusal.policy, refusal.decision);
        const answer = await tracking.getPublicTracking({ code });
        void reply.header("cache-control", "no-store");
        return renderPublicTracking(answer);
      },
    },
  });
  registerTrackingPage(app, tracking, limits);
}
