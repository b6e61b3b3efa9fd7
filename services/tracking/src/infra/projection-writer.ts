import type { AloneWrites, SqlClient } from "@tawsil/events";
import type { AssignmentFact, FixFact, ProjectionBatchWriter, ProjectionWriter, ShipmentFact, StatusEntry } from "../app/ports";

/**
 * A shipment fact's two writes, their parameters numbered from `first` and their rows selected
 * `from` a relation ("" for none): the row's upsert (a newer version only) and the history's entry
 * (the earliest time wins). Both leave what they left when applied again, so a fact may also be
 * applied alone with its claim (shipmentWritesAlone).
 */
function shipmentWrites(first: number, from: string): { upsert: string; history: string } {
  const p = (i: number) => `$${first + i - 1}`;
  return {
    upsert: `INSERT INTO tracked_shipment (shipment_id, merchant_id, tracking_code_sha256, state, version, pickup_latitude_micro,
         pickup_longitude_micro, destination_latitude_micro, destination_longitude_micro, city_code, terminal_at, reason_code, updated_at)
       SELECT ${p(1)}::uuid, ${p(2)}::uuid, ${p(3)}::bytea, ${p(4)}::text, ${p(5)}::bigint, ${p(6)}::int, ${p(7)}::int, ${p(8)}::int, ${p(9)}::int, ${p(10)}::text,
         ${p(11)}::timestamptz, ${p(12)}::text, now() ${from}
       ON CONFLICT (shipment_id) DO UPDATE SET state = EXCLUDED.state, version = EXCLUDED.version, terminal_at = EXCLUDED.terminal_at, reason_code = EXCLUDED.reason_code,
         tracking_code_sha256 = COALESCE(EXCLUDED.tracking_code_sha256, tracked_shipment.tracking_code_sha256), updated_at = now()
       WHERE tracked_shipment.version < EXCLUDED.version`,
    history: `INSERT INTO status_change (shipment_id, status, occurred_at) SELECT ${p(1)}::uuid, ${p(13)}::text, ${p(14)}::timestamptz ${from}
       ON CONFLICT (shipment_id, status) DO UPDATE SET occurred_at = LEAST(status_change.occurred_at, EXCLUDED.occurred_at)`,
  };
}

function shipmentValues(fact: ShipmentFact, terminalAt: Date | null, status: string): unknown[] {
  return [
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
    fact.reasonCode,
    status,
    fact.occurredAt,
  ];
}

const SAVE_SHIPMENT = (() => {
  const { upsert, history } = shipmentWrites(1, "");
  return `WITH shipment AS (${upsert}) ${history}`;
})();

/**
 * A shipment fact's writes as the consumer's one statement with its claim (IdempotentConsumer's
 * `alone`): read FROM go, the history's entry answering that the fact was applied.
 */
export function shipmentWritesAlone(fact: ShipmentFact, terminalAt: Date | null, status: string, first: number): AloneWrites {
  const { upsert, history } = shipmentWrites(first, "FROM go");
  return { ctes: `shipment AS (${upsert}), applied AS (${history} RETURNING 1)`, values: shipmentValues(fact, terminalAt, status) };
}

/**
 * The consumers' writes, in plain SQL on the consumer's transaction. Each upsert carries its own
 * ordering guard in its WHERE clause, so an event older than what is stored changes nothing
 * whatever order Kafka's topics deliver in.
 */
export class SqlProjectionWriter implements ProjectionWriter {
  constructor(private readonly tx: SqlClient) {}

  /** One statement: the row's upsert rides as a CTE on the history's insert (no foreign key between them). */
  async saveShipment(fact: ShipmentFact, terminalAt: Date | null, status: string): Promise<void> {
    await this.tx.$executeRawUnsafe(SAVE_SHIPMENT, ...shipmentValues(fact, terminalAt, status));
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

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());
const codeHashHex = (fact: ShipmentFact): string | null => (fact.trackingCodeSha256.length === 32 ? Buffer.from(fact.trackingCodeSha256).toString("hex") : null);

/**
 * SqlProjectionWriter's statements for many rows at once: the rows travel as one array per column
 * (unnest), under the same conflict targets and guards. Callers pass distinct keys per call.
 */
export class SqlProjectionBatchWriter implements ProjectionBatchWriter {
  constructor(private readonly tx: SqlClient) {}

  /**
   * The rows' upsert, and the history's entries in the same statement (a CTE, as saveShipment
   * rides the row's): a batch of shipment facts costs one round trip, not two.
   */
  async saveShipments(rows: readonly { fact: ShipmentFact; terminalAt: Date | null }[], statuses: readonly StatusEntry[] = []): Promise<void> {
    if (rows.length === 0 && statuses.length === 0) return;
    const column = <T>(pick: (fact: ShipmentFact, terminalAt: Date | null) => T) => rows.map((row) => pick(row.fact, row.terminalAt));
    const upsert = `INSERT INTO tracked_shipment (shipment_id, merchant_id, tracking_code_sha256, state, version, pickup_latitude_micro,
         pickup_longitude_micro, destination_latitude_micro, destination_longitude_micro, city_code, terminal_at, reason_code, updated_at)
       SELECT t.shipment_id, t.merchant_id, decode(t.code_hash, 'hex'), t.state, t.version, t.pickup_latitude_micro, t.pickup_longitude_micro,
         t.destination_latitude_micro, t.destination_longitude_micro, t.city_code, t.terminal_at, t.reason_code, now()
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::int[], $8::int[], $9::int[], $10::text[], $11::timestamptz[], $12::text[])
         AS t(shipment_id, merchant_id, code_hash, state, version, pickup_latitude_micro, pickup_longitude_micro, destination_latitude_micro,
           destination_longitude_micro, city_code, terminal_at, reason_code)
       ON CONFLICT (shipment_id) DO UPDATE SET state = EXCLUDED.state, version = EXCLUDED.version, terminal_at = EXCLUDED.terminal_at, reason_code = EXCLUDED.reason_code,
         tracking_code_sha256 = COALESCE(EXCLUDED.tracking_code_sha256, tracked_shipment.tracking_code_sha256), updated_at = now()
       WHERE tracked_shipment.version < EXCLUDED.version`;
    const history = (first: number) => `INSERT INTO status_change (shipment_id, status, occurred_at)
       SELECT * FROM unnest($${first}::uuid[], $${first + 1}::text[], $${first + 2}::timestamptz[])
       ON CONFLICT (shipment_id, status) DO UPDATE SET occurred_at = LEAST(status_change.occurred_at, EXCLUDED.occurred_at)`;
    const historyValues = [statuses.map((e) => e.shipmentId), statuses.map((e) => e.status), statuses.map((e) => iso(e.at))];
    if (rows.length === 0) {
      await this.tx.$executeRawUnsafe(history(1), ...historyValues);
      return;
    }
    const rowValues = [
      column((f) => f.shipmentId),
      column((f) => f.merchantId),
      column((f) => codeHashHex(f)),
      column((f) => f.state),
      column((f) => f.version.toString()),
      column((f) => f.pickup.latitudeMicro),
      column((f) => f.pickup.longitudeMicro),
      column((f) => f.destination.latitudeMicro),
      column((f) => f.destination.longitudeMicro),
      column((f) => f.cityCode),
      column((_, terminalAt) => iso(terminalAt)),
      column((f) => f.reasonCode),
    ];
    if (statuses.length === 0) await this.tx.$executeRawUnsafe(upsert, ...rowValues);
    else await this.tx.$executeRawUnsafe(`WITH shipments AS (${upsert}) ${history(13)}`, ...rowValues, ...historyValues);
  }

  async saveAssignments(facts: readonly AssignmentFact[]): Promise<void> {
    if (facts.length === 0) return;
    await this.tx.$executeRawUnsafe(
      `INSERT INTO shipment_assignment (shipment_id, driver_ref, accepted_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[])
       ON CONFLICT (shipment_id) DO UPDATE SET driver_ref = EXCLUDED.driver_ref, accepted_at = EXCLUDED.accepted_at
       WHERE shipment_assignment.accepted_at < EXCLUDED.accepted_at`,
      facts.map((f) => f.shipmentId),
      facts.map((f) => f.driverRef),
      facts.map((f) => iso(f.occurredAt)),
    );
  }

  async saveFixes(facts: readonly FixFact[]): Promise<void> {
    if (facts.length === 0) return;
    await this.tx.$executeRawUnsafe(
      `INSERT INTO driver_fix (shipment_id, driver_ref, latitude_micro, longitude_micro, accuracy_metres, recorded_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::int[], $5::int[], $6::timestamptz[])
       ON CONFLICT (shipment_id, driver_ref) DO UPDATE SET latitude_micro = EXCLUDED.latitude_micro,
         longitude_micro = EXCLUDED.longitude_micro, accuracy_metres = EXCLUDED.accuracy_metres, recorded_at = EXCLUDED.recorded_at
       WHERE driver_fix.recorded_at < EXCLUDED.recorded_at`,
      facts.map((f) => f.shipmentId),
      facts.map((f) => f.driverRef),
      facts.map((f) => f.position.latitudeMicro),
      facts.map((f) => f.position.longitudeMicro),
      facts.map((f) => f.accuracyMetres),
      facts.map((f) => iso(f.recordedAt)),
    );
  }
}
