import { CONSUMER_TRANSACTION, listenForNotifications, openDatabase, RELAY_TRANSACTION, type RawSql, type ServiceDatabase } from "@tawsil/db";
import type { Logger } from "@tawsil/logging";
import { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { DriverAdminService } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { createMetrics, createPeerClient, processIdentity, startInProcess, type Closer, type InProcessService, type ServiceParts, type ServiceSpec } from "@tawsil/rpc";
import type { Kafka } from "kafkajs";
import { ActiveDriverIndex } from "./app/active-driver-index";
import { CatalogueCache } from "./app/catalogue-cache";
import { CheckEligibility } from "./app/check-eligibility";
import type { DispatchContext } from "./app/context";
import { StepEchoes } from "./app/step-echoes";
import { DriverApi } from "./app/driver-api";
import { OfferWaiters } from "./app/offer-waiters";
import { StaffingPublisher } from "./app/staffing-publisher";
import type { Config } from "./config";
import { SqlDispatchStore } from "./infra/sql-dispatch-store";
import { PrismaClient } from "./infra/prisma/generated/client";
import { loadActiveDriverPairs } from "./infra/repositories/active-drivers";
import { CatalogueRepository } from "./infra/repositories/catalogue";
import { DRIVERS_CHANNEL, OFFERS_CHANNEL } from "./infra/wake-ups";
import { shipmentsOver } from "./infra/shipment-client";
import { SHIPMENT_EVENTS_GROUP, shipmentEventBatchHandler, shipmentEventHandler } from "./consumers/shipment-events";
import { CALLERS } from "./rpc/callers";
import { dispatchService } from "./rpc/dispatch-service";
import { DriverAdmin } from "./app/driver-admin";
import { PrismaDriverRegistry } from "./infra/driver-registry";
import { StepKeyRepository } from "./infra/step-key-repository";
import { driverAdminService } from "./rpc/driver-admin-service";
import { driverService } from "./rpc/driver-service";
import { connectKafka, kafkaConnection, consumerRetention, DeadLetterAdmin, deadLetterAdminRoutes, outboxRetention, startOutboxRelay, type BatchEventHandler, type EventHandler } from "@tawsil/events";
import { SqlJobWork } from "./infra/sql-job-work";
import { staffingReadiness, staffingRelayed } from "./readiness";
import { startDispatchWorkers } from "./workers";
import { expiresByColumn, startRetention } from "@tawsil/retention";

/** Drivers' step keys live 24 h, like the merchants' idempotency records (decisions.md section 3). */
const stepKeyRetention = expiresByColumn({ table: "driver_step_request", column: "created_at", periodMs: 24 * 60 * 60 * 1000 });

/** Fully-qualified names the gRPC health protocol answers for. */
export const SERVICE_NAMES = [DispatchService.typeName, DriverService.typeName] as const;

export interface DispatchServiceParts extends ServiceParts {
  readonly admin: NonNullable<ServiceParts["admin"]>;
  /** The service's database, for what main.ts adds around the server (the outbox relay). */
  readonly database: ServiceDatabase<PrismaClient>;
  /** What the background workers share with the RPC handlers. */
  readonly context: DispatchContext;
  /** The shipment events' handler, for the consumer (workers.ts) and the dead letters' replays alike. */
  readonly shipmentEvents: EventHandler<RawSql>;
  /** The same events a fetch brought together, for the consumer. */
  readonly shipmentEventBatch: BatchEventHandler<RawSql>;
  readonly driverApi: DriverApi;
  readonly catalogue: CatalogueCache;
  readonly activeDrivers: ActiveDriverIndex;
  readonly staffing: StaffingPublisher;
}

/**
 * Builds the service from its configuration: database, the carrier catalogue (loaded here, so a
 * replica that cannot read it fails to start rather than answering "not eligible" to everyone),
 * the shipment service's client, use cases and RPC handlers. The background workers (consumer,
 * dispatcher) are started by startDispatchWorkers. The sandbox's simulated drivers are a process
 * of their own (services/sandbox-fleet), drivers like any other over the gateway.
 */
export async function composeDispatchService(config: Config, logger: Logger): Promise<DispatchServiceParts> {
  const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
  const repository = new CatalogueRepository(database.client);
  const store = new SqlDispatchStore(database.sql);
  // Each reload of the catalogue or the index republishes what changed of every city's staffing;
  // the publisher exists once both are loaded (the first publication is awaited below).
  let staffing: StaffingPublisher | undefined;
  const republish = () => staffing?.publishInBackground();
  const catalogue = new CatalogueCache({ load: () => repository.load(), refreshMs: config.CATALOGUE_REFRESH_MS, logger, onLoaded: republish });
  const activeDrivers = new ActiveDriverIndex({ load: () => loadActiveDriverPairs(database.client), logger, onLoaded: republish });
  let driverChanges: Awaited<ReturnType<typeof listenForNotifications>> | undefined;
  let offersMade: Awaited<ReturnType<typeof listenForNotifications>> | undefined;
  const offerWaiters = new OfferWaiters();
  try {
    await catalogue.start();
    // Listening before the first load, so no shift change can fall between the two; the listener
    // also reloads after each reconnection, for the notifications lost while it was down.
    driverChanges = await listenForNotifications({ url: config.DATABASE_URL, channel: DRIVERS_CHANNEL, onNotify: () => activeDrivers.refreshInBackground(), logger });
    // Every replica: a driver's long poll for offers may be held by any of them.
    offersMade = await listenForNotifications({ url: config.DATABASE_URL, channel: OFFERS_CHANNEL, onNotify: (driverId) => offerWaiters.wake(driverId || undefined), logger });
    await activeDrivers.start();
    staffing = new StaffingPublisher({
      catalogue,
      activeDrivers,
      record: (changed) => store.transaction(async (work) => {
        const at = new Date();
        for (const city of changed) await work.recordCityStaffing(city, at);
      }),
      logger,
    });
    await staffing.publishChanges();
  } catch (error) {
    await catalogue.close();
    await driverChanges?.close();
    await offersMade?.close();
    await database.close();
    throw error;
  }
  const checkEligibility = new CheckEligibility(catalogue, activeDrivers);
  const identity = processIdentity("dispatch", config, logger, CALLERS);
  const shipmentPeer = { timeoutMs: config.PEER_TIMEOUT_MS, identity: identity.self };
  const shipmentClient = createPeerClient(ShipmentService, config.SHIPMENT_SERVICE_URL, shipmentPeer);
  const context: DispatchContext = {
    store,
    shipments: shipmentsOver(shipmentClient),
    catalogue,
    logger,
    offerTimeoutMs: config.OFFER_TIMEOUT_MS,
    dispatchTimeoutMs: config.DISPATCH_TIMEOUT_MS,
    offerLeadMs: config.PICKUP_OFFER_LEAD_MS,
    echoes: new StepEchoes(),
  };
  const driverApi = new DriverApi(context, activeDrivers, new StepKeyRepository(database.sql), offerWaiters);
  // Operators' RPCs: the consumer's dead letters, replayed through the consumer's own handler.
  // Shipment events, applied through the job work of the consumer's transaction.
  const shipmentEvents = shipmentEventHandler(context, (tx: RawSql) => new SqlJobWork(tx));
  const shipmentEventBatch = shipmentEventBatchHandler(context, (tx: RawSql) => new SqlJobWork(tx));
  const deadLetters = new DeadLetterAdmin({ groupId: SHIPMENT_EVENTS_GROUP, runInTransaction: database.sql.runner(CONSUMER_TRANSACTION), handler: shipmentEvents });
  const driverAdmin = new DriverAdmin({
    registry: new PrismaDriverRegistry(database.client),
    setAvailability: (input) => driverApi.setAvailability(input),
    catalogue,
    environment: config.TAWSIL_ENVIRONMENT,
    logger,
  });
  const deadLetterRoutes = deadLetterAdminRoutes(deadLetters);
  return {
    // Operators' listener: dead letters, and the registry of production drivers.
    admin: {
      routes: (router) => {
        deadLetterRoutes.routes(router);
        router.service(DriverAdminService, driverAdminService({ driverAdmin, logger }));
      },
      serviceNames: [...deadLetterRoutes.serviceNames, DriverAdminService.typeName],
    },
    routes: (router) => {
      router.service(DispatchService, dispatchService({ checkEligibility }));
      router.service(DriverService, driverService({ driverApi, logger }));
    },
    callers: identity.callers,
    checks: [database.readiness, staffingReadiness(staffing)],
    closers: [catalogue, { name: "driver-changes-listener", close: () => driverChanges.close() }, { name: "offers-listener", close: () => offersMade.close() }, database],
    database,
    context,
    shipmentEvents,
    shipmentEventBatch,
    driverApi,
    catalogue,
    activeDrivers,
    staffing,
  };
}

export type RunningDispatchService = InProcessService;

/**
 * The service in-process on HOST:PORT (port 0 picks a free one), without signal handling: for
 * tests. Without `workers` it only answers RPCs; with them it also runs the consumer (on the
 * given broker) and the dispatcher.
 */
export async function startDispatchService(
  config: Config,
  logger: Logger,
  workers?: { kafka?: Kafka; consumerGroupId?: string },
): Promise<RunningDispatchService> {
  const parts = await composeDispatchService(config, logger);
  let workerClosers: Closer[] = [];
  if (workers) {
    try {
      workerClosers = await startDispatchWorkers(parts, config, logger, workers);
    } catch (error) {
      for (const closer of parts.closers) await closer.close();
      throw error;
    }
  }
  return startInProcess({
    name: "dispatch",
    config,
    logger,
    serviceNames: SERVICE_NAMES,
    routes: parts.routes,
    admin: parts.admin,
    callers: parts.callers,
    checks: parts.checks,
    closers: [...workerClosers, ...parts.closers],
  });
}

/** The whole process as main.ts runs it: the service, its broker, outbox relay, shipment event consumer and dispatcher. */
export async function dispatchProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const parts = await composeDispatchService(config, logger);
  const broker = connectKafka({ clientId: "dispatch", logger, ...kafkaConnection(config) });
  const metrics = createMetrics("dispatch");
  // Its lag on the service's /metrics (outbox_oldest_unsent_age_seconds, the OutboxLag alert).
  const relay = await startOutboxRelay({ kafka: broker.kafka, logger, runInTransaction: parts.database.sql.runner(RELAY_TRANSACTION), databaseUrl: config.DATABASE_URL, registry: metrics.registry });
  const workers = await startDispatchWorkers(parts, config, logger, { kafka: broker.kafka, registry: metrics.registry });
  const checks = [...parts.checks, staffingRelayed(parts.database.client)];
  const retention = startRetention(config, { policies: [outboxRetention(config.OUTBOX_RETENTION_DAYS), ...consumerRetention(config), stepKeyRetention], logger, registry: metrics.registry });
  return { name: "dispatch", config, logger, metrics, serviceNames: SERVICE_NAMES, routes: parts.routes, admin: parts.admin, callers: parts.callers, checks, closers: [retention, ...workers, relay, ...parts.closers] };
}
