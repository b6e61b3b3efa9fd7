import type { Logger } from "@tawsil/logging";

/** Something to stop on shutdown, in the order given (servers first, then their dependencies). */
export interface Closer {
  readonly name: string;
  close(): Promise<void>;
}

/**
 * On SIGTERM or SIGINT: run the closers once, in order, then exit. A second signal or a closer that
 * hangs past `hardLimitMs` forces the exit so a stuck dependency cannot keep a pod terminating.
 */
export function drainOnSignals(logger: Logger, closers: readonly Closer[], hardLimitMs: number): void {
  let draining = false;
  const drain = async (signal: NodeJS.Signals) => {
    if (draining) {
      logger.warn({ signal }, "second signal, exiting now");
      process.exit(1);
    }
    draining = true;
    logger.info({ signal }, "draining");
    setTimeout(() => {
      logger.error("drain exceeded its limit, exiting");
      process.exit(1);
    }, hardLimitMs).unref();
    let failed = false;
    for (const closer of closers) {
      try {
        await closer.close();
      } catch (err) {
        failed = true;
        logger.error({ err, closer: closer.name }, "closer failed");
      }
    }
    logger.info("stopped");
    process.exit(failed ? 1 : 0);
  };
  process.on("SIGTERM", (s) => void drain(s));
  process.on("SIGINT", (s) => void drain(s));
}
