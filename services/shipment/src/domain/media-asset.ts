import { ShipmentValidationError, type FieldViolation } from "./errors";

/** decisions.md section 16: what a merchant may upload; a driver's evidence is an image (section 17). */
export const MEDIA_CONTENT_TYPES = ["image/jpeg", "image/png", "image/webp", "application/pdf"] as const;
export type MediaContentType = (typeof MEDIA_CONTENT_TYPES)[number];
const DRIVER_CONTENT_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/webp"];
export const MERCHANT_MEDIA_PURPOSES = ["SHIPMENT_CREATION_EVIDENCE"] as const;
/** A driver's proof of delivery: what SIGNATURE_ON_DELIVERY and NO_CONTACT ask for. */
export const DRIVER_MEDIA_PURPOSES = ["DELIVERY_SIGNATURE", "DELIVERY_PHOTO"] as const;

/** Who owns an asset: a merchant (evidence for a create) or a driver (proof of a delivery). */
export type MediaOwner = { readonly kind: "merchant"; readonly id: string } | { readonly kind: "driver"; readonly id: string };

/** Whether the owner may see the asset; anyone else's asset is as unknown as a missing one. */
export function ownerOf(asset: MediaAsset): MediaOwner {
  return asset.driverId !== null ? { kind: "driver", id: asset.driverId } : { kind: "merchant", id: asset.merchantId ?? "" };
}
/** 10 MiB, the limit of one asset and of a content upload's body. */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/** A shipment's timeline holds at most this many assets (delivery-api.md limits). */
export const MAX_TIMELINE_MEDIA = 10;

export type MediaAssetStatus = "PENDING_UPLOAD" | "READY";

/** Facts read from verified bytes, never from the merchant. */
export interface VerifiedContent {
  readonly sha256: Uint8Array;
  /** Pixels, as the image's own header says; null for a PDF. */
  readonly width: number | null;
  readonly height: number | null;
}

export interface MediaAsset {
  readonly id: string;
  /** Exactly one of merchantId and driverId is set. */
  readonly merchantId: string | null;
  readonly driverId: string | null;
  readonly purpose: string;
  readonly contentType: MediaContentType;
  readonly sizeBytes: number;
  readonly status: MediaAssetStatus;
  readonly content: VerifiedContent | null;
  readonly createdAt: Date;
  /** When it is deleted unless a create attached it first. */
  readonly expiresAt: Date;
  readonly shipmentId: string | null;
}

/** An attachment named by a create: the asset, the purpose the merchant says it serves, its place. */
export interface TimelineEntry {
  readonly mediaAssetId: string;
  readonly purpose: string;
  readonly sortOrder: number;
}

/** The object's key in the bucket: one per asset, so a retried upload overwrites, never piles up. */
export const objectKeyOf = (assetId: string) => `media/${assetId}`;
/** The asset an object key belongs to, or null for a key that is not an asset's. */
export function assetIdOfKey(key: string): string | null {
  const match = /^media\/([0-9a-f-]{36})$/.exec(key);
  return match ? match[1]! : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

export function isMediaContentType(value: string): value is MediaContentType {
  return (MEDIA_CONTENT_TYPES as readonly string[]).includes(value);
}

/** A declared upload, before anything is stored (the gateway checks the same; this is the service's own guard). */
export function declaredAsset(input: { id: string; owner: MediaOwner; purpose: string; contentType: string; sizeBytes: number; now: Date; retentionMs: number }): MediaAsset {
  const violations: FieldViolation[] = [];
  const driver = input.owner.kind === "driver";
  const purposes: readonly string[] = driver ? DRIVER_MEDIA_PURPOSES : MERCHANT_MEDIA_PURPOSES;
  if (!purposes.includes(input.purpose)) violations.push({ field: "purpose", code: "UNSUPPORTED_VALUE" });
  if (!isMediaContentType(input.contentType) || (driver && !DRIVER_CONTENT_TYPES.includes(input.contentType))) violations.push({ field: "content_type", code: "UNSUPPORTED_VALUE" });
  if (!Number.isInteger(input.sizeBytes) || input.sizeBytes < 1 || input.sizeBytes > MAX_MEDIA_BYTES) {
    violations.push({ field: "size_bytes", code: "OUT_OF_RANGE", params: { min: "1", max: String(MAX_MEDIA_BYTES) } });
  }
  if (violations.length > 0 || !isMediaContentType(input.contentType)) throw new ShipmentValidationError(violations);
  return {
    id: input.id,
    merchantId: driver ? null : input.owner.id,
    driverId: driver ? input.owner.id : null,
    purpose: input.purpose,
    contentType: input.contentType,
    sizeBytes: input.sizeBytes,
    status: "PENDING_UPLOAD",
    content: null,
    createdAt: input.now,
    expiresAt: new Date(input.now.getTime() + input.retentionMs),
    shipmentId: null,
  };
}

/** A create's timelineMedia, judged before any lookup: bounds, duplicates (the rest is the store's, in the create's transaction). */
export function timelineViolations(entries: readonly TimelineEntry[]): FieldViolation[] {
  if (entries.length > MAX_TIMELINE_MEDIA) return [{ field: "timeline_media", code: "TOO_MANY_ITEMS", params: { max: String(MAX_TIMELINE_MEDIA) } }];
  const seen = new Set<string>();
  return entries.flatMap((entry, i): FieldViolation[] => {
    const field = `timeline_media[${i}].media_asset_id`;
    if (!isUuid(entry.mediaAssetId)) return [{ field, code: "INVALID_FORMAT" }];
    if (seen.has(entry.mediaAssetId.toLowerCase())) return [{ field, code: "INCONSISTENT_VALUE" }];
    seen.add(entry.mediaAssetId.toLowerCase());
    return [];
  });
}

/** The violation for each named asset the create could not attach (not the merchant's, not READY, taken). */
export function unattachedViolations(entries: readonly TimelineEntry[], attachedIds: readonly string[]): FieldViolation[] {
  const attached = new Set(attachedIds.map((id) => id.toLowerCase()));
  return entries.flatMap((entry, i) =>
    attached.has(entry.mediaAssetId.toLowerCase()) ? [] : [{ field: `timeline_media[${i}].media_asset_id`, code: "UNKNOWN_REFERENCE", params: { entity: "media asset" } }],
  );
}
