import type { Client } from "@connectrpc/connect";
import { DependencyUnavailableError } from "@tawsil/errors";
import type { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import type { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { DeliveryProof } from "../app/ports";
import type { SandboxRecipient } from "../app/sandbox-driver";
import { generatedPng } from "./generated-png";

/** The evidence purpose each requirement asks for (decisions.md section 17). */
const EVIDENCE_OF: Readonly<Record<string, string>> = { SIGNATURE_ON_DELIVERY: "DELIVERY_SIGNATURE", NO_CONTACT: "DELIVERY_PHOTO" };

/**
 * The sandbox's stand-in for the recipient at the door and the driver's camera: it asks the
 * shipment service what the delivery must prove (the sandbox-only GetSandboxDeliveryProof), and
 * uploads generated evidence as the driver's own media assets, the way a driver's app does
 * (create, PUT the bytes to the presigned URL, complete). Only the sandbox fleet is wired to it.
 */
export function sandboxRecipientOver(deps: {
  shipments: Client<typeof ShipmentService>;
  media: Client<typeof MediaAssetService>;
  /** Deadline of each upload to object storage. */
  uploadTimeoutMs: number;
}): SandboxRecipient {
  return {
    async proofFor(driverId, shipmentId): Promise<Omit<DeliveryProof, "driverId">> {
      const asked = await peer(() => deps.shipments.getSandboxDeliveryProof({ shipmentId }));
      const evidenceMediaAssetIds: string[] = [];
      for (const requirement of asked.requirements) {
        const purpose = EVIDENCE_OF[requirement];
        if (purpose) evidenceMediaAssetIds.push(await upload(driverId, purpose));
      }
      const cod = asked.codAmount;
      const codCollected = cod && Number(cod.amount) > 0 ? { currency: cod.currency, amount: cod.amount } : null;
      return { deliveryPin: asked.deliveryPin, evidenceMediaAssetIds, codCollected };
    },
  };

  async function upload(driverId: string, purpose: string): Promise<string> {
    const bytes = generatedPng();
    const { asset } = await peer(() => deps.media.createMediaAsset({ driverId, purpose, contentType: "image/png", sizeBytes: BigInt(bytes.length) }));
    const mediaAssetId = asset?.mediaAssetId ?? "";
    const { uploadUrl } = await peer(() => deps.media.beginMediaUpload({ driverId, mediaAssetId }));
    let put: Response;
    try {
      put = await fetch(uploadUrl, { method: "PUT", headers: { "content-type": "image/png" }, body: bytes, signal: AbortSignal.timeout(deps.uploadTimeoutMs) });
    } catch (error) {
      throw new DependencyUnavailableError("media storage", { cause: error });
    }
    if (!put.ok) throw new DependencyUnavailableError("media storage", { cause: new Error(`upload answered ${put.status}`) });
    await peer(() => deps.media.completeMediaUpload({ driverId, mediaAssetId }));
    return mediaAssetId;
  }
}

/** Any failure here is the sandbox's own outage: the driver tries the delivery again on its next tick. */
async function peer<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new DependencyUnavailableError("shipment service", { cause: error });
  }
}
