import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";
import { DispatchStep, type ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { ApplyDispatchStep } from "../app/apply-dispatch-step";
import type { CancelShipment } from "../app/cancel-shipment";
import type { CreateShipment } from "../app/create-shipment";
import type { FindTrackedShipment } from "../app/find-tracked-shipment";
import { currentCaller, withDomainErrors } from "@tawsil/rpc";
import type { ReadShipments } from "../app/read-shipments";
import type { ReserveForOffer } from "../app/reserve-for-offer";
import { shipmentToProto, stateFromProto } from "../messages/shipment-message";
import { shipmentErrorDetails } from "./domain-errors";
import { dispatchStepFromProto, draftFromProto, idempotencyFromProto, shipmentFromSnapshot, shipmentMessage, type TrackingLinks } from "./messages";

export interface ShipmentServiceDeps {
  readonly createShipment: CreateShipment;
  readonly cancelShipment: CancelShipment;
  readonly reserveForOffer: ReserveForOffer;
  readonly applyDispatchStep: ApplyDispatchStep;
  readonly readShipments: ReadShipments;
  readonly findTrackedShipment: FindTrackedShipment;
  readonly links: TrackingLinks;
  readonly logger: Logger;
}

/** What the gateway and dispatch call. Maps and delegates. */
export function shipmentService(deps: ShipmentServiceDeps): ServiceImpl<typeof ShipmentService> {
  const { links } = deps;
  return withDomainErrors({
    async createShipment(req, ctx) {
      const result = await deps.createShipment.execute(
        { merchantId: req.merchantId, idempotency: idempotencyFromProto(req.idempotency), draft: draftFromProto(req.draft) },
        ctx.signal,
      );
      return { shipment: shipmentFromSnapshot(result.snapshot, links), replayed: result.replayed };
    },
    async getShipment(req) {
      // Dispatch reads the state too; only the merchant's read (through the gateway) shows the PIN.
      return { shipment: shipmentMessage(await deps.readShipments.get(req.merchantId, req.shipmentId), links, currentCaller() !== "dispatch") };
    },
    async listShipments(req) {
      const query = { merchantId: req.merchantId, state: stateFromProto(req.state), externalReference: req.externalReference === "" ? null : req.externalReference };
      const page = await deps.readShipments.list(query, req.limit, req.cursor);
      return { shipments: page.shipments.map((shipment) => shipmentMessage(shipment, links, true)), nextCursor: page.nextCursor };
    },
    async cancelShipment(req) {
      const result = await deps.cancelShipment.execute({
        merchantId: req.merchantId,
        shipmentId: req.shipmentId,
        reasonCode: req.reasonCode,
        idempotency: idempotencyFromProto(req.idempotency),
      });
      return { shipment: shipmentFromSnapshot(result.snapshot, links), replayed: result.replayed };
    },
    async reserveForOffer(req) {
      return { shipment: shipmentMessage(await deps.reserveForOffer.execute({ shipmentId: req.shipmentId, expectedVersion: req.expectedVersion }), links) };
    },
    async applyDispatchStep(req) {
      const shipment = await deps.applyDispatchStep.execute({
        shipmentId: req.shipmentId,
        step: dispatchStepFromProto(req.step),
        expectedVersion: req.expectedVersion,
        reasonCode: req.reasonCode,
        proof: {
          driverId: req.driverId,
          pin: req.deliveryPin,
          evidenceIds: req.evidenceMediaAssetIds,
          codCollected: req.codCollected ? { currency: req.codCollected.currency, amount: req.codCollected.amount } : null,
        },
      });
      // The full phone goes to dispatch only for the driver who now carries the shipment.
      const recipientPhone = req.step === DispatchStep.ACCEPT ? shipment.recipientPhone : "";
      return { shipment: shipmentMessage(shipment, links), recipientPhone };
    },
    async findTrackedShipment(req) {
      const key = req.key.case === "trackingCodeSha256" ? { trackingCodeSha256: req.key.value } : { shipmentId: req.key.value ?? "" };
      const found = await deps.findTrackedShipment.execute(key);
      return {
        shipment: shipmentToProto(found.shipment),
        trackingCodeSha256: found.trackingCodeSha256,
        ...(found.terminalAt ? { terminalTime: timestampFromDate(found.terminalAt) } : {}),
        // The customer page shows the PIN to the recipient while the driver is on the way, never otherwise.
        deliveryPin: found.shipment.state === "OUT_FOR_DELIVERY" ? (found.shipment.deliveryPin ?? "") : "",
      };
    },
  }, { logger: deps.logger, details: shipmentErrorDetails });
}
