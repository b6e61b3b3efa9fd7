import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { AssignmentChangedSchema, DriverLocationSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { describe, expect, it } from "vitest";
import type { ConsumedEvent } from "@tawsil/events";
import { ignoredEvent, TOPICS } from "./projection-consumer";

const event = (topic: string, payload: Uint8Array): ConsumedEvent => ({ eventId: randomUUID(), type: "", key: "k", payload, topic, partition: 0, offset: "0" });
const at = timestampFromMs(Date.UTC(2026, 10, 27));
const fix = (shipmentId: string) =>
  event(TOPICS.locations, toBinary(DriverLocationSchema, create(DriverLocationSchema, { driverRef: "d-1", shipmentId, position: { latitudeMicro: 1, longitudeMicro: 2 }, accuracyMetres: 5, recordTime: at })));
const assignment = (change: string, driverRef: string) =>
  event(TOPICS.assignments, toBinary(AssignmentChangedSchema, create(AssignmentChangedSchema, { shipmentId: randomUUID(), offerId: "", driverRef, change, occurTime: at })));

describe("the events tracking skips without a transaction", () => {
  const ignored = ignoredEvent();

  it("are the fixes of drivers carrying nothing and the assignment changes that name no accepted driver", () => {
    expect(ignored(fix(""))).toBe(true);
    expect(ignored(assignment("OFFERED", "d-1"))).toBe(true);
    expect(ignored(assignment("DECLINED", "d-1"))).toBe(true);
    expect(ignored(assignment("ACCEPTED", ""))).toBe(true);
  });

  it("are never a fix of a carried shipment, an acceptance, a shipment change or an event it cannot read (the handler logs that)", () => {
    expect(ignored(fix(randomUUID()))).toBe(false);
    expect(ignored(assignment("ACCEPTED", "d-1"))).toBe(false);
    expect(ignored(event(TOPICS.shipments, new Uint8Array()))).toBe(false);
    expect(ignored(event(TOPICS.assignments, new Uint8Array()))).toBe(false);
    expect(ignored(event(TOPICS.locations, new Uint8Array()))).toBe(false);
  });
});
