/**
 * Independent releases: each consumer reads the events the previous release of its producer wrote
 * (fixtures/, written by write-fixtures.ts from that release and committed), and ignores fields a
 * newer producer adds. buf breaking (make check) guards the protos against main; this guards the
 * consumers' code, which buf cannot see.
 */
import { fromBinary, fromJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { AssignmentChangedSchema, DriverLocationSchema } from "../../packages/proto/src/gen/tawsil/dispatch/v1/events_pb";
import { MerchantChangedSchema } from "../../packages/proto/src/gen/tawsil/merchant/v1/events_pb";
import { ShipmentChangedSchema } from "../../packages/proto/src/gen/tawsil/shipment/v1/events_pb";
import { ShipmentState } from "../../packages/proto/src/gen/tawsil/shipment/v1/shipment_pb";
import { assignmentFactOf, fixFactOf, shipmentFactOf } from "../../services/tracking/src/consumers/decode";
import { publicFactOf } from "../../services/webhook/src/consumers/shipment-events";
import { ASSIGNMENT_EVENTS_TOPIC, DRIVER_LOCATION_TOPIC, MERCHANT_EVENTS_TOPIC, SHIPMENT_EVENTS_TOPIC } from "../../packages/topology/src";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const EVENTS = [ShipmentChangedSchema, AssignmentChangedSchema, DriverLocationSchema, MerchantChangedSchema];
const fixture = (schema: DescMessage) => new Uint8Array(readFileSync(path.join(HERE, "fixtures", `${schema.typeName}.bin`)));
const meaning = (schema: DescMessage) => JSON.parse(readFileSync(path.join(HERE, "fixtures", `${schema.typeName}.json`), "utf8")) as JsonValue;

/** Field 999 (never used by our protos), varint 1: what a newer producer's added field looks like on the wire. */
const withUnknownField = (payload: Uint8Array) => new Uint8Array([...payload, 0xb8, 0x3e, 0x01]);
const NOW = new Date("2030-01-01T00:00:00Z");

describe.each(EVENTS.map((schema) => [schema.typeName, schema] as const))("%s as the previous release wrote it", (_, schema) => {
  it("decodes with today's schema to exactly what it meant", () => {
    expect(fromBinary(schema, fixture(schema))).toEqual(fromJson(schema, meaning(schema)));
  });

  it("still decodes when a newer producer adds a field (unknown fields are kept, not fatal)", () => {
    const decoded = fromBinary(schema, withUnknownField(fixture(schema)));
    const plain = fromJson(schema, meaning(schema));
    expect({ ...decoded, $unknown: undefined }).toEqual({ ...plain, $unknown: undefined });
    expect(decoded.$unknown).toEqual([{ no: 999, wireType: 0, data: new Uint8Array([0x01]) }]);
  });
});

describe.each([
  ["previous release's payload", fixture(ShipmentChangedSchema)],
  ["payload with a field added since", withUnknownField(fixture(ShipmentChangedSchema))],
])(`consumers of ${SHIPMENT_EVENTS_TOPIC}, on the %s`, (_, payload) => {
  it("tracking projects the shipment: its state, version, places and tracking code hash", () => {
    expect(shipmentFactOf(payload)).toMatchObject({
      shipmentId: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", merchantId: "m-demo-riyadh", state: "READY_FOR_DISPATCH", version: 2n,
      pickup: { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 }, cityCode: "RUH", occurredAt: new Date("2026-11-20T10:00:00Z"),
    });
    expect(shipmentFactOf(payload)?.trackingCodeSha256).toHaveLength(32);
  });

  it("webhook announces the public status change with the merchant's reference and tracking url", () => {
    expect(publicFactOf(payload, NOW)).toEqual({
      shipmentId: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", merchantId: "m-demo-riyadh", reference: "ORDER-42", status: "CREATED", version: 2n,
      occurredAt: new Date("2026-11-20T10:00:00Z"), trackingUrl: "https://sandbox.api.tawsil.sa/t/abc", reasonCode: "",
      // The previous release's events carry no timeline media (issue 29): an empty one, not a failure.
      timelineMedia: [],
    });
  });

  it("dispatch finds what a new job needs (services/dispatch/src/app/shipment-events.ts reads the same fields)", () => {
    const shipment = fromBinary(ShipmentChangedSchema, payload).shipment;
    expect(shipment?.state).toBe(ShipmentState.READY_FOR_DISPATCH);
    expect(shipment?.pickup?.coordinate && shipment.destination?.coordinate && shipment.pickup.cityCode).toBeTruthy();
    expect(shipment?.items[0]?.lengthCentimetres).toBe("30");
    expect(shipment?.totalWeightKilograms).toBe("1.250");
  });
});

describe.each([
  ["previous release's payloads", (p: Uint8Array) => p],
  ["payloads with a field added since", withUnknownField],
])("tracking, consumer of dispatch's topics, on the %s", (_, wire) => {
  it(`takes an accepted offer's driver from ${ASSIGNMENT_EVENTS_TOPIC}`, () => {
    expect(assignmentFactOf(wire(fixture(AssignmentChangedSchema)))).toEqual({
      change: "ACCEPTED", fact: { shipmentId: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", driverRef: "drv-7", occurredAt: new Date("2026-11-20T10:00:00Z") },
    });
  });

  it(`takes a position from ${DRIVER_LOCATION_TOPIC}`, () => {
    expect(fixFactOf(wire(fixture(DriverLocationSchema)))).toMatchObject({ driverRef: "drv-7", position: { latitudeMicro: 24_720_000, longitudeMicro: 46_690_000 }, accuracyMetres: 12 });
  });
});

describe(MERCHANT_EVENTS_TOPIC, () => {
  it("is read by shipment and pricing by its key alone (the merchant id), which its payload repeats", () => {
    // Their caches drop the entry of the record's key (packages/events invalidateOnEvents): the
    // payload is never decoded there, so only the key's meaning is part of their contract.
    for (const consumer of ["services/shipment/src/consumers/merchant-changes.ts", "services/pricing/src/consumers/merchant-changes.ts"]) {
      expect(readFileSync(path.join(ROOT, consumer), "utf8")).toContain("invalidateOnEvents(");
    }
    expect(fromBinary(MerchantChangedSchema, withUnknownField(fixture(MerchantChangedSchema))).merchantId).toBe("m-demo-riyadh");
  });
});

describe("buf breaking (make buf-breaking, against main)", () => {
  it("covers every events.proto: inside the buf module, not ignored, with wire-compatibility rules", () => {
    const buf = parse(readFileSync(path.join(ROOT, "buf.yaml"), "utf8")) as { modules: { path: string }[]; breaking: { use: string[]; ignore?: string[] } };
    expect(buf.breaking.use).toContain("FILE");
    const eventsProtos = ["shipment", "dispatch", "merchant"].map((svc) => `proto/tawsil/${svc}/v1/events.proto`);
    for (const file of eventsProtos) {
      expect(buf.modules.some((m) => file.startsWith(`${m.path}/`)), file).toBe(true);
      expect((buf.breaking.ignore ?? []).some((ignored) => file.startsWith(ignored)), file).toBe(false);
    }
    // The fixtures were written from a commit whose events are the ones checked here.
    expect(readFileSync(path.join(HERE, "fixtures", "RELEASE"), "utf8")).toMatch(/^[0-9a-f]{40}\n$/);
    expect(EVENTS.map((s) => s.typeName).sort()).toEqual(["tawsil.dispatch.v1.AssignmentChanged", "tawsil.dispatch.v1.DriverLocation", "tawsil.merchant.v1.MerchantChanged", "tawsil.shipment.v1.ShipmentChanged"]);
  });
});
