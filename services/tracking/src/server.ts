import { CONSUMER_TRANSACTION, openDatabase, type RawSql, type ServiceDatabase } from "@tawsil/db";
import type { ConsumedEvent } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { createMetrics, createPeerClient, processIdentity, startInProcess, type Closer, type InProcessService, type ServiceParts, type ServiceSpec } from "@tawsil/rpc";
import type { Kafka } from "kafkajs";
import type { Clock } from "./app/ports";
import { ReadTracking } from "./app/read-tracking";
import type { Config } from "./config";
import { PROJECTION_GROUP, projectionHandler, startProjectionConsumer, type ProjectionWriters, type Topics } from "./consumers/projection-consumer";
import { shipmentWritesAlone, SqlProjectionBatchWriter, SqlProjectionWriter } from "./infra/projection-writer";
import { SqlProjectionReader } from "./infra/projection-reader";
import { PrismaClient } from "./infra/prisma/generated/client";
import { ShipmentServiceFallback } from "./infra/shipment-fallback";
import { CALLERS } from "./rpc/callers";
import { trackingService } from "./rpc/tracking-service";
import { connectKafka, kafkaConnection, DeadLetterAdmin, deadLetterAdminRoutes } from "@tawsil/events";
import { startRetention } from "@tawsil/retention";
import { trackingRetention } from "./infra/retention-policies";

/** Fully-qualified names the gRPC health protocol answers for. */
export const SERVICE_NAMES = [TrackingService.typeName] as const;

/**
 * The projection consumer's writers: one event's, or a fetched batch's, in the consumer's
 * transaction. Every statement of the projection and of the reads runs on the pool directly
 * (issue 34: Prisma's raw API was a quarter of tracking's CPU in the bench profiles).
 */
const PROJECTION_WRITERS: ProjectionWriters<RawSql> = {
  writerIn: (tx) => new SqlProjectionWriter(tx),
  batchWriterIn: (tx) => new SqlProjectionBatchWriter(tx),
};
/** A shipment fact a fetch brings alone is applied with its claim in one statement on the pool (shipmentWritesAlone). */
const projectionsOf = (database: ServiceDatabase<PrismaClient>) => ({
  runInTransaction: database.sql.runner(CONSUMER_TRANSACTION),
  writers: PROJECTION_WRITERS,
  alone: { sql: database.sql, shipmentWrites: shipmentWritesAlone },
});

export interface TrackingServiceParts extends ServiceParts {
  readonly admin: NonNullable<ServiceParts["admin"]>;
  readonly database: ServiceDatabase<PrismaClient>;
}

/** Database, the shipment service's client for the fallback, the reads and their RPC handlers. */
export function composeTrackingService(config: Config, logger: Logger, clock: Clock = () => new Date()): TrackingServiceParts {
  const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
  const identity = processIdentity("tracking", config, logger, CALLERS);
  const readTracking = new ReadTracking({
    projections: new SqlProjectionReader(database.sql),
    fallback: new ShipmentServiceFallback(createPeerClient(ShipmentService, config.SHIPMENT_SERVICE_URL, { timeoutMs: config.PEER_TIMEOUT_MS, identity: identity.self })),
    clock,
  });
  // Operators' RPCs: the projection consumer's dead letters, replayed through its own handler.
  const deadLetters = new DeadLetterAdmin({ groupId: PROJECTION_GROUP, runInTransaction: database.sql.runner(CONSUMER_TRANSACTION), handler: projectionHandler(logger, PROJECTION_WRITERS) });
  return {
    routes: (router) => router.service(TrackingService, trackingService({ readTracking, logger })),
    admin: deadLetterAdminRoutes(deadLetters),
    callers: identity.callers,
    checks: [database.readiness],
    closers: [database],
    database,
  };
}

export interface TrackingWorkers {
  readonly kafka: Kafka;
  readonly groupId?: string;
  readonly topics?: Topics;
  readonly onDelivery?: (event: ConsumedEvent, applied: boolean) => void;
}

/**
 * The service in-process on HOST:PORT (port 0 picks a free one), without signal handling: for
 * tests, with a clock of their own. Without `workers` it answers from what its tables hold and
 * the fallback; with them it also runs the projection consumer on the given broker.
 */
export async function startTrackingService(config: Config, logger: Logger, opts: { clock?: Clock; workers?: TrackingWorkers } = {}): Promise<InProcessService> {
  const parts = composeTrackingService(config, logger, opts.clock);
  const closers: Closer[] = [];
  if (opts.workers) {
    try {
      closers.push(await startProjectionConsumer({ ...projectionsOf(parts.database), logger, deadLetters: { maxAttempts: config.CONSUMER_MAX_ATTEMPTS }, ...opts.workers }));
    } catch (error) {
      await parts.database.close();
      throw error;
    }
  }
  return startInProcess({ name: "tracking", config, logger, serviceNames: SERVICE_NAMES, routes: parts.routes, admin: parts.admin, callers: parts.callers, checks: parts.checks, closers: [...closers, ...parts.closers] });
}

/** The whole process as main.ts runs it: the service, its broker and the projection consumer. */
export async function trackingProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const parts = composeTrackingService(config, logger);
  const broker = connectKafka({ clientId: "tracking", logger, ...kafkaConnection(config) });
  const metrics = createMetrics("tracking");
  const consumer = await startProjectionConsumer({ kafka: broker.kafka, ...projectionsOf(parts.database), logger, deadLetters: { maxAttempts: config.CONSUMER_MAX_ATTEMPTS, registry: metrics.registry } });
  const retention = startRetention(config, { policies: trackingRetention(config), logger, registry: metrics.registry });
  return { name: "tracking", config, logger, metrics, routes: parts.routes, admin: parts.admin, callers: parts.callers, serviceNames: SERVICE_NAMES, checks: parts.checks, closers: [retention, consumer, ...parts.closers] };
}
