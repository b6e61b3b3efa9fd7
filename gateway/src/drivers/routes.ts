import type { Client } from "@connectrpc/connect";
import { isUuid } from "@tawsil/domain";
import { Progress, type DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { availabilityBody, locationsBody, stepBody, type StepBody } from "./schemas";
import { renderJob, renderOffer } from "./render";
import { ProblemError } from "../problem/problem-error";
import { idempotencyKeyOf } from "../request/idempotency-key";
import { invalidQuery } from "../request/invalid-query";
import { echo } from "../problem/bounds";
import { fingerprint } from "../shipments/fingerprint";
import { toMicro } from "../validation/rules";
import { validateBody } from "../validation/validate";
import { resource } from "../routes/route-table";
import { shipmentIdOf } from "../shipments/shipment-id";

const PROGRESS: Record<StepBody["step"], Progress> = {
  PICKED_UP: Progress.PICKED_UP,
  OUT_FOR_DELIVERY: Progress.OUT_FOR_DELIVERY,
  DELIVERED: Progress.DELIVERED,
  DELIVERY_FAILED: Progress.FAILED,
};

/** The driver of the token: the guard admitted only drivers' tokens, so there always is one. */
function driverOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind !== "driver") throw new ProblemError("ACCESS_DENIED", { en: "Driver routes need a driver's access token.", ar: "مسارات السائق تتطلب رمز وصول سائق." });
  return principal.driverId;
}

function offerIdOf(request: FastifyRequest): string {
  const id = (request.params as { offerId?: string }).offerId ?? "";
  if (!isUuid(id)) throw new ProblemError("INVALID_PARAMETER", { en: "The offer id in the path is not a uuid.", ar: "معرّف العرض في المسار ليس UUID صالحًا." });
  return id.toLowerCase();
}

/** The longest GET /v2/driver/offers may hold a call for an offer (dispatch's MAX_OFFER_WAIT_MS). */
export const MAX_OFFER_WAIT_SECONDS = 20;

/**
 * `waitSeconds` of GET /v2/driver/offers (0 to 20, default 0): with no offer open, the answer waits
 * for one that long (a long poll), so an app neither polls every second nor learns of an offer late.
 */
function waitSecondsOf(request: FastifyRequest): number {
  const params = new URL(request.url, "http://gateway").searchParams;
  for (const name of new Set(params.keys())) {
    if (name !== "waitSeconds") throw invalidQuery([{ name, code: "UNKNOWN_PROPERTY", en: `Unknown query parameter ${echo(name)}.`, ar: `معامل استعلام غير معروف: ${echo(name)}.` }]);
  }
  const values = params.getAll("waitSeconds");
  if (values.length > 1) throw invalidQuery([{ name: "waitSeconds", code: "INCONSISTENT_VALUE", en: "The query parameter waitSeconds is repeated.", ar: "معامل الاستعلام waitSeconds مكرر." }]);
  const text = values[0];
  if (text === undefined) return 0;
  const seconds = /^\d{1,2}$/.test(text) ? Number(text) : /^-?\d+$/.test(text) ? Infinity : Number.NaN;
  if (!(seconds >= 0 && seconds <= MAX_OFFER_WAIT_SECONDS)) {
    const en = `waitSeconds must be an integer from 0 to ${MAX_OFFER_WAIT_SECONDS}.`;
    throw invalidQuery([{ name: "waitSeconds", code: Number.isNaN(seconds) ? "INVALID_TYPE" : "OUT_OF_RANGE", en, ar: `يجب أن يكون waitSeconds عددًا صحيحًا من 0 إلى ${MAX_OFFER_WAIT_SECONDS}.` }]);
  }
  return seconds;
}

/** A step changes a shipment: it is sent once whatever the network does, so the key is required. */
function requiredKeyOf(request: FastifyRequest): string {
  const key = idempotencyKeyOf(request);
  if (key === undefined) {
    throw new ProblemError("INVALID_PARAMETER", { en: "A step needs an Idempotency-Key header (16 to 128 visible ASCII characters).", ar: "تتطلب الخطوة الترويسة Idempotency-Key (من 16 إلى 128 حرفًا مرئيًا)." });
  }
  return key;
}

/**
 * What a step's key was sent with: the job and the body, but never the PIN. Its hash would be
 * stored, and a hash of a 4-digit PIN is as good as the PIN. A wrong PIN is refused and not kept,
 * so the key then serves the next try; after a success the same key replays it, PIN or not.
 */
function stepFingerprint(shipmentId: string, body: StepBody): string {
  const { deliveryPin: _pin, ...rest } = body;
  return fingerprint("driver-step", { shipmentId, ...rest });
}

/**
 * The drivers' routes (decisions.md section 17), translated to dispatch's DriverService. The
 * driver id always comes from the verified token: another driver's offer or job is as unknown as
 * one that does not exist (404), and dispatch decides that, not this edge.
 */
export function registerDriverRoutes(app: FastifyInstance, drivers: Client<typeof DriverService>, peerTimeoutMs: number): void {
  const guard = app.driverGuard();
  resource(app, "/v2/driver/availability", {
    PUT: {
      onRequest: guard,
      handler: async (request) => {
        const body = validateBody(availabilityBody, request.body);
        await drivers.setAvailability({ driverId: driverOf(request), available: body.onShift, ...(body.position ? { position: toMicro(body.position) } : {}) });
        return { onShift: body.onShift };
      },
    },
  });
  resource(app, "/v2/driver/locations", {
    POST: {
      onRequest: guard,
      handler: async (request, reply) => {
        const body = validateBody(locationsBody, request.body);
        const fixes = body.fixes.map((fix) => ({
          position: toMicro(fix),
          accuracyMetres: fix.accuracyMetres ?? 0,
          recordTimeUnixMs: fix.recordedAt ? BigInt(Date.parse(fix.recordedAt)) : 0n,
        }));
        await drivers.reportLocations({ driverId: driverOf(request), fixes });
        return reply.code(202).send({ accepted: fixes.length });
      },
    },
  });
  resource(app, "/v2/driver/offers", {
    GET: {
      onRequest: guard,
      handler: async (request, reply) => {
        const waitMs = waitSecondsOf(request) * 1000;
        if (waitMs === 0) return { offers: (await drivers.listOffers({ driverId: driverOf(request) })).offers.map(renderOffer) };
        // The call's deadline covers the wait; a client that hangs up ends it (and dispatch's waiter).
        // The response's close, not the request's: a request without a body is "closed" once read.
        const hungUp = new AbortController();
        const onClose = () => hungUp.abort();
        reply.raw.once("close", onClose);
        try {
          const { offers } = await drivers.listOffers({ driverId: driverOf(request), waitMs }, { timeoutMs: peerTimeoutMs + waitMs, signal: hungUp.signal });
          return { offers: offers.map(renderOffer) };
        } finally {
          reply.raw.off("close", onClose);
        }
      },
    },
  });
  for (const verb of ["accept", "decline"] as const) {
    resource(app, `/v2/driver/offers/:offerId/${verb}`, {
      POST: {
        onRequest: guard,
        handler: async (request) => {
          const offerId = offerIdOf(request);
          const call = { driverId: driverOf(request), offerId };
          await (verb === "accept" ? drivers.acceptOffer(call) : drivers.declineOffer(call));
          return { offerId, status: verb === "accept" ? "ACCEPTED" : "DECLINED" };
        },
      },
    });
  }
  resource(app, "/v2/driver/jobs", {
    GET: {
      onRequest: guard,
      handler: async (request) => ({ jobs: (await drivers.listJobs({ driverId: driverOf(request) })).jobs.map(renderJob) }),
    },
  });
  resource(app, "/v2/driver/jobs/:shipmentId/steps", {
    POST: {
      onRequest: guard,
      handler: async (request) => {
        const shipmentId = shipmentIdOf(request);
        const key = requiredKeyOf(request);
        const body = validateBody(stepBody, request.body);
        await drivers.reportProgress({
          driverId: driverOf(request),
          shipmentId,
          progress: PROGRESS[body.step],
          reasonCode: body.reasonCode ?? "",
          deliveryPin: body.deliveryPin ?? "",
          evidenceMediaAssetIds: body.evidenceMediaAssetIds ?? [],
          ...(body.codCollected ? { codCollected: { currency: body.codCollected.currency, amount: body.codCollected.amount.toFixed(2) } } : {}),
          idempotencyKey: key,
          requestFingerprint: stepFingerprint(shipmentId, body),
        });
        return { shipmentId, step: body.step };
      },
    },
  });
}
