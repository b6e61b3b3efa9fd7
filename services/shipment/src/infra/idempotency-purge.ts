import type { Logger } from "@tawsil/logging";
import type { ShipmentStore } from "../app/ports";

/**
 * Deletes expired idempotency records every intervalMs (an expired record is already ignored by
 * lookups; this only bounds the table). A failed run is logged and retried at the next tick.
 */
export function startIdempotencyPurge(opts: { store: ShipmentStore; logger: Logger; intervalMs: number }): { name: string; close(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = opts.store
      .purgeExpired(new Date())
      .then((deleted) => {
        if (deleted > 0) opts.logger.info({ deleted }, "purged expired idempotency records");
      })
      .catch((err: unknown) => opts.logger.warn({ err }, "idempotency purge failed"))
      .finally(() => {
        running = undefined;
      });
  }, opts.intervalMs);
  timer.unref();
  return {
    name: "idempotency-purge",
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
