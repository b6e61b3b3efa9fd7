import type { Delivery, DeliveryProof, DriverApp } from "./ports";

/** The evidence purpose each requirement asks for (decisions.md section 17). */
const EVIDENCE_OF: Readonly<Record<string, "DELIVERY_SIGNATURE" | "DELIVERY_PHOTO">> = { SIGNATURE_ON_DELIVERY: "DELIVERY_SIGNATURE", NO_CONTACT: "DELIVERY_PHOTO" };

/**
 * What a delivery proves, gathered as a driver would at the door: the PIN the recipient tells
 * (asked only when the shipment requires one), a generated image uploaded as the driver's own asset
 * per requirement that asks for evidence, and the cash of a COD shipment, exactly its amount.
 */
export async function proofOf(delivery: Delivery, app: DriverApp, deliveryPin: (shipmentId: string) => Promise<string>): Promise<DeliveryProof> {
  const evidenceMediaAssetIds: string[] = [];
  for (const requirement of delivery.requirements) {
    const purpose = EVIDENCE_OF[requirement];
    if (purpose) evidenceMediaAssetIds.push(await app.uploadEvidence(purpose));
  }
  return {
    evidenceMediaAssetIds,
    ...(delivery.requirements.includes("PIN_ON_DELIVERY") ? { deliveryPin: await deliveryPin(delivery.shipmentId) } : {}),
    ...(delivery.codAmount > 0 ? { codCollected: delivery.codAmount } : {}),
  };
}
