import { IdempotentConsumer, type AloneWrites, type ConsumedEvent, type DeadLetterOptions, type RunInTransaction, type SqlClient } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import type { Closer } from "@tawsil/rpc";
import type { Kafka } from "kafkajs";
import { applyAssignmentFact, applyFacts, applyFixFact, applyShipmentFact, shipmentProjection, type Fact } from "../app/apply-facts";
import type { ProjectionBatchWriter, ProjectionWriter, ShipmentFact } from "../app/ports";
import { assignmentFactOf, fixFactOf, shipmentFactOf } from "./decode";
import { ASSIGNMENT_EVENTS_TOPIC, DRIVER_LOCATION_TOPIC, SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

export interface Topics {
  readonly shipments: string;
  readonly assignments: string;
  readonly locations: string;
}

export const TOPICS: Topics = {
  shipments: SHIPMENT_EVENTS_TOPIC,
  assignments: ASSIGNMENT_EVENTS_TOPIC,
  locations: DRIVER_LOCATION_TOPIC,
};
export const PROJECTION_GROUP = "tracking.projections";

/** The projection writers of one consumer transaction (server.ts wires the adapters). */
export interface ProjectionWriters<Tx extends SqlClient> {
  readonly writerIn: (tx: Tx) => ProjectionWriter;
  readonly batchWriterIn: (tx: Tx) => ProjectionBatchWriter;
}

/** Applies one event of any of the three topics to the projection tables, in the consumer's transaction. */
export function projectionHandler<Tx extends SqlClient>(logger: Logger, writers: ProjectionWriters<Tx>, topics: Topics = TOPICS) {
  return async (tx: Tx, event: ConsumedEvent): Promise<void> => {
    const writer = writers.writerIn(tx);
    if (event.topic === topics.shipments) {
      const fact = shipmentFactOf(event.payload);
      if (fact) return applyShipmentFact(writer, fact);
    } else if (event.topic === topics.assignments) {
      const decoded = assignmentFactOf(event.payload);
      if (decoded) return applyAssignmentFact(writer, decoded.change, decoded.fact);
    } else if (event.topic === topics.locations) {
      const fact = fixFactOf(event.payload);
      if (fact) return applyFixFact(writer, fact);
    }
    // Retrying could never make sense of it, and it must not block its partition.
    logger.error({ topic: event.topic, eventId: event.eventId, type: event.type }, "skipping an event tracking cannot read");
  };
}

/** Decodes one event; undefined (logged) for one tracking cannot read, which is skipped as the handler skips it. */
function factOf(logger: Logger, topics: Topics, event: ConsumedEvent): Fact | undefined {
  if (event.topic === topics.shipments) {
    const fact = shipmentFactOf(event.payload);
    if (fact) return { kind: "shipment", fact };
  } else if (event.topic === topics.assignments) {
    const decoded = assignmentFactOf(event.payload);
    if (decoded) return { kind: "assignment", ...decoded };
  } else if (event.topic === topics.locations) {
    const fact = fixFactOf(event.payload);
    if (fact) return { kind: "fix", fact };
  }
  logger.error({ topic: event.topic, eventId: event.eventId, type: event.type }, "skipping an event tracking cannot read");
  return undefined;
}

/** The events kafkajs fetched together, applied as projectionHandler would one by one, in a few set-based statements. */
export function projectionBatchHandler<Tx extends SqlClient>(logger: Logger, writers: ProjectionWriters<Tx>, topics: Topics = TOPICS) {
  return async (tx: Tx, events: readonly ConsumedEvent[]): Promise<void> => {
    const facts = events.flatMap((event) => factOf(logger, topics, event) ?? []);
    await applyFacts(writers.batchWriterIn(tx), facts);
  };
}

/**
 * The events that change no projection, skipped without a transaction: an assignment change other
 * than an acceptance naming its driver, and a fix of a driver carrying nothing (the fleet's idle
 * drivers report every 2 s). An event tracking cannot read is not ignored: the handler logs it.
 */
export function ignoredEvent(topics: Topics = TOPICS) {
  return (event: ConsumedEvent): boolean => {
    if (event.topic === topics.assignments) {
      const decoded = assignmentFactOf(event.payload);
      return decoded !== null && (decoded.change !== "ACCEPTED" || decoded.fact.driverRef === "");
    }
    if (event.topic === topics.locations) {
      const fact = fixFactOf(event.payload);
      return fact !== null && fact.shipmentId === "";
    }
    return false;
  };
}

/** A shipment fact's writes as one statement with the consumer's claim (the pool it runs on, and the infra's SQL). */
export interface AloneShipmentWrites {
  readonly sql: SqlClient;
  readonly shipmentWrites: (fact: ShipmentFact, terminalAt: Date | null, status: string, first: number) => AloneWrites;
}

/**
 * A shipment event applied alone: its two writes with the claim in one statement, no transaction
 * (the create's event, which a fetch most often brings a partition alone). Assignments and fixes
 * take the handler.
 */
function shipmentAlone(alone: AloneShipmentWrites, topics: Topics) {
  return {
    sql: alone.sql,
    writesFor: (event: ConsumedEvent, first: number): AloneWrites | undefined => {
      if (event.topic !== topics.shipments) return undefined;
      const fact = shipmentFactOf(event.payload);
      if (!fact) return undefined;
      const { terminalAt, status } = shipmentProjection(fact);
      return alone.shipmentWrites(fact, terminalAt, status, first);
    },
  };
}

/**
 * One consumer group over the three topics: each event is applied exactly once (its id is
 * claimed in the same transaction as the projection writes) and its offset committed after.
 */
export async function startProjectionConsumer<Tx extends SqlClient>(opts: {
  kafka: Kafka;
  runInTransaction: RunInTransaction<Tx>;
  writers: ProjectionWriters<Tx>;
  /** Shipment events a fetch brings alone applied in one statement with their claim. */
  alone?: AloneShipmentWrites;
  logger: Logger;
  groupId?: string;
  topics?: Topics;
  onDelivery?: (event: ConsumedEvent, applied: boolean) => void;
  /** Poison events: parked after this many attempts (CONSUMER_MAX_ATTEMPTS). */
  deadLetters?: DeadLetterOptions;
}): Promise<Closer> {
  const topics = opts.topics ?? TOPICS;
  const consumer = new IdempotentConsumer<Tx>({
    kafka: opts.kafka,
    groupId: opts.groupId ?? PROJECTION_GROUP,
    topics: Object.values(topics),
    runInTransaction: opts.runInTransaction,
    handler: projectionHandler(opts.logger, opts.writers, topics),
    batchHandler: projectionBatchHandler(opts.logger, opts.writers, topics),
    ignores: ignoredEvent(topics),
    ...(opts.alone ? { alone: shipmentAlone(opts.alone, topics) } : {}),
    logger: opts.logger,
    ...(opts.onDelivery ? { onDelivery: opts.onDelivery } : {}),
    ...(opts.deadLetters ? { deadLetters: opts.deadLetters } : {}),
  });
  await consumer.start();
  return { name: "projection-consumer", close: () => consumer.stop() };
}
