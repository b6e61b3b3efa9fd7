import type { Client } from "@connectrpc/connect";
import type { Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import type { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Endpoint } from "../routes/route-table";
import { idempotencyKeyOf } from "../request/idempotency-key";
import { cancelABody, cancelBBody } from "./cancel-schemas";
import { shapeABody, shapeBBody } from "./create-schemas";
import { draftFromShapeA, draftFromShapeB } from "./drafts";
import { fingerprint } from "./fingerprint";
import { withImplicitKey } from "./implicit-key";
import { etagOf, renderShapeA, renderShapeB } from "./render";
import { shapeOf } from "./shape";
import { inRequestShape } from "./violation-fields";
import { validateBody } from "../validation/validate";
import { shipmentIdOf } from "./shipment-id";


function sendShipment(reply: FastifyReply, shape: "A" | "B", shipment: Shipment, status: number): FastifyReply {
  return reply.code(status).header("etag", etagOf(shipment)).send(shape === "A" ? renderShapeA(shipment) : renderShapeB(shipment));
}

/**
 * POST /v2/external/shipments: create or replay, either shape, idempotent (decisions.md sections
 * 1 to 3). The shipment service owns idempotency; the gateway chooses the key (the header, else
 * the reference), fingerprints the parsed body and answers in the request's shape.
 */
export function createEndpoint(app: FastifyInstance, shipments: Client<typeof ShipmentService>): Endpoint {
  return {
    onRequest: app.guard("shipments:write"),
    handler: async (request, reply) => {
      const header = idempotencyKeyOf(request);
      const shape = shapeOf(request.body, { a: "reference", b: "externalReference" });
      const draft = shape === "A" ? draftFromShapeA(validateBody(shapeABody, request.body)) : draftFromShapeB(validateBody(shapeBBody, request.body));
      const principal = request.principal!;
      const { shipment, replayed } = await shipments
        .createShipment({
          merchantId: principal.merchantId,
          idempotency: { key: header ?? draft.externalReference ?? "", clientId: principal.clientId, fingerprint: fingerprint(shape, request.body) },
          draft,
        })
        .catch((error: unknown) => {
          throw inRequestShape(shape, header ? error : withImplicitKey("create", error));
        });
      if (!shipment) throw new Error("CreateShipment answered without a shipment");
      void reply.header("location", `/v2/external/shipments/${shipment.shipmentId}`);
      return sendShipment(reply, shape, shipment, replayed ? 200 : 201);
    },
  };
}

/** POST /v2/external/shipments/{id}/cancel: either shape, idempotent (decisions.md sections 3 and 4). */
export function cancelEndpoint(app: FastifyInstance, shipments: Client<typeof ShipmentService>): Endpoint {
  return {
    onRequest: app.guard("shipments:write"),
    handler: async (request, reply) => {
      const shipmentId = shipmentIdOf(request);
      const header = idempotencyKeyOf(request);
      const shape = shapeOf(request.body, { a: "reason", b: "reasonCode" });
      const reasonCode = shape === "A" ? validateBody(cancelABody, request.body).reason : validateBody(cancelBBody, request.body).reasonCode;
      const principal = request.principal!;
      const { shipment } = await shipments
        .cancelShipment({
          merchantId: principal.merchantId,
          shipmentId,
          reasonCode,
          // Without a header the key derives from the shipment and is scoped to the merchant only.
          idempotency: header
            ? { key: header, clientId: principal.clientId, fingerprint: fingerprint(shape, request.body) }
            : { key: shipmentId, clientId: "", fingerprint: fingerprint(shape, request.body) },
        })
        .catch((error: unknown) => {
          throw inRequestShape(shape, header ? error : withImplicitKey("cancel", error));
        });
      if (!shipment) throw new Error("CancelShipment answered without a shipment");
      return sendShipment(reply, shape, shipment, 200);
    },
  };
}
