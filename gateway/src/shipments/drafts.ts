import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { PaymentMethod } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { ShipmentDraftSchema } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { toMicro } from "../validation/rules";
import { canonicalMobile, type ShapeABody, type ShapeBBody } from "./create-schemas";

type Draft = MessageInitShape<typeof ShipmentDraftSchema>;

/** A JSON number as the decimal string the services compute with. */
const decimal = (value: number | undefined, fallback = "0"): string => (value === undefined ? fallback : String(value));
const timestamp = (iso: string | undefined) => (iso === undefined ? undefined : timestampFromDate(new Date(iso)));

/**
 * Shape A to the shape-independent draft: the parcel becomes one item (quantity = pieces, unit
 * weight = weightKg / pieces to 3 decimals) whose total stays weightKg exactly (decisions.md 2).
 */
export function draftFromShapeA(body: ShapeABody): Draft {
  const pieces = body.parcel?.pieces ?? 1;
  const weightKg = body.parcel?.weightKg ?? 1;
  const pickup = body.pickup.savedLocationCode !== undefined
    ? { case: "savedLocationCode" as const, value: body.pickup.savedLocationCode }
    : { case: "pickupCoordinate" as const, value: toMicro({ latitude: body.pickup.latitude!, longitude: body.pickup.longitude! }) };
  return create(ShipmentDraftSchema, {
    externalReference: body.reference,
    pickup,
    recipientName: body.recipient.name,
    recipientPhone: canonicalMobile(body.recipient.mobile),
    destination: toMicro(body.destination),
    items: [{ description: body.parcel?.description ?? "Parcel", quantity: pieces, weightKilograms: (weightKg / pieces).toFixed(3) }],
    totalWeightKilograms: weightKg.toFixed(3),
    declaredValue: "0",
    codAmount: decimal(body.codAmount),
    paymentMethod: PaymentMethod.UNSPECIFIED,
    pickupWindowStart: timestamp(body.pickupWindow?.start),
    pickupWindowEnd: timestamp(body.pickupWindow?.end),
    timelineMedia: body.timelineMedia ?? [],
  });
}

const PAYMENT: Record<"PREPAID" | "COD", PaymentMethod> = { PREPAID: PaymentMethod.PREPAID, COD: PaymentMethod.COD };

/** Shape B to the shape-independent draft; omitted optional fields take decisions.md section 2's defaults. */
export function draftFromShapeB(body: ShapeBBody): Draft {
  return create(ShipmentDraftSchema, {
    externalReference: body.externalReference,
    pickup: { case: "savedLocationCode", value: body.pickupLocationCode },
    branchCode: body.branchCode ?? "",
    recipientName: body.recipient.name,
    recipientPhone: canonicalMobile(body.recipient.phone),
    alternateContactName: body.recipient.alternateContactName ?? "",
    alternateContactPhone: body.recipient.alternateContactPhone ? canonicalMobile(body.recipient.alternateContactPhone) : "",
    destination: toMicro(body.destination),
    destinationAddressLine: body.destination.addressLine ?? "",
    destinationCityCode: body.destination.cityCode ?? "",
    items: body.items.map((item) => ({
      description: item.description,
      quantity: item.quantity,
      weightKilograms: String(item.weightKilograms),
      lengthCentimetres: decimal(item.lengthCentimetres, ""),
      widthCentimetres: decimal(item.widthCentimetres, ""),
      heightCentimetres: decimal(item.heightCentimetres, ""),
    })),
    declaredValue: decimal(body.declaredValue),
    codAmount: decimal(body.codAmount),
    currency: body.currency ?? "",
    paymentMethod: body.paymentMethod ? PAYMENT[body.paymentMethod] : PaymentMethod.UNSPECIFIED,
    pickupWindowStart: timestamp(body.pickupWindowStart),
    pickupWindowEnd: timestamp(body.pickupWindowEnd),
    requirements: body.requirements ?? [],
    timelineMedia: body.timelineMedia ?? [],
  });
}
