import type { Coordinate } from "@tawsil/domain";
import type { DispatchJob, JobState } from "../domain/dispatch-job";
import type { Driver } from "../domain/driver";
import type { Offer, OfferState } from "../domain/offer";
import type { ServiceLevel } from "../domain/service-level";

/*
 * The statements every shipment event, dispatcher step and driver request run, as raw SQL on the
 * pool (issue 9 item 3, issue 34): on this machine the model API spends several times PostgreSQL's
 * own cost per statement in the client, Prisma's raw API still a quarter of dispatch's CPU, and a
 * created shipment runs these five to ten times. The columns and
 * their meaning are the models' in schema.prisma; the schema-drift test keeps them in step.
 */

/** A dispatch_job row as the raw statements select it (enums and uuid arrays as text). */
export interface JobRecord {
  shipment_id: string;
  merchant_id: string;
  city_code: string;
  service_level: string | null;
  pickup_latitude_micro: number;
  pickup_longitude_micro: number;
  destination_latitude_micro: number;
  destination_longitude_micro: number;
  weight_grams: number;
  longest_side_mm: number;
  requirements: string[];
  cash_on_delivery: boolean;
  state: string;
  shipment_version: bigint | number | string;
  attempts: number;
  tried_driver_ids: string[];
  deadline: Date | string | null;
  unresolved_count: number;
  retry_at: Date | string | null;
  offerable_at: Date | string | null;
}

export const JOB_COLUMNS = `shipment_id::text AS shipment_id, merchant_id::text AS merchant_id, city_code, service_level::text AS service_level,
  pickup_latitude_micro, pickup_longitude_micro, destination_latitude_micro, destination_longitude_micro, weight_grams, longest_side_mm,
  requirements, cash_on_delivery, state::text AS state, shipment_version, attempts, tried_driver_ids::text[] AS tried_driver_ids, deadline,
  unresolved_count, retry_at, offerable_at`;

/** A job with what its driver is told (decisions.md section 17): the driver API's reads. */
export interface JobWithDeliveryRecord extends JobRecord {
  pickup_address: string | null;
  destination_address: string | null;
  cod_amount: string | null;
  recipient_name: string | null;
  recipient_phone: string | null;
}

export const JOB_WITH_DELIVERY_COLUMNS = `${JOB_COLUMNS}, pickup_address, destination_address, cod_amount, recipient_name, recipient_phone`;

export interface DriverRecord {
  id: string;
  carrier_service_id: string;
  city_code: string;
  available: boolean;
  available_since: Date | string | null;
  latitude_micro: number | null;
  longitude_micro: number | null;
  current_shipment_id: string | null;
}

export const DRIVER_COLUMNS = `d.id::text AS id, d.carrier_service_id::text AS carrier_service_id, d.city_code, d.available, d.available_since,
  d.latitude_micro, d.longitude_micro, d.current_shipment_id::text AS current_shipment_id`;

/** Free: on shift, carrying nothing, holding no open offer (Prisma's `offers: { none: { state: "OPEN" } }`). */
export const FREE_DRIVER = `d.available AND d.current_shipment_id IS NULL AND NOT EXISTS (SELECT 1 FROM offer o WHERE o.driver_id = d.id AND o.state = 'OPEN')`;

const point = (latitudeMicro: number, longitudeMicro: number): Coordinate => ({ latitudeMicro, longitudeMicro });
const dateOrNull = (value: Date | string | null): Date | null => (value === null ? null : value instanceof Date ? value : new Date(value));

export function jobFromRecord(row: JobRecord): DispatchJob {
  return {
    shipmentId: row.shipment_id,
    merchantId: row.merchant_id,
    cityCode: row.city_code,
    serviceLevel: row.service_level as ServiceLevel | null,
    pickup: point(row.pickup_latitude_micro, row.pickup_longitude_micro),
    destination: point(row.destination_latitude_micro, row.destination_longitude_micro),
    weightGrams: row.weight_grams,
    longestSideMm: row.longest_side_mm,
    requirements: row.requirements,
    cashOnDelivery: row.cash_on_delivery,
    state: row.state as JobState,
    shipmentVersion: BigInt(row.shipment_version),
    attempts: row.attempts,
    triedDriverIds: row.tried_driver_ids,
    deadline: dateOrNull(row.deadline),
    unresolvedCount: row.unresolved_count,
    retryAt: dateOrNull(row.retry_at),
    offerableAt: dateOrNull(row.offerable_at),
  };
}

/** Null addresses: a job created before they were kept, which tells the driver nothing more. */
export function jobWithDeliveryFromRecord(row: JobWithDeliveryRecord): DispatchJob {
  return {
    ...jobFromRecord(row),
    delivery:
      row.pickup_address === null
        ? undefined
        : { pickupAddress: row.pickup_address, destinationAddress: row.destination_address ?? "", codAmount: row.cod_amount ?? "0.00", recipientName: row.recipient_name ?? "", recipientPhone: row.recipient_phone ?? "" },
  };
}

export function driverFromRecord(row: DriverRecord): Driver {
  return {
    id: row.id,
    carrierServiceId: row.carrier_service_id,
    cityCode: row.city_code,
    available: row.available,
    availableSince: dateOrNull(row.available_since),
    position: row.latitude_micro === null || row.longitude_micro === null ? undefined : point(row.latitude_micro, row.longitude_micro),
    currentShipmentId: row.current_shipment_id,
  };
}

export interface OfferRecord {
  id: string;
  shipment_id: string;
  driver_id: string;
  state: string;
  expires_at: Date | string;
}

export const OFFER_COLUMNS = `id::text AS id, shipment_id::text AS shipment_id, driver_id::text AS driver_id, state::text AS state, expires_at`;

export const offerFromRecord = (row: OfferRecord): Offer => ({
  id: row.id,
  shipmentId: row.shipment_id,
  driverId: row.driver_id,
  state: row.state as OfferState,
  expiresAt: dateOrNull(row.expires_at)!,
});
