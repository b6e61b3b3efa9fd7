import type { SqlClient } from "@tawsil/events";
import { formatWakeUp } from "../app/wake-up";

/** What the dispatcher's leader listens to: `job:<shipment id>` or `driver:<driver id>`. */
export const DISPATCHER_CHANNEL = "dispatch_wakeup";
/** What the sandbox fleet's leader listens to: the id of a driver who has a new offer. */
export const OFFERS_CHANNEL = "dispatch_offer";

/** Every replica listens to this: a driver went on or off shift, so its active driver index is stale. */
export const DRIVERS_CHANNEL = "dispatch_drivers";


/**
 * pg_notify inside the caller's transaction: PostgreSQL delivers it on commit (never for a rollback),
 * to whichever replica listens, this one included. So a change made by any replica wakes the leader
 * exactly when the change becomes visible to it.
 */
async function notify(tx: SqlClient, channel: string, payload: string): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_notify($1, $2)`, channel, payload);
}

/** The notification that wakes the leader for a job: also sent by a statement that carries it (SqlJobWork.createJob). */
export const jobWakeUp = (shipmentId: string): { readonly channel: string; readonly payload: string } => ({ channel: DISPATCHER_CHANNEL, payload: formatWakeUp({ kind: "job", id: shipmentId }) });

/** The job may be offerable now (new, back to waiting, or its offer was declined). */
export const wakeForJob = (tx: SqlClient, shipmentId: string): Promise<void> => {
  const { channel, payload } = jobWakeUp(shipmentId);
  return notify(tx, channel, payload);
};

/** The driver may take a job now (came on duty, finished, declined, or their offer lapsed). */
export const wakeForDriver = (tx: SqlClient, driverId: string): Promise<void> => notify(tx, DISPATCHER_CHANNEL, formatWakeUp({ kind: "driver", id: driverId }));

/** The driver has a new open offer (the sandbox fleet's simulated drivers act on it). */
export const announceOffer = (tx: SqlClient, driverId: string): Promise<void> => notify(tx, OFFERS_CHANNEL, driverId);

/** A driver went on or off shift: every replica reloads its active driver index on commit. */
export const announceShiftChange = (tx: SqlClient): Promise<void> => notify(tx, DRIVERS_CHANNEL, "");
