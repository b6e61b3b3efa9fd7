import type { Client } from "@connectrpc/connect";
import type { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { FastifyInstance } from "fastify";
import { resource } from "../routes/route-table";
import { listEndpoint, readEndpoint } from "./reads";
import { cancelEndpoint, createEndpoint } from "./writes";

/** The shipment resources of the contract. */
export function registerShipments(app: FastifyInstance, shipments: Client<typeof ShipmentService>): void {
  resource(app, "/v2/external/shipments", { GET: listEndpoint(app, shipments), POST: createEndpoint(app, shipments) });
  resource(app, "/v2/external/shipments/:shipmentId", { GET: readEndpoint(app, shipments) });
  resource(app, "/v2/external/shipments/:shipmentId/cancel", { POST: cancelEndpoint(app, shipments) });
}
