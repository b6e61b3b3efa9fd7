/**
 * The ledger of one scenario: what the clients were told against what the mesh did. Effects are
 * lost when an accepted create has no row or no created event, when a public status change never
 * reached the receiver, or when a create the client could not complete half-exists; duplicated
 * when a shipment has two created events (distinct event ids, version 1) or a (shipment, status)
 * went out under two webhook-ids. Redeliveries of one event id or one webhook-id are at-least-once
 * doing its job: counted, not failed.
 */
import pg from "pg";
import type { CreateAttempt } from "./load";
import type { Receiver } from "./receiver";
import type { TopicWatch } from "./topic-watch";

export interface LedgerRow {
  scenario: string;
  sent: number;
  accepted: number;
  refused: Record<string, number>;
  retried: number;
  lost: number;
  duplicated: number;
  eventRedeliveries: number;
  webhookRepeats: number;
  webhooksChecked: number;
  recoverSeconds: number | null;
  problems: string[];
}

export interface LedgerInputs {
  readonly scenario: string;
  readonly attempts: readonly CreateAttempt[];
  readonly shipmentDbUrl: string;
  readonly topic: TopicWatch;
  readonly receiver: Receiver;
  /** When the fault ended (the broken part back); time to recover is counted from here. */
  readonly faultEndedAt: number;
  readonly settleMs: number;
}

/** Waits until the ledger balances (or `settleMs` passes) and returns the figures. */
export async function balance(inputs: LedgerInputs): Promise<LedgerRow> {
  const deadline = Date.now() + inputs.settleMs;
  let row = await audit(inputs);
  while ((row.lost > 0 || row.duplicated > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    row = await audit(inputs);
  }
  if (row.lost === 0 && row.duplicated === 0) row.recoverSeconds = Math.round((Date.now() - inputs.faultEndedAt) / 100) / 10;
  return row;
}

async function audit({ scenario, attempts, shipmentDbUrl, topic, receiver }: LedgerInputs): Promise<LedgerRow> {
  const problems: string[] = [];
  const refused: Record<string, number> = {};
  for (const a of attempts) if (!a.id || typeof a.first !== "number" || a.first >= 300) refused[String(a.first)] = (refused[String(a.first)] ?? 0) + 1;
  const rows = await shipmentsByReference(shipmentDbUrl, attempts.map((a) => a.reference));
  let lost = 0;
  let duplicated = 0;
  for (const a of attempts) {
    const row = rows.get(a.reference);
    if (!a.id) {
      // No 2xx even after the retries: the create must not exist at all.
      if (row) problems.push(`half-exists: ${a.reference} (${row}) answered ${a.first}, retries ended ${a.finalRefusal}`);
      else if (a.finalRefusal !== undefined && retriedToNoAvail(a)) problems.push(`never completed: ${a.reference} (${a.first}, then ${a.finalRefusal})`);
      lost += row ? 1 : 0;
      continue;
    }
    if (row !== a.id) {
      lost++;
      problems.push(`accepted ${a.reference} as ${a.id}, stored as ${row ?? "nothing"}`);
    }
  }
  const accepted = attempts.filter((a) => a.id);
  const ids = new Set(accepted.map((a) => a.id!));
  const created = new Map<string, Set<string>>();
  const deliveries = new Map<string, number>();
  const expected = new Set<string>();
  for (const e of topic.events) {
    if (!ids.has(e.shipmentId)) continue;
    deliveries.set(e.eventId, (deliveries.get(e.eventId) ?? 0) + 1);
    if (e.version === 1n) created.set(e.shipmentId, (created.get(e.shipmentId) ?? new Set()).add(e.eventId));
    if (e.publicStatus) expected.add(`${e.shipmentId} ${e.publicStatus}`);
  }
  for (const id of ids) {
    const n = created.get(id)?.size ?? 0;
    if (n === 0) {
      lost++;
      problems.push(`no created event: ${id}`);
    }
    if (n > 1) {
      duplicated++;
      problems.push(`${id}: ${n} created events`);
    }
  }
  const webhookIds = new Map<string, Set<string>>();
  for (const r of receiver.byWebhookId.values()) {
    if (!ids.has(r.shipmentId)) continue;
    const key = `${r.shipmentId} ${r.status}`;
    webhookIds.set(key, (webhookIds.get(key) ?? new Set()).add(r.webhookId));
  }
  for (const key of expected) {
    if (webhookIds.has(key)) continue;
    lost++;
    problems.push(`no webhook: ${key}`);
  }
  for (const [key, set] of webhookIds) {
    if (set.size > 1) {
      duplicated++;
      problems.push(`${key}: ${set.size} webhook-ids`);
    }
  }
  return {
    scenario,
    sent: attempts.length,
    accepted: attempts.filter((a) => typeof a.first === "number" && a.first < 300).length,
    refused,
    retried: attempts.filter((a) => a.retries > 0).length,
    lost: lost + problems.filter((p) => p.startsWith("never completed")).length,
    duplicated,
    eventRedeliveries: [...deliveries.values()].reduce((sum, n) => sum + n - 1, 0),
    webhookRepeats: receiver.duplicates,
    webhooksChecked: expected.size,
    recoverSeconds: null,
    problems,
  };
}

/** A create the client kept retrying without an answer: the mesh never recovered for it. */
function retriedToNoAvail(a: CreateAttempt): boolean {
  return a.finalRefusal === "timeout" || a.finalRefusal === "network" || (typeof a.finalRefusal === "number" && a.finalRefusal >= 500);
}

/** Shipment id by reference, for the references given that exist. */
export async function shipmentsByReference(url: string, references: string[]): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; external_reference: string }>("SELECT id, external_reference FROM shipment WHERE external_reference = ANY($1)", [references]);
    return new Map(rows.map((r) => [r.external_reference, r.id]));
  } finally {
    await client.end();
  }
}
