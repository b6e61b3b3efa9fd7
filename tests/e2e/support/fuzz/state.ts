/**
 * What a refused request must leave alone: the fuzz merchant's newest shipment (a refused create
 * adds none), the state and version of the shipments cancels aim at, and the webhook endpoint.
 */
import { type TawsilClient, TawsilProblemError } from "@tawsil/sdk";

export interface Snapshot {
  newestShipment: string | undefined;
  shipments: Record<string, string>;
  webhook: string | null;
}

async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof TawsilProblemError && error.status === 404) return null;
    throw error;
  }
}

export async function snapshot(merchant: TawsilClient, other: TawsilClient, own: readonly string[], foreign: string): Promise<Snapshot> {
  const describe = async (client: TawsilClient, id: string) => {
    const read = await client.shipments.get(id);
    return read.notModified ? "304" : `${read.shipment.state}@${read.shipment.version}`;
  };
  const [page, webhook, foreignState, ...ownStates] = await Promise.all([
    merchant.shipments.page({ limit: 1 }),
    orNull(merchant.webhook.get()),
    describe(other, foreign),
    ...own.map((id) => describe(merchant, id)),
  ]);
  return {
    newestShipment: page.data[0]?.shipmentId,
    shipments: { ...Object.fromEntries(own.map((id, i) => [id, ownStates[i]!])), [foreign]: foreignState },
    webhook: webhook === null ? null : JSON.stringify(webhook),
  };
}

/** What differs between two snapshots, in words; empty when they are identical. */
export function differences(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  if (before.newestShipment !== after.newestShipment) out.push(`a shipment appeared: ${after.newestShipment}`);
  for (const [id, state] of Object.entries(before.shipments)) if (after.shipments[id] !== state) out.push(`shipment ${id}: ${state} -> ${after.shipments[id]}`);
  if (before.webhook !== after.webhook) out.push(`webhook: ${before.webhook} -> ${after.webhook}`);
  return out;
}
