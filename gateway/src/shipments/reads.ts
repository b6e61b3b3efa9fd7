import type { Client } from "@connectrpc/connect";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import type { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { echo } from "../problem/bounds";
import { ProblemError } from "../problem/problem-error";
import { invalidQuery, type QueryIssue } from "../request/invalid-query";
import { etagOf, renderShapeB, STATE_NAMES } from "./render";
import type { ViolationCode } from "../validation/violation-messages";
import type { Endpoint } from "../routes/route-table";
import { shipmentIdOf } from "./shipment-id";

const STATES = new Map(Object.entries(STATE_NAMES).flatMap(([value, name]) => (name ? [[name, Number(value) as ShipmentState]] : [])));
const CURSOR = /^[A-Za-z0-9_-]{1,256}$/;
const QUERY = new Set(["limit", "cursor", "state", "externalReference"]);

/** The list query (decisions.md section 8): known parameters only, each once, limits never clamped. */
function listQuery(request: FastifyRequest) {
  const params = new URL(request.url, "http://gateway").searchParams;
  const issues: QueryIssue[] = [];
  const issue = (name: string, code: ViolationCode, en: string, ar: string) => issues.push({ name, code, en, ar });
  for (const name of new Set(params.keys())) {
    if (!QUERY.has(name)) issue(name, "UNKNOWN_PROPERTY", `Unknown query parameter ${echo(name)}.`, `معامل استعلام غير معروف: ${echo(name)}.`);
    else if (params.getAll(name).length > 1) issue(name, "INCONSISTENT_VALUE", `The query parameter ${name} is repeated.`, `معامل الاستعلام ${name} مكرر.`);
  }
  const once = (name: string) => (params.getAll(name).length === 1 ? params.get(name) : null);
  const limitText = once("limit");
  // An integer of more digits is out of range like 101 is; anything else is not an integer at all.
  const limit = limitText === null ? 25 : /^\d{1,3}$/.test(limitText) ? Number(limitText) : /^-?\d+$/.test(limitText) ? Infinity : Number.NaN;
  if (!(limit >= 1 && limit <= 100)) {
    issue("limit", Number.isNaN(limit) ? "INVALID_TYPE" : "OUT_OF_RANGE", "limit must be an integer from 1 to 100.", "يجب أن يكون limit عددًا صحيحًا من 1 إلى 100.");
  }
  const stateName = once("state");
  const state = stateName === null ? ShipmentState.UNSPECIFIED : STATES.get(stateName);
  if (state === undefined) issue("state", "UNSUPPORTED_VALUE", `state must be one of ${[...STATES.keys()].join(", ")}.`, `يجب أن تكون state إحدى القيم: ${[...STATES.keys()].join(", ")}.`);
  const externalReference = once("externalReference");
  if (externalReference !== null && (externalReference.length < 1 || externalReference.length > 128)) {
    issue("externalReference", externalReference.length < 1 ? "TOO_SHORT" : "TOO_LONG", "externalReference must be 1 to 128 characters.", "يجب أن يكون طول externalReference من 1 إلى 128 حرفًا.");
  } else if (externalReference?.includes("\u0000")) {
    // No reference holds one (creates refuse it), and PostgreSQL text cannot: a 500 until fuzzing found it.
    issue("externalReference", "INVALID_FORMAT", "externalReference must not contain a NUL character.", "يجب ألا يحتوي externalReference على محرف NUL.");
  }
  const cursor = once("cursor");
  const badCursor = cursor !== null && !CURSOR.test(cursor);
  if (issues.length > 0) {
    if (badCursor) issue("cursor", "PATTERN_MISMATCH", "The cursor is malformed.", "المؤشر غير صالح البنية.");
    throw invalidQuery(issues);
  }
  if (badCursor) throw new ProblemError("INVALID_CURSOR", { en: "The cursor is malformed.", ar: "المؤشر غير صالح البنية." });
  return { limit, cursor: cursor ?? "", state: state ?? ShipmentState.UNSPECIFIED, externalReference: externalReference ?? "" };
}

/** GET /v2/external/shipments: a page of shape B shipments, newest first (keyset, HMAC cursor). */
export function listEndpoint(app: FastifyInstance, shipments: Client<typeof ShipmentService>): Endpoint {
  return {
    onRequest: app.guard("shipments:read"),
    handler: async (request) => {
      const query = listQuery(request);
      const page = await shipments.listShipments({ merchantId: request.principal!.merchantId, ...query });
      return {
        data: page.shipments.map(renderShapeB),
        page: { limit: query.limit, nextCursor: page.nextCursor || null, hasMore: page.nextCursor !== "" },
        links: { self: request.url },
      };
    },
  };
}

/** GET /v2/external/shipments/{id}: the authoritative read, shape B, with ETag and If-None-Match. */
export function readEndpoint(app: FastifyInstance, shipments: Client<typeof ShipmentService>): Endpoint {
  return {
    onRequest: app.guard("shipments:read"),
    handler: async (request, reply) => {
      const { shipment } = await shipments.getShipment({ merchantId: request.principal!.merchantId, shipmentId: shipmentIdOf(request) });
      if (!shipment) throw new Error("GetShipment answered without a shipment");
      const etag = etagOf(shipment);
      void reply.header("etag", etag);
      if (notModified(request.headers["if-none-match"], etag)) return reply.code(304).send();
      return renderShapeB(shipment);
    },
  };
}

/** RFC 9110 13.1.2: weak comparison against each listed tag, or `*`. */
function notModified(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}
