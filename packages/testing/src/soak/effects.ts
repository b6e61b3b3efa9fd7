/**
 * Lost or duplicated effects: every shipment the soak was answered 201 for exists once, no
 * reference made two, and the healthy receiver got each event once (by its webhook-id) and every
 * shipment.created and shipment.cancelled of the soak's healthy merchant.
 */
import pg from "pg";
import { percentile } from "../load/stats";
import type { Ledger } from "./load";
import type { SoakMerchant } from "./merchants";
import type { SoakReceiver } from "./receivers";

export interface ShipmentEffects {
  readonly answered: number;
  readonly stored: number;
  /** Answered 201 with this id, but no such shipment. */
  readonly missing: readonly string[];
  /** References stored more than once. */
  readonly duplicatedReferences: readonly string[];
}

export async function shipmentEffects(shipmentDatabaseUrl: string, merchants: readonly SoakMerchant[], ledger: Ledger): Promise<ShipmentEffects> {
  const db = new pg.Client({ connectionString: shipmentDatabaseUrl, application_name: "soak" });
  await db.connect();
  try {
    const ids = merchants.map((m) => m.merchantId);
    const stored = await db.query<{ id: string }>(`SELECT id::text AS id FROM shipment WHERE merchant_id = ANY($1::uuid[])`, [ids]);
    const duplicated = await db.query<{ reference: string }>(`SELECT external_reference AS reference FROM shipment WHERE merchant_id = ANY($1::uuid[]) GROUP BY merchant_id, external_reference HAVING count(*) > 1`, [ids]);
    const present = new Set(stored.rows.map((r) => r.id));
    return {
      answered: ledger.created.length,
      stored: present.size,
      missing: ledger.created.filter((c) => !present.has(c.id)).map((c) => c.id),
      duplicatedReferences: duplicated.rows.map((r) => r.reference),
    };
  } finally {
    await db.end();
  }
}

export interface WebhookWindow {
  readonly window: number;
  /** shipment.created deliveries to the healthy receiver of creates answered in this window. */
  readonly deliveries: number;
  /** From the create's 201 to the delivery's arrival. */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface WebhookEffects {
  readonly delivered: number;
  /** Event ids the healthy receiver got more than once. */
  readonly duplicateIds: readonly string[];
  /** The healthy merchant's created (or cancelled) shipments whose shipment.created (shipment.cancelled) never arrived. */
  readonly missingCreated: readonly string[];
  readonly missingCancelled: readonly string[];
  readonly windows: readonly WebhookWindow[];
  /** Over every window of the load (the warm-up's deliveries left out). */
  readonly overall: WebhookWindow;
  /** Requests the slow and the hanging receivers got (none answered 2xx: they were failing). */
  readonly failingAttempts: Readonly<Record<string, number>>;
}

/** `windowOf` maps a performance.now() instant to its window number (-1 before the load). */
export function webhookEffects(healthy: SoakMerchant, receivers: readonly SoakReceiver[], ledger: Ledger, windowOf: (at: number) => number): WebhookEffects {
  const receiver = receivers.find((r) => r.behaviour === "healthy")!;
  const seen = new Map<string, number>();
  for (const d of receiver.deliveries) seen.set(d.webhookId, (seen.get(d.webhookId) ?? 0) + 1);
  const arrived = (type: string) => new Map(receiver.deliveries.filter((d) => d.type === type && d.shipmentId).map((d) => [d.shipmentId!, d.at]));
  const created = arrived("shipment.created");
  const cancelled = arrived("shipment.cancelled");
  const mine = ledger.created.filter((c) => c.merchantCode === healthy.code);
  const lags = new Map<number, number[]>();
  for (const c of mine) {
    const at = created.get(c.id);
    if (at === undefined) continue;
    const window = windowOf(c.at);
    lags.set(window, [...(lags.get(window) ?? []), at - c.at]);
  }
  const figures = (window: number, values: number[]): WebhookWindow => {
    values.sort((a, b) => a - b);
    return { window, deliveries: values.length, p50Ms: percentile(values, 0.5), p99Ms: percentile(values, 0.99) };
  };
  return {
    delivered: receiver.deliveries.length,
    duplicateIds: [...seen].filter(([, n]) => n > 1).map(([id]) => id),
    missingCreated: mine.filter((c) => !created.has(c.id)).map((c) => c.id),
    missingCancelled: [...ledger.cancelled].filter((id) => !cancelled.has(id)),
    windows: [...lags].sort(([a], [b]) => a - b).map(([window, values]) => figures(window, values)),
    overall: figures(-1, [...lags].filter(([window]) => window >= 0).flatMap(([, values]) => values)),
    failingAttempts: Object.fromEntries(receivers.filter((r) => r.behaviour !== "healthy").map((r) => [r.behaviour, r.attempts])),
  };
}
