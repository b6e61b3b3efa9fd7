import type { Logger } from "@tawsil/logging";
import type { Consumer } from "kafkajs";

/**
 * kafkajs restarts a crashed consumer only after errors it deems retriable. While a broker shuts
 * down it can crash with one it does not ("Failed to find group coordinator"), and then the
 * consumer stays stopped for good while the process looks healthy: events pile up unconsumed and
 * their effects (webhooks, projections) are lost until someone restarts it. The fault suite found
 * this by stopping Kafka for a few seconds. Here every crash kafkajs gives up on is restarted,
 * with backoff, until it runs again or the owner stops it.
 */
export function restartAfterCrash(consumer: Pick<Consumer, "on" | "events" | "disconnect">, start: () => Promise<void>, log: Logger, stopped: () => boolean, firstDelayMs = 1_000, maxDelayMs = 30_000): void {
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart || stopped()) return;
    log.error({ err: payload.error }, "consumer crashed and kafkajs will not restart it; restarting it");
    const attempt = (delayMs: number) =>
      setTimeout(() => {
        if (stopped()) return;
        consumer
          .disconnect()
          .catch(() => undefined)
          .then(start)
          .catch((err: unknown) => {
            log.warn({ err, delayMs }, "consumer restart failed; retrying");
            attempt(Math.min(delayMs * 2, maxDelayMs));
          });
      }, delayMs);
    attempt(firstDelayMs);
  });
}
