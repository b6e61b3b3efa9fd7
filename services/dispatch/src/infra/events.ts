import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Coordinate } from "@tawsil/domain";
import type { AssignmentChange } from "../app/ports";
import { OUTBOX_CHANNEL, outboxRowOf, writeOutbox, type OutboxMessage, type SqlClient } from "@tawsil/events";
import { AssignmentChangedSchema, CityStaffingSchema, DriverLocationSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { serviceLevelToProto } from "@tawsil/rpc";
import type { CityStaffing } from "../domain/city-staffing";
import { ASSIGNMENT_EVENTS_TOPIC, CITY_STAFFING_TOPIC, DRIVER_LOCATION_TOPIC } from "@tawsil/topology";



/** Records an AssignmentChanged in the caller's transaction (key: the shipment). */
export async function writeAssignmentChanged(
  tx: SqlClient,
  change: { shipmentId: string; offerId: string; driverId: string; change: AssignmentChange; at: Date },
): Promise<void> {
  const payload = toBinary(
    AssignmentChangedSchema,
    create(AssignmentChangedSchema, {
      shipmentId: change.shipmentId,
      offerId: change.offerId,
      driverRef: change.driverId,
      change: change.change,
      occurTime: timestampFromMs(change.at.getTime()),
    }),
  );
  await writeOutbox(tx, { topic: ASSIGNMENT_EVENTS_TOPIC, key: change.shipmentId, type: AssignmentChangedSchema.typeName, payload });
}

/** A fix as recorded: the driver, the shipment carried (if any), where and when. */
export interface DriverFix {
  readonly driverId: string;
  readonly shipmentId: string | null;
  readonly position: Coordinate;
  readonly accuracyMetres: number;
  readonly recordedAt: Date;
}

/** A DriverLocation outbox message (key: the shipment carried, else the driver). */
export function driverLocationMessage(fix: DriverFix): OutboxMessage {
  const payload = toBinary(
    DriverLocationSchema,
    create(DriverLocationSchema, {
      driverRef: fix.driverId,
      shipmentId: fix.shipmentId ?? "",
      position: fix.position,
      accuracyMetres: fix.accuracyMetres,
      recordTime: timestampFromMs(fix.recordedAt.getTime()),
    }),
  );
  return { topic: DRIVER_LOCATION_TOPIC, key: fix.shipmentId ?? fix.driverId, type: DriverLocationSchema.typeName, payload };
}

/**
 * Records several DriverLocations in one statement, in the given order (the relay publishes by
 * seq), with the notification writeOutbox sends: a driver app's batch of fixes.
 */
export async function writeDriverLocations(tx: SqlClient, fixes: readonly DriverFix[]): Promise<void> {
  if (fixes.length === 0) return;
  const rows = fixes.map((fix) => outboxRowOf(driverLocationMessage(fix)));
  await tx.$queryRawUnsafe(
    `WITH written AS (
       INSERT INTO outbox_event (event_id, topic, key, type, payload, headers)
       SELECT t.event_id, t.topic, t.key, t.type, decode(t.payload, 'base64'), t.headers
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[]) WITH ORDINALITY AS t(event_id, topic, key, type, payload, headers, n)
       ORDER BY t.n
       RETURNING 1
     ) SELECT pg_notify('${OUTBOX_CHANNEL}', '')::text AS notified FROM (SELECT 1 FROM written LIMIT 1) AS any_written`,
    rows.map((row) => row.eventId),
    rows.map((row) => row.topic),
    rows.map((row) => row.key),
    rows.map((row) => row.type),
    rows.map((row) => Buffer.from(row.payload).toString("base64")),
    rows.map((row) => row.headers),
  );
}

/** Records a city's CityStaffing (key: the city code) in the caller's transaction. */
export async function writeCityStaffing(tx: SqlClient, staffing: CityStaffing, at: Date): Promise<void> {
  const payload = toBinary(
    CityStaffingSchema,
    create(CityStaffingSchema, {
      cityCode: staffing.cityCode,
      services: staffing.services.map((service) => ({
        level: serviceLevelToProto(service.level),
        maxWeightGrams: BigInt(service.maxWeightGrams),
        maxLongestSideMm: service.maxLongestSideMm,
        supportsCod: service.supportsCod,
        requirements: [...service.requirements],
      })),
      recordTime: timestampFromMs(at.getTime()),
    }),
  );
  await writeOutbox(tx, { topic: CITY_STAFFING_TOPIC, key: staffing.cityCode, type: CityStaffingSchema.typeName, payload });
}
