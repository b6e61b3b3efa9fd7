/** Most shipments whose echo one replica awaits at once; past that the oldest is forgotten first. */
const MAX_AWAITED = 10_000;

/**
 * The versions this replica wrote to jobs from the shipment service's answers (a reservation, an
 * offer given up, an acceptance, a driver's step). Each such step also emits a ShipmentChanged,
 * which comes back through the consumer as the step's echo; applying it found the job already at
 * that version and changed nothing, yet cost a transaction (BEGIN, the event's claim, the job's
 * lock, COMMIT: four of the nineteen statements a create cost dispatch). Noted once the step's own
 * transaction has committed, an awaited echo is skipped with no statement at all. Only a shortcut:
 * an echo consumed on another replica, or forgotten here, is applied as before, as a no-op.
 */
export class StepEchoes {
  readonly #awaited = new Map<string, bigint>();

  constructor(private readonly max = MAX_AWAITED) {}

  /** The job of `shipmentId` committed at `version`, the shipment service's answer to a step. */
  awaited(shipmentId: string, version: bigint): void {
    // Deleted first, so the shipment moves to the end of the order in which entries are forgotten.
    this.#awaited.delete(shipmentId);
    this.#awaited.set(shipmentId, version);
    if (this.#awaited.size > this.max) this.#awaited.delete(this.#awaited.keys().next().value!);
  }

  /** Whether an echo of the shipment is awaited at all: a map lookup, before decoding an event. */
  awaits(shipmentId: string): boolean {
    return this.#awaited.has(shipmentId);
  }

  /**
   * Whether the job already holds the shipment's change at `version`: the awaited echo (forgotten
   * once it came, so a redelivery is applied as before) or an older change. Either is a no-op for
   * applyShipmentChange, whose versions only move forward.
   */
  covers(shipmentId: string, version: bigint): boolean {
    const known = this.#awaited.get(shipmentId);
    if (known === undefined || version > known) return false;
    if (version === known) this.#awaited.delete(shipmentId);
    return true;
  }
}
