/**
 * Writes the event fixtures the compatibility test decodes: each event message as the current
 * release writes it, in binary (fixtures/<message>.bin) and as JSON (fixtures/<message>.json, what
 * those bytes mean). Run it from a released commit and commit the result:
 *   node_modules/.bin/tsx tests/compat/write-fixtures.ts
 * Until the next release the fixtures stay as they are, so a change to a consumer or to the protos
 * on a branch is tested against what the release in production still writes.
 */
import { create, toBinary, toJson, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AssignmentChangedSchema, DriverLocationSchema } from "../../packages/proto/src/gen/tawsil/dispatch/v1/events_pb";
import { MerchantAspect, MerchantChangedSchema } from "../../packages/proto/src/gen/tawsil/merchant/v1/events_pb";
import { ShipmentChangedSchema } from "../../packages/proto/src/gen/tawsil/shipment/v1/events_pb";
import { PaymentMethod, PublicStatus, ShipmentState } from "../../packages/proto/src/gen/tawsil/shipment/v1/shipment_pb";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");
const at = timestampFromDate(new Date("2026-11-20T10:00:00Z"));
const SHIPMENT_ID = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const riyadh = (latitudeMicro: number, longitudeMicro: number, addressLine: string) => ({
  coordinate: { latitudeMicro, longitudeMicro }, addressLine, cityCode: "RUH",
});

/** A shipment ready for dispatch whose public status just changed: what every consumer acts on. */
const shipmentChanged = {
  shipment: {
    shipmentId: SHIPMENT_ID, shipmentNumber: "TWS-000123", merchantId: "m-demo-riyadh", externalReference: "ORDER-42",
    state: ShipmentState.READY_FOR_DISPATCH, publicStatus: PublicStatus.CREATED,
    recipientName: "Sara", maskedRecipientPhone: "+9665******67", totalWeightKilograms: "1.250", declaredValue: "150.00",
    codAmount: "0.00", currency: "SAR", paymentMethod: PaymentMethod.PREPAID, createTime: at, version: 2n,
    pickup: riyadh(24_713_600, 46_675_300, "King Fahd Rd"), destination: riyadh(24_774_265, 46_738_586, "Olaya St"),
    items: [{ description: "Books", quantity: 2, weightKilograms: "1.250", lengthCentimetres: "30", widthCentimetres: "20", heightCentimetres: "10" }],
    requirements: [], trackingUrl: "https://sandbox.api.tawsil.sa/t/abc", branchCode: "", reasonCode: "",
  },
  previousState: ShipmentState.PENDING_APPROVAL,
  publicStatusChanged: true,
  occurTime: at,
  trackingCodeSha256: createHash("sha256").update("a".repeat(43)).digest(),
};

function write<S extends DescMessage>(schema: S, init: MessageInitShape<S>): void {
  const message = create(schema, init);
  writeFileSync(path.join(FIXTURES, `${schema.typeName}.bin`), toBinary(schema, message));
  writeFileSync(path.join(FIXTURES, `${schema.typeName}.json`), `${JSON.stringify(toJson(schema, message), null, 2)}\n`);
}

write(ShipmentChangedSchema, shipmentChanged);
write(AssignmentChangedSchema, { shipmentId: SHIPMENT_ID, offerId: "offer-1", driverRef: "drv-7", change: "ACCEPTED", occurTime: at });
write(DriverLocationSchema, { driverRef: "drv-7", shipmentId: SHIPMENT_ID, position: { latitudeMicro: 24_720_000, longitudeMicro: 46_690_000 }, accuracyMetres: 12, recordTime: at });
write(MerchantChangedSchema, { merchantId: "m-demo-riyadh", aspects: [MerchantAspect.STATUS, MerchantAspect.RATE_CARD], occurTime: at });
// Which release wrote them.
writeFileSync(path.join(FIXTURES, "RELEASE"), `${execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim()}\n`);
