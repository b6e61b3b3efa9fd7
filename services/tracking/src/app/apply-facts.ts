import { isTerminal, publicStatusOf } from "../domain/lifecycle";
import type { AssignmentFact, FixFact, ProjectionWriter, ShipmentFact } from "./ports";

/**
 * A shipment change: the row moves to this version (if newer), and the public status it shows is
 * recorded in the history at the change's time (the earliest time wins, so redelivered or
 * reordered events leave the history as it was).
 */
export async function applyShipmentFact(writer: ProjectionWriter, fact: ShipmentFact): Promise<void> {
  await writer.saveShipment(fact, isTerminal(fact.state) ? fact.occurredAt : null);
  await writer.recordStatus(fact.shipmentId, publicStatusOf(fact.state), fact.occurredAt);
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
