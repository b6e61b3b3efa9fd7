import { z } from "zod";

/** What merchants may upload (decisions.md section 16); the shipment service checks the same. */
export const MEDIA_CONTENT_TYPES = ["image/jpeg", "image/png", "image/webp", "application/pdf"] as const;

/** POST /v2/external/media-assets: `{purpose, contentType, sizeBytes}`, sizeBytes at most the upload limit. */
export function createAssetBody(limitBytes: number) {
  return z.strictObject({
    purpose: z.enum(["SHIPMENT_CREATION_EVIDENCE"]),
    contentType: z.enum(MEDIA_CONTENT_TYPES),
    sizeBytes: z.number().int().min(1).max(limitBytes),
  });
}

/** What drivers upload as evidence (decisions.md section 17): photos and signatures, images only. */
export const DRIVER_MEDIA_PURPOSES = ["PICKUP_PHOTO", "DELIVERY_PHOTO", "DELIVERY_SIGNATURE"] as const;

/** POST /v2/driver/media-assets: the merchants' body with the drivers' purposes and no PDF. */
export function createDriverAssetBody(limitBytes: number) {
  return z.strictObject({
    purpose: z.enum(DRIVER_MEDIA_PURPOSES),
    contentType: z.enum(["image/jpeg", "image/png", "image/webp"]),
    sizeBytes: z.number().int().min(1).max(limitBytes),
  });
}
