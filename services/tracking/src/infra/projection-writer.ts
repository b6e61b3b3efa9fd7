import type { SqlClient } from "@tawsil/events";
import type { AssignmentFact, FixFact, ProjectionWriter, ShipmentFact } from "../app/ports";

/**
 * The consumers' writes, in plain SQL on the consumer's transaction. Each upsert carries its own
 * ordering guard in its WHERE clause, so an event older than what is stored changes nothing
 * whatever order Kafka's topics deliver in.
 */
export class SqlProjectionWriter implements ProjectionWriter {
  constructor(private readonly tx: SqlClient) {}

  async saveShipment(fact: ShipmentFact, terminalAt: Date | null): Promise<void> {
    await this.tx.$executeRawUnsafe(
      `INSERT INTO tracked_shipment (shipment_id, merchant_id, tracking_code_sha256, state, version, pickup_latitude_micro,
         pickup_longitude_micro, destination_latitude_micro, destination_longitude_micro, city_code, terminal_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $9, $10, $11, now())
       ON CONFLICT (shipment_id) DO UPDATE SET state = EXCLUDED.state, version = EXCLUDED.version, terminal_at = EXCLUDED.terminal_at,
         tracking_code_sha256 = COALESCE(EXCLUDED.tracking_code_sha256, tracked_shipment.tracking_code_sha256), updated_at = now()
       WHERE tracked_shipment.version < EXCLUDED.version`,
      fact.shipmentId,
      fact.merchantId,
      fact.trackingCodeSha256.length === 32 ? Buffer.from(fact.trackingCodeSha256) : null,
      fact.state,
      fact.version,
      fact.pickup.latitudeMicro,
      fact.pickup.longitudeMicro,
      fact.destination.latitudeMicro,
      fact.destination.longitudeMicro,
      fact.cityCode,
      terminalAt,
    );
  }

  async recordStatus(shipmentId: string, status: string, at: Date): Promise<void> {
    await this.tx.$executeRawUnsafe(
      `INSERT INTO status_change (shipment_id, status, occurred_at) VALUES ($1::uuid, $2, $3)
       ON CONFLICT (shipment_id, status) DO UPDATE SET occurred_at = LEAST(status_change.occurred_at, EXCLUDED.occurred_at)`,
      shipmentId,
      status,
      at,
    );
  }

  async saveAssignment(fact: AssignmentFact): Promise<void> {
    await this.tx.$executeRawUnsafe(
      `INSERT INTO shipment_assignment (shipment_id, driver_ref, accepted_at) VALUES ($1::uuid, $2, $3)
       ON CONFLICT (shipment_id) DO UPDATE SET driver_ref = EXCLUDED.driver_ref, accepted_at = EXCLUDED.accepted_at
       WHERE shipment_assignment.accepted_at < EXCLUDED.accepted_at`,
      fact.shipmentId,
      fact.driverRef,
      fact.occurredAt,
    );
  }

  async saveFix(fact: FixFact): Promise<void> {
    await this.tx.$executeRawUnsafe(
      `INSERT INTO driver_fix (shipment_id, driver_ref, latitude_micro, longitude_micro, accuracy_metres, recorded_at)
       VALUES ($1::uuid, $2, $3, $4, $5, $6)
       ON CONFLICT (shipment_id, driver_ref) DO UPDATE SET latitude_micro = EXCLUDED.latitude_micro,
         longitude_micro = EXCLUDED.longitude_micro, accuracy_metres = EXCLUDED.accuracy_metres, recorded_at = EXCLUDED.recorded_at
       WHERE driver_fix.recorded_at < EXCLUDED.recorded_at`,
      fact.shipmentId,
      fact.driverRef,
      fact.position.latitudeMicro,
      fact.position.longitudeMicro,
      fact.accuracyMetres,
      fact.recordedAt,
    );
  }
}
