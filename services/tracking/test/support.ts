/**
 * A tracking service in-process on a fresh database, consuming its own test topics on the real
 * broker, with a clock the test moves; the real shipment service (and its peers) behind the
 * fallback; the real gateway in front, with a real merchant service for tokens.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createKafka, EVENT_HEADERS } from "@tawsil/events";
import { AssignmentChangedSchema, DriverLocationSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PublicStatus, ShipmentSchema, ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import type { InProcessService } from "@tawsil/rpc";
import { capturedLogger, createMigratedDatabase, type TestDatabase } from "@tawsil/testing";
import type { Producer } from "kafkajs";
import { ensureTopics } from "../../../packages/testing/src/infra/kafka";
import { startStack as startGatewayStack, type Stack as GatewayStack } from "../../../gateway/test/support/stack";
import { startStack as startShipmentStack, type Stack as ShipmentStack } from "../../shipment/test/support";
import { readConfig } from "../src/config";
import { startTrackingService } from "../src/server";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

export type StateName = keyof typeof ShipmentState;

export interface TrackingStack {
  readonly gateway: GatewayStack;
  readonly shipments: ShipmentStack;
  readonly tracking: InProcessService;
  readonly database: TestDatabase;
  /** The time the tracking service reads. */
  now: Date;
  /** Set by a test that stopped the shipment service early. */
  shipmentsClosed: boolean;
  /** Publishes one event on the test topic of its kind and resolves once tracking has handled it. */
  publish(kind: "shipments" | "assignments" | "locations", key: string, payload: Uint8Array, eventId?: string): Promise<{ eventId: string; applied: boolean }>;
  close(): Promise<void>;
}

export async function startTrackingStack(opts: { adminUrl: string; brokers: readonly string[]; gatewayEnv?: Record<string, string> }): Promise<TrackingStack> {
  const suffix = randomUUID().slice(0, 8);
  const topics = { shipments: `test.tracking.${suffix}.shipments`, assignments: `test.tracking.${suffix}.assignments`, locations: `test.tracking.${suffix}.locations` };
  await ensureTopics([...opts.brokers], Object.values(topics).map((topic) => ({ topic })));
  const shipments = await startShipmentStack(opts.adminUrl, `tracking_${suffix}`);
  const database = await createMigratedDatabase(opts.adminUrl, `tracking_test_${suffix}`, MIGRATIONS);
  const { logger } = capturedLogger("tracking-test");
  const kafka = createKafka({ clientId: `tracking-test-${suffix}`, brokers: [...opts.brokers], logger });
  const deliveries = new Map<string, boolean[]>();
  const stack = { now: new Date(), shipmentsClosed: false };
  const tracking = await startTrackingService(
    readConfig({ HOST: "127.0.0.1", PORT: "0", DATABASE_URL: database.url, KAFKA_BROKERS: opts.brokers.join(","), SHIPMENT_SERVICE_URL: shipments.shipment.url, SHUTDOWN_GRACE_MS: "100" }),
    logger,
    {
      clock: () => stack.now,
      workers: { kafka, groupId: `tracking.test.${suffix}`, topics, onDelivery: (event, applied) => deliveries.set(event.eventId, [...(deliveries.get(event.eventId) ?? []), applied]) },
    },
  );
  const gateway = await startGatewayStack({ adminUrl: opts.adminUrl, environment: "sandbox", gatewayEnv: { TRACKING_SERVICE_URL: tracking.url, SHIPMENT_SERVICE_URL: shipments.shipment.url, ...opts.gatewayEnv } });
  const producer: Producer = kafka.producer();
  await producer.connect();
  return Object.assign(stack, {
    gateway,
    shipments,
    tracking,
    database,
    async publish(kind: keyof typeof topics, key: string, payload: Uint8Array, eventId = randomUUID()) {
      const seen = deliveries.get(eventId)?.length ?? 0;
      await producer.send({ topic: topics[kind], messages: [{ key, value: Buffer.from(payload), headers: { [EVENT_HEADERS.id]: eventId, [EVENT_HEADERS.type]: kind } }] });
      const deadline = Date.now() + 30_000;
      while ((deliveries.get(eventId)?.length ?? 0) <= seen) {
        if (Date.now() > deadline) throw new Error(`event ${eventId} was not handled within 30 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return { eventId, applied: deliveries.get(eventId)!.at(-1)! };
    },
    async close() {
      await producer.disconnect();
      await gateway.close();
      await tracking.close();
      if (!stack.shipmentsClosed) await shipments.close();
      await database.drop();
    },
  });
}

/** Riyadh: Al Olaya (pickup) and Al Malaz (destination), in microdegrees. */
export const PICKUP = { latitudeMicro: 24_690_123, longitudeMicro: 46_685_456 };
export const DESTINATION = { latitudeMicro: 24_666_789, longitudeMicro: 46_730_321 };

const PUBLIC_OF: Record<StateName, keyof typeof PublicStatus> = {
  UNSPECIFIED: "UNSPECIFIED",
  PENDING_APPROVAL: "CREATED",
  READY_FOR_DISPATCH: "CREATED",
  OFFERED: "CREATED",
  DISPATCH_UNRESOLVED: "CREATED",
  ACCEPTED: "ASSIGNED",
  PICKED_UP: "PICKED_UP",
  OUT_FOR_DELIVERY: "OUT_FOR_DELIVERY",
  DELIVERED: "DELIVERED",
  DELIVERY_FAILED: "FAILED",
  CANCELLED: "CANCELLED",
};

/** A ShipmentChanged as the shipment service publishes it. */
export function shipmentChanged(s: { shipmentId: string; merchantId: string; state: StateName; version: number; at: Date; codeHash: Uint8Array; reasonCode?: string }): Uint8Array {
  return toBinary(
    ShipmentChangedSchema,
    create(ShipmentChangedSchema, {
      shipment: create(ShipmentSchema, {
        shipmentId: s.shipmentId,
        merchantId: s.merchantId,
        state: ShipmentState[s.state],
        publicStatus: PublicStatus[PUBLIC_OF[s.state]],
        version: BigInt(s.version),
        recipientName: "Noura Al-Qahtani",
        maskedRecipientPhone: "*********5678",
        pickup: { coordinate: PICKUP, addressLine: "King Fahd Rd", cityCode: "RUH" },
        destination: { coordinate: DESTINATION, addressLine: "Salah Al Din St", cityCode: "RUH" },
        createTime: timestampFromDate(s.at),
        reasonCode: s.reasonCode ?? "",
      }),
      occurTime: timestampFromDate(s.at),
      trackingCodeSha256: s.codeHash,
    }),
  );
}

export function assignmentChanged(a: { shipmentId: string; driverRef: string; change: string; at: Date }): Uint8Array {
  return toBinary(
    AssignmentChangedSchema,
    create(AssignmentChangedSchema, { shipmentId: a.shipmentId, offerId: randomUUID(), driverRef: a.driverRef, change: a.change, occurTime: timestampFromDate(a.at) }),
  );
}

export function driverLocation(f: { shipmentId: string; driverRef: string; position: { latitudeMicro: number; longitudeMicro: number }; accuracyMetres: number; at: Date }): Uint8Array {
  return toBinary(
    DriverLocationSchema,
    create(DriverLocationSchema, { driverRef: f.driverRef, shipmentId: f.shipmentId, position: f.position, accuracyMetres: f.accuracyMetres, recordTime: timestampFromDate(f.at) }),
  );
}
