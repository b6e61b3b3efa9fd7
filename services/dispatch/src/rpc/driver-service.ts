import type { ServiceImpl } from "@connectrpc/connect";
import { ValidationError, type DomainError } from "@tawsil/errors";
import { FieldViolationsSchema, RetryDelaySchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { DeliveryProofRefusedError } from "../domain/errors";
import { Progress as ProtoProgress, type DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { withDomainErrors } from "@tawsil/rpc";
import type { Logger } from "@tawsil/logging";
import type { DriverApi, Progress } from "../app/driver-api";

const PROGRESS: Partial<Record<ProtoProgress, Progress>> = {
  [ProtoProgress.PICKED_UP]: "PICKED_UP",
  [ProtoProgress.OUT_FOR_DELIVERY]: "OUT_FOR_DELIVERY",
  [ProtoProgress.DELIVERED]: "DELIVERED",
  [ProtoProgress.FAILED]: "FAILED",
};

const sar = (amount: string) => ({ currency: "SAR", amount });

/** What a driver does, for the gateway's /v2/driver routes. Maps and delegates. */
export function driverService(deps: { driverApi: DriverApi; logger: Logger }): ServiceImpl<typeof DriverService> {
  const api = deps.driverApi;
  return withDomainErrors(
    {
      async setAvailability(req) {
        await api.setAvailability({ driverId: req.driverId, available: req.available, position: req.position });
        return {};
      },
      async listOffers(req, context) {
        const offers = await api.listOffers({ driverId: req.driverId, waitMs: req.waitMs, signal: context.signal });
        return {
          offers: offers.map(({ expiresAt, codAmount, ...offer }) => ({ ...offer, requirements: [...offer.requirements], codAmount: sar(codAmount), expireTimeUnixMs: BigInt(expiresAt.getTime()) })),
        };
      },
      async listJobs(req) {
        const jobs = await api.listJobs({ driverId: req.driverId });
        return { jobs: jobs.map(({ codAmount, ...job }) => ({ ...job, requirements: [...job.requirements], codAmount: sar(codAmount) })) };
      },
      async acceptOffer(req) {
        await api.acceptOffer({ driverId: req.driverId, offerId: req.offerId });
        return {};
      },
      async declineOffer(req) {
        await api.declineOffer({ driverId: req.driverId, offerId: req.offerId });
        return {};
      },
      async reportProgress(req) {
        const progress = PROGRESS[req.progress];
        if (!progress) throw new ValidationError("progress", "is required");
        const idempotency = req.idempotencyKey === "" ? undefined : { key: req.idempotencyKey, fingerprint: req.requestFingerprint };
        await api.reportProgress({
          driverId: req.driverId,
          shipmentId: req.shipmentId,
          progress,
          reasonCode: req.reasonCode,
          // Fields 5-7: the proof of delivery, judged where the state changes (the shipment service).
          proof: {
            deliveryPin: req.deliveryPin,
            evidenceMediaAssetIds: req.evidenceMediaAssetIds,
            codCollected: req.codCollected ? { currency: req.codCollected.currency, amount: req.codCollected.amount } : null,
          },
          idempotency,
        });
        return {};
      },
      async reportLocations(req) {
        await api.reportDriverFixes({
          driverId: req.driverId,
          fixes: req.fixes.map((fix) => ({ position: fix.position, accuracyMetres: fix.accuracyMetres, recordTimeMs: fix.recordTimeUnixMs })),
        });
        return {};
      },
    },
    { logger: deps.logger, details: proofRefusalDetails },
  );
}

/** A refused proof of delivery leaves with the shipment service's details, for the gateway to word. */
function proofRefusalDetails(error: DomainError) {
  if (!(error instanceof DeliveryProofRefusedError)) return [];
  if (error.retryAfterSeconds !== null) return [{ desc: RetryDelaySchema, value: { seconds: BigInt(error.retryAfterSeconds) } }];
  return [{ desc: FieldViolationsSchema, value: { violations: error.violations.map((v) => ({ field: v.field, code: v.code, params: { ...v.params } })) } }];
}
