import { NotFoundError, ValidationError } from "@tawsil/errors";
import { decodeCursor, encodeCursor, type ListQuery } from "../domain/cursor";
import { accessDenied } from "../domain/errors";
import type { Shipment } from "../domain/shipment";
import type { ShipmentStore } from "./ports";
import { isUuid } from "@tawsil/domain";

export interface ShipmentPage {
  readonly shipments: readonly Shipment[];
  /** "" on the last page. */
  readonly nextCursor: string;
}

/** The single read and the keyset-paged list (decisions.md section 8). */
export class ReadShipments {
  constructor(private readonly deps: { store: ShipmentStore; cursorSecret: Uint8Array }) {}

  async get(merchantId: string, shipmentId: string): Promise<Shipment> {
    const shipment = isUuid(shipmentId) ? await this.deps.store.findById(shipmentId) : null;
    if (!shipment) throw new NotFoundError("shipment");
    if (shipment.merchantId !== merchantId) throw accessDenied();
    return shipment;
  }

  /**
   * One page after the cursor's position: an index range scan on (merchant, [state,] created_at,
   * id), so a deep page costs what the first does. The cursor is verified against this very query.
   */
  async list(query: ListQuery, limit: number, cursor: string): Promise<ShipmentPage> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new ValidationError("limit", "must be 1 to 100");
    const after = cursor === "" ? null : decodeCursor(this.deps.cursorSecret, query, cursor);
    const rows = await this.deps.store.listPage(query, after, limit + 1);
    const shipments = rows.slice(0, limit);
    const last = shipments.at(-1);
    const nextCursor = rows.length > limit && last ? encodeCursor(this.deps.cursorSecret, query, { createdAt: last.createdAt, id: last.id }) : "";
    return { shipments, nextCursor };
  }
}
