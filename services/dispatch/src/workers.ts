import { CONSUMER_TRANSACTION, type PgSql, type RawSql } from "@tawsil/db";
import { startConsumer, type BatchEventHandler, type EventHandler } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import type { Closer, Metrics } from "@tawsil/rpc";
import type { Kafka } from "kafkajs";
import type { DispatchContext } from "./app/context";
import { Dispatcher } from "./app/dispatcher";
import type { BacklogOrder } from "./app/ports";
import type { Config } from "./config";
import { awaitedEcho, creationAlone, SHIPMENT_EVENTS_GROUP } from "./consumers/shipment-events";
import { createJobAlone } from "./infra/sql-job-work";
import { electOver } from "./infra/leadership";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

/** What the workers share with the RPC handlers (composeDispatchService builds them). */
export interface WorkerParts {
  readonly context: DispatchContext;
  readonly database: { readonly sql: PgSql };
  readonly shipmentEvents: EventHandler<RawSql>;
  /** The same events a fetch brought together (shipmentEventBatchHandler). */
  readonly shipmentEventBatch: BatchEventHandler<RawSql>;
}

/** DISPATCH_BACKLOG_ORDER, else the environment's: the sandbox serves its newest shipment first (BacklogOrder). */
const backlogOrderOf = (config: Config): BacklogOrder => config.DISPATCH_BACKLOG_ORDER ?? (config.TAWSIL_ENVIRONMENT === "sandbox" ? "NEWEST_FIRST" : "OLDEST_FIRST");

/**
 * Starts the shipment event consumer (when given a broker) and the dispatcher, which acts only in
 * the replica that leads it. Returns their closers, to stop before the database.
 */
export async function startDispatchWorkers(
  parts: WorkerParts,
  config: Config,
  logger: Logger,
  opts: { kafka?: Kafka | undefined; consumerGroupId?: string; registry?: Metrics["registry"] } = {},
): Promise<Closer[]> {
  const closers: Closer[] = [];
  const stopAll = async () => {
    for (const closer of closers.reverse()) await closer.close();
  };
  try {
    if (opts.kafka) {
      const subscription = { kafka: opts.kafka, groupId: opts.consumerGroupId ?? SHIPMENT_EVENTS_GROUP, topics: [SHIPMENT_EVENTS_TOPIC] };
      const deadLetters = { maxAttempts: config.CONSUMER_MAX_ATTEMPTS, ...(opts.registry ? { registry: opts.registry } : {}) };
      const ignores = parts.context.echoes ? { ignores: awaitedEcho(parts.context.echoes) } : {};
      // A shipment's creation a fetch brings alone: its job inserted with the claim in one statement.
      const alone = { sql: parts.database.sql, writesFor: creationAlone(parts.context, createJobAlone) };
      closers.push(await startConsumer(subscription, parts.database.sql.runner(CONSUMER_TRANSACTION), parts.shipmentEvents, logger, { deadLetters, alone, batchHandler: parts.shipmentEventBatch, ...ignores }));
    }
    const elect = electOver({ databaseUrl: config.DATABASE_URL, retryMs: config.LEADER_RETRY_MS, logger });
    const dispatcher = new Dispatcher(parts.context, { elect, safetyNetMs: config.DISPATCHER_SAFETY_NET_MS, unresolvedBackoffMs: config.UNRESOLVED_RETRY_BACKOFF_MS, backlogOrder: backlogOrderOf(config) });
    dispatcher.start();
    closers.push(dispatcher);
  } catch (error) {
    await stopAll();
    throw error;
  }
  // The dispatcher first, then the consumer.
  return [...closers].reverse();
}

