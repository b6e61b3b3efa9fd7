/** The baseline's persistence: raw `pg`, one transaction per create, one query per read or page. */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { SHIPMENT_EVENTS_TOPIC } from "../../../packages/topology/src";

export interface NewShipment {
  readonly id: string;
  readonly shipmentNumber: string;
  readonly merchantId: string;
  readonly reference: string;
  readonly recipientName: string;
  readonly recipientPhone: string;
  readonly weightKg: string;
  readonly codAmount: string;
  readonly pickup: { latitudeMicro: number; longitudeMicro: number; addressLine: string; cityCode: string };
  readonly destination: { latitudeMicro: number; longitudeMicro: number; cityCode: string };
  readonly item: { description: string; quantity: number };
  readonly price: string;
  readonly distanceMetres: number;
  readonly createdAt: Date;
}

export interface IdempotencyScope {
  readonly merchantId: string;
  readonly clientId: string;
  readonly key: string;
  readonly fingerprint: string;
}

export type CreateOutcome =
  | { readonly kind: "created" }
  | { readonly kind: "replayed"; readonly snapshot: unknown }
  | { readonly kind: "key-reused" }
  | { readonly kind: "duplicate-reference" };

export type ShipmentRow = Record<string, unknown> & { id: string; merchant_id: string; created_at: Date; items: unknown[] };

const SHIPMENT_COLUMNS = `s.id, s.shipment_number, s.merchant_id, s.external_reference, s.state, s.version, s.recipient_name,
  s.recipient_phone, s.total_weight_kilograms, s.cod_amount, s.currency, s.pickup_latitude_micro, s.pickup_longitude_micro,
  s.pickup_address_line, s.pickup_city_code, s.destination_latitude_micro, s.destination_longitude_micro,
  s.destination_city_code, s.price, s.distance_metres, s.created_at,
  COALESCE((SELECT json_agg(json_build_object('description', i.description, 'quantity', i.quantity, 'weightKilograms', i.weight_kilograms) ORDER BY i.position)
            FROM shipment_item i WHERE i.shipment_id = s.id), '[]') AS items`;

const RETENTION_MS = 24 * 3600 * 1000;

export class BaselineStore {
  constructor(readonly pool: pg.Pool) {}

  /** Idempotency record (with the answer), shipment, item and outbox row in one transaction. */
  async create(scope: IdempotencyScope, shipment: NewShipment, snapshot: unknown): Promise<CreateOutcome> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const record = await client.query(
        `INSERT INTO idempotency_record (operation, merchant_id, client_id, key, fingerprint, shipment_id, snapshot, expires_at)
         VALUES ('create', $1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (operation, merchant_id, client_id, key) DO NOTHING RETURNING id`,
        [scope.merchantId, scope.clientId, scope.key, scope.fingerprint, shipment.id, JSON.stringify(snapshot), new Date(shipment.createdAt.getTime() + RETENTION_MS)],
      );
      if (record.rowCount === 0) {
        await client.query("ROLLBACK");
        const stored = await client.query("SELECT fingerprint, snapshot FROM idempotency_record WHERE operation = 'create' AND merchant_id = $1 AND client_id = $2 AND key = $3", [
          scope.merchantId,
          scope.clientId,
          scope.key,
        ]);
        const row = stored.rows[0] as { fingerprint: string; snapshot: unknown } | undefined;
        return row && row.fingerprint === scope.fingerprint ? { kind: "replayed", snapshot: row.snapshot } : { kind: "key-reused" };
      }
      const inserted = await client.query(
        `INSERT INTO shipment (id, shipment_number, merchant_id, external_reference, state, version, recipient_name, recipient_phone,
           total_weight_kilograms, cod_amount, currency, pickup_latitude_micro, pickup_longitude_micro, pickup_address_line,
           pickup_city_code, destination_latitude_micro, destination_longitude_micro, destination_city_code, price, distance_metres, created_at)
         VALUES ($1, $2, $3, $4, 'READY_FOR_DISPATCH', 2, $5, $6, $7, $8, 'SAR', $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
         ON CONFLICT (merchant_id, external_reference) DO NOTHING`,
        [
          shipment.id, shipment.shipmentNumber, shipment.merchantId, shipment.reference, shipment.recipientName, shipment.recipientPhone,
          shipment.weightKg, shipment.codAmount, shipment.pickup.latitudeMicro, shipment.pickup.longitudeMicro, shipment.pickup.addressLine,
          shipment.pickup.cityCode, shipment.destination.latitudeMicro, shipment.destination.longitudeMicro, shipment.destination.cityCode,
          shipment.price, shipment.distanceMetres, shipment.createdAt,
        ],
      );
      if (inserted.rowCount === 0) {
        await client.query("ROLLBACK");
        return { kind: "duplicate-reference" };
      }
      await client.query("INSERT INTO shipment_item (shipment_id, position, description, quantity, weight_kilograms) VALUES ($1, 0, $2, $3, $4)", [
        shipment.id,
        shipment.item.description,
        shipment.item.quantity,
        shipment.weightKg,
      ]);
      await client.query("INSERT INTO outbox_event (event_id, topic, key, type, payload) VALUES ($1, $2, $3, 'ShipmentCreated', $4)", [
        randomUUID(),
        SHIPMENT_EVENTS_TOPIC,
        shipment.id,
        Buffer.from(JSON.stringify(snapshot)),
      ]);
      await client.query("COMMIT");
      return { kind: "created" };
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async findById(id: string): Promise<ShipmentRow | undefined> {
    const res = await this.pool.query(`SELECT ${SHIPMENT_COLUMNS} FROM shipment s WHERE s.id = $1`, [id]);
    return res.rows[0] as ShipmentRow | undefined;
  }

  /** `limit` rows of the merchant after `after` in (created_at DESC, id DESC) order: an index range scan. */
  async listPage(merchantId: string, after: { createdAt: Date; id: string } | null, limit: number): Promise<ShipmentRow[]> {
    const res = after
      ? await this.pool.query(
          `SELECT ${SHIPMENT_COLUMNS} FROM shipment s WHERE s.merchant_id = $1 AND (s.created_at, s.id) < ($2, $3)
           ORDER BY s.created_at DESC, s.id DESC LIMIT $4`,
          [merchantId, after.createdAt, after.id, limit],
        )
      : await this.pool.query(`SELECT ${SHIPMENT_COLUMNS} FROM shipment s WHERE s.merchant_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT $2`, [merchantId, limit]);
    return res.rows as ShipmentRow[];
  }
}
