import { isTerminal, publicStatusOf } from "../domain/lifecycle";
import type { AssignmentFact, FixFact, ProjectionBatchWriter, ProjectionWriter, ShipmentFact, StatusEntry } from "./ports";

/**
 * A shipment change: the row moves to this version (if newer), and the public status it shows is
 * recorded in the history at the change's time (the earliest time wins, so redelivered or
 * reordered events leave the history as it was).
 */
export async function applyShipmentFact(writer: ProjectionWriter, fact: ShipmentFact): Promise<void> {
  const { terminalAt, status } = shipmentProjection(fact);
  await writer.saveShipment(fact, terminalAt, status);
}

/** What a shipment fact writes besides itself: its terminal time (a terminal state's) and the public status it shows. */
export function shipmentProjection(fact: ShipmentFact): { terminalAt: Date | null; status: string } {
  return { terminalAt: isTerminal(fact.state) ? fact.occurredAt : null, status: publicStatusOf(fact.state) };
}

/** Only an acceptance names the shipment's driver; offers, declines and expiries do not. */
export async function applyAssignmentFact(writer: ProjectionWriter, change: string, fact: AssignmentFact): Promise<void> {
  if (change === "ACCEPTED" && fact.driverRef !== "") await writer.saveAssignment(fact);
}

/** A fix counts only for the shipment the driver carries; the newest one wins. */
export async function applyFixFact(writer: ProjectionWriter, fact: FixFact): Promise<void> {
  if (fact.shipmentId === "") return;
  await writer.saveFix(fact);
}

/** One decoded event of any of tracking's topics. */
export type Fact =
  | { readonly kind: "shipment"; readonly fact: ShipmentFact }
  | { readonly kind: "assignment"; readonly change: string; readonly fact: AssignmentFact }
  | { readonly kind: "fix"; readonly fact: FixFact };

/**
 * Several facts, in their order, with the effect of applying each in turn through the functions
 * above, in a few set-based statements:
 * - shipment rows: a shipment's facts folded into the one the row would end with (an older
 *   version than the one folded changes nothing; a newer one carrying a tracking code hash
 *   replaces its updated columns whatever is stored, the inserted ones stay the first's), and where folding would not be exact (a newer version
 *   without the hash after one with it: the stored row decides which hash stays) in rounds, the
 *   n-th of each shipment in round n, so each statement touches a row once and the facts meet
 *   the version guard and the hash's COALESCE in their order;
 * - status history: the earliest time per (shipment, status), what LEAST keeps anyway;
 * - assignments and fixes: per key, the first of the latest (the guard replaces only a strictly
 *   newer one), then one guarded upsert.
 */
export async function applyFacts(writer: ProjectionBatchWriter, facts: readonly Fact[]): Promise<void> {
  const rounds: { fact: ShipmentFact; terminalAt: Date | null }[][] = [];
  // Per shipment: its round and position in it of the fact the next one may fold into.
  const lastOf = new Map<string, { round: number; index: number }>();
  const statuses = new Map<string, StatusEntry>();
  const assignments = new Map<string, AssignmentFact>();
  const fixes = new Map<string, FixFact>();
  for (const item of facts) {
    if (item.kind === "shipment") {
      const { fact } = item;
      const row = { fact, terminalAt: isTerminal(fact.state) ? fact.occurredAt : null };
      const last = lastOf.get(fact.shipmentId);
      const folded = last ? rounds[last.round]![last.index]!.fact : undefined;
      if (!last || !folded) {
        lastOf.set(fact.shipmentId, { round: 0, index: (rounds[0] ??= []).push(row) - 1 });
      } else if (fact.version <= folded.version) {
        // The guard would refuse it after the folded one (in the statement or against a newer row).
      } else if (hasCodeHash(fact) || !hasCodeHash(folded)) {
        // The upsert updates only state, version, terminal time and hash: a row it inserts keeps the first fact's other columns.
        const { merchantId, pickup, destination, cityCode } = folded;
        rounds[last.round]![last.index] = { ...row, fact: { ...fact, merchantId, pickup, destination, cityCode } };
      } else {
        const round = last.round + 1;
        lastOf.set(fact.shipmentId, { round, index: (rounds[round] ??= []).push(row) - 1 });
      }
      const status = publicStatusOf(fact.state);
      const key = `${fact.shipmentId}|${status}`;
      const earlier = statuses.get(key);
      if (!earlier || fact.occurredAt < earlier.at) statuses.set(key, { shipmentId: fact.shipmentId, status, at: fact.occurredAt });
    } else if (item.kind === "assignment") {
      if (item.change !== "ACCEPTED" || item.fact.driverRef === "") continue;
      keepNewest(assignments, item.fact.shipmentId, item.fact, (f) => f.occurredAt);
    } else {
      if (item.fact.shipmentId === "") continue;
      keepNewest(fixes, `${item.fact.shipmentId}|${item.fact.driverRef}`, item.fact, (f) => f.recordedAt);
    }
  }
  // The history rides on the first round's write (statuses come only with shipment facts).
  for (const [i, round] of rounds.entries()) await writer.saveShipments(round, i === 0 ? [...statuses.values()] : []);
  if (assignments.size > 0) await writer.saveAssignments([...assignments.values()]);
  if (fixes.size > 0) await writer.saveFixes([...fixes.values()]);
}

const hasCodeHash = (fact: ShipmentFact): boolean => fact.trackingCodeSha256.length === 32;

function keepNewest<T>(kept: Map<string, T>, key: string, candidate: T, timeOf: (value: T) => Date): void {
  const current = kept.get(key);
  if (!current || timeOf(current) < timeOf(candidate)) kept.set(key, candidate);
}
