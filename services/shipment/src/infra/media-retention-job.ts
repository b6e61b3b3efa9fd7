import type { Logger } from "@tawsil/logging";
import { Counter, type Registry } from "prom-client";
import type { MediaRetention } from "../app/media-retention";

/**
 * Runs media retention every intervalMs: expired unattached assets (rows and bytes), attached ones
 * past their shipment's retention, then bytes
 * that no row names. Each replica runs it; batches are claimed with SKIP LOCKED and the orphan
 * sweep under a leader lock, so two replicas do the work of one. A failed run (storage down) is
 * logged and retried at the next tick; the metrics say what went.
 */
export function startMediaRetention(opts: { retention: MediaRetention; logger: Logger; registry: Registry; intervalMs: number; clock?: () => Date }): {
  name: string;
  runOnce(): Promise<void>;
  close(): Promise<void>;
} {
  const clock = opts.clock ?? (() => new Date());
  const assets = new Counter({ name: "media_assets_deleted_total", help: "Unattached media assets deleted at expiry, rows with their bytes", registers: [opts.registry] });
  const attached = new Counter({ name: "media_attached_assets_deleted_total", help: "Attached media assets deleted after their shipment's retention, rows with their bytes", registers: [opts.registry] });
  const orphans = new Counter({ name: "media_orphan_objects_deleted_total", help: "Stored media objects deleted because no asset row names them", registers: [opts.registry] });
  let running: Promise<void> | undefined;
  const runOnce = () =>
    (running ??= (async () => {
      try {
        const deleted = await opts.retention.purgeUnattached(clock());
        assets.inc(deleted);
        const purged = await opts.retention.purgeAttached(clock());
        attached.inc(purged);
        const swept = await opts.retention.sweepOrphans(clock());
        if (swept) orphans.inc(swept);
        if (deleted > 0 || purged > 0 || swept) opts.logger.info({ deleted, attached: purged, orphans: swept }, "media retention");
      } catch (err) {
        opts.logger.warn({ err }, "media retention failed");
      } finally {
        running = undefined;
      }
    })());
  const timer = setInterval(() => void runOnce(), opts.intervalMs);
  timer.unref();
  return {
    name: "media-retention",
    runOnce,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
