import type { SqlClient } from "@tawsil/events";
import type { ProjectionReader } from "../app/ports";
import { isShipmentState, PUBLIC_STATUSES, type PublicStatus } from "../domain/lifecycle";
import type { TrackedShipment } from "../domain/projection";

interface Row {
  shipment_id: string;
  merchant_id: string;
  state: string;
  pickup_latitude_micro: number;
  pickup_longitude_micro: number;
  destination_latitude_micro: number;
  destination_longitude_micro: number;
  city_code: string;
  terminal_at: Date | null;
  reason_code: string | null;
  fix_latitude_micro: number | null;
  fix_longitude_micro: number | null;
  fix_accuracy_metres: number | null;
  fix_recorded_at: Date | null;
  history: string | { status: string; at: string }[];
}

/**
 * One statement per read: the row, the accepted driver's latest fix (a fix of any other driver is
 * not this shipment's; before the acceptance is known, the latest of any) and the history in
 * lifecycle order.
 */
const SELECT = `
  SELECT t.shipment_id::text, t.merchant_id::text, t.state, t.pickup_latitude_micro, t.pickup_longitude_micro,
    t.destination_latitude_micro, t.destination_longitude_micro, t.city_code, t.terminal_at, t.reason_code,
    f.latitude_micro AS fix_latitude_micro, f.longitude_micro AS fix_longitude_micro,
    f.accuracy_metres AS fix_accuracy_metres, f.recorded_at AS fix_recorded_at,
    COALESCE((SELECT json_agg(json_build_object('status', s.status, 'at', s.occurred_at)
                ORDER BY array_position($2::text[], s.status), s.occurred_at)
              FROM status_change s WHERE s.shipment_id = t.shipment_id), '[]'::json)::text AS history
  FROM tracked_shipment t
  LEFT JOIN shipment_assignment a ON a.shipment_id = t.shipment_id
  LEFT JOIN LATERAL (
    SELECT * FROM driver_fix d WHERE d.shipment_id = t.shipment_id AND (a.driver_ref IS NULL OR d.driver_ref = a.driver_ref)
    ORDER BY d.recorded_at DESC LIMIT 1) f ON true`;

export class SqlProjectionReader implements ProjectionReader {
  constructor(private readonly db: SqlClient) {}

  findById(shipmentId: string): Promise<TrackedShipment | null> {
    return this.#one(`${SELECT} WHERE t.shipment_id = $1::uuid`, shipmentId);
  }

  findByCodeHash(hash: Uint8Array): Promise<TrackedShipment | null> {
    return this.#one(`${SELECT} WHERE t.tracking_code_sha256 = $1`, Buffer.from(hash));
  }

  async #one(sql: string, key: unknown): Promise<TrackedShipment | null> {
    const rows = await this.db.$queryRawUnsafe<Row[]>(sql, key, [...PUBLIC_STATUSES]);
    const row = rows[0];
    return row ? trackedFromRow(row) : null;
  }
}

function trackedFromRow(row: Row): TrackedShipment {
  if (!isShipmentState(row.state)) throw new Error(`tracked shipment ${row.shipment_id} has an unknown state`);
  const history = (typeof row.history === "string" ? JSON.parse(row.history) : row.history) as { status: string; at: string }[];
  return {
    shipmentId: row.shipment_id,
    merchantId: row.merchant_id,
    state: row.state,
    pickup: { latitudeMicro: row.pickup_latitude_micro, longitudeMicro: row.pickup_longitude_micro },
    destination: { latitudeMicro: row.destination_latitude_micro, longitudeMicro: row.destination_longitude_micro },
    cityCode: row.city_code,
    terminalAt: row.terminal_at,
    reasonCode: row.reason_code,
    history: history.map((entry) => ({ status: entry.status as PublicStatus, at: new Date(entry.at) })),
    fix:
      row.fix_recorded_at === null
        ? null
        : { position: { latitudeMicro: row.fix_latitude_micro!, longitudeMicro: row.fix_longitude_micro! }, accuracyMetres: row.fix_accuracy_metres!, recordedAt: row.fix_recorded_at },
  };
}
