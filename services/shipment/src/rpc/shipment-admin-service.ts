import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";
import type { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { withDomainErrors } from "@tawsil/rpc";
import type { DecideApproval } from "../app/decide-approval";
import type { GetSandboxDeliveryProof } from "../app/sandbox-delivery-proof";
import { shipmentMessage, type TrackingLinks } from "./messages";

const DEFAULT_PENDING_LIMIT = 100;

/** What operators call (the tawsil CLI); the gateway never routes here. Maps and delegates. */
export function shipmentAdminService(deps: { decideApproval: DecideApproval; getSandboxDeliveryProof: GetSandboxDeliveryProof; links: TrackingLinks; logger: Logger }): ServiceImpl<typeof ShipmentAdminService> {
  const { decideApproval, links } = deps;
  return withDomainErrors(
    {
      async approveShipment(req) {
        return { shipment: shipmentMessage(await decideApproval.approve(req.shipmentId), links) };
      },
      async rejectShipment(req) {
        return { shipment: shipmentMessage(await decideApproval.reject(req.shipmentId), links) };
      },
      async listPendingShipments(req) {
        const shipments = await decideApproval.listPending(req.merchantId === "" ? null : req.merchantId, req.limit === 0 ? DEFAULT_PENDING_LIMIT : req.limit);
        return { shipments: shipments.map((shipment) => shipmentMessage(shipment, links)) };
      },
      async getDeliveryProof(req) {
        const proof = await deps.getSandboxDeliveryProof.execute(req.shipmentId);
        return { deliveryPin: proof.deliveryPin ?? "", requirements: [...proof.requirements], codAmount: proof.codAmount };
      },
    },
    { logger: deps.logger },
  );
}
