import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Coordinate } from "@tawsil/domain";
import type { AssignmentChange } from "../app/ports";
import { writeOutbox, type SqlClient } from "@tawsil/events";
import { AssignmentChangedSchema, CityStaffingSchema, DriverLocationSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { serviceLevelToProto } from "@tawsil/rpc";
import type { CityStaffing } from "../domain/city-staffing";

export const ASSIGNMENT_TOPIC = "dispatch.assignment.events.v1";
export const DRIVER_LOCATION_TOPIC = "dispatch.driver-location.v1";
/** Compacted: the last message per city is that city's state (pricing's eligibility index). */
export const CITY_STAFFING_TOPIC = "dispatch.city-staffing.v1";


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
  await writeOutbox(tx, { topic: ASSIGNMENT_TOPIC, key: change.shipmentId, type: AssignmentChangedSchema.typeName, payload });
}

/** Records a DriverLocation (key: the shipment carried, else the driver). */
export async function writeDriverLocation(
  tx: SqlClient,
  fix: { driverId: string; shipmentId: string | null; position: Coordinate; accuracyMetres: number; recordedAt: Date },
): Promise<void> {
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
  await writeOutbox(tx, { topic: DRIVER_LOCATION_TOPIC, key: fix.shipmentId ?? fix.driverId, type: DriverLocationSchema.typeName, payload });
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
