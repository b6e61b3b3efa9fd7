import { CONSUMER_TRANSACTION, openDatabase, type RawSql, type ServiceDatabase } from "@tawsil/db";
import type { Logger } from "@tawsil/logging";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { createMetrics, processIdentity, startInProcess, type Closer, type InProcessService, type Metrics, type ServiceParts, type ServiceSpec } from "@tawsil/rpc";
import type { Kafka } from "kafkajs";
import { DeliveryEngine } from "./app/delivery-engine";
import { ManageEndpoint } from "./app/manage-endpoint";
import type { Clock, Receiver, Resolver } from "./app/ports";
import type { Config } from "./config";
import { ignoredEvent, SHIPMENT_EVENTS_GROUP, shipmentEventHandler } from "./consumers/shipment-events";
import { aresQuery, DnsResolver } from "./infra/dns-resolver";
import { PinnedHttpReceiver } from "./infra/http-receiver";
import { deliveryMetrics, droppedDeliveries } from "./infra/metrics";
import { SqlDeliveryQueue, SqlQueueWriter } from "./infra/sql-delivery-queue";
import { EndpointRoutes } from "./infra/endpoint-routes";
import { PrismaEndpointStore } from "./infra/prisma-endpoint-store";
import { PrismaClient } from "./infra/prisma/generated/client";
import { SecretBox } from "./infra/secret-box";
import { SecretResealer, startResealing } from "./infra/secret-resealer";
import { CALLERS } from "./rpc/callers";
import { webhookService } from "./rpc/webhook-service";
import { connectKafka, kafkaConnection, DeadLetterAdmin, deadLetterAdminRoutes, startConsumer, type EventHandler } from "@tawsil/events";
import { startRetention } from "@tawsil/retention";
import { webhookRetention } from "./infra/retention-policies";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

/** Fully-qualified names the gRPC health protocol answers for. */
export const SERVICE_NAMES = [WebhookService.typeName] as const;

const systemClock: Clock = { now: () => new Date() };

/** What tests replace: the clock, and the resolver (to make a name resolve somewhere). */
export interface WebhookOverrides {
  readonly clock?: Clock;
  readonly resolver?: Resolver;
  readonly receiver?: Receiver;
}

export interface WebhookServiceParts extends ServiceParts {
  readonly admin: NonNullable<ServiceParts["admin"]>;
  readonly metrics: Metrics;
  readonly database: ServiceDatabase<PrismaClient>;
  readonly engine: DeliveryEngine;
  readonly clock: Clock;
  /** Merchants' endpoints for the consumer, in memory; bypassed until started (startWebhookWorkers). */
  readonly endpointRoutes: EndpointRoutes;
  /** The shipment events' handler, for the consumer and the dead letters' replays alike. */
  readonly shipmentEvents: EventHandler<RawSql>;
  /** Attempts before the consumer parks an event it cannot apply (CONSUMER_MAX_ATTEMPTS). */
  readonly maxAttempts: number;
  /** Moves secrets sealed under another key to the current one; run in the background by webhookProcess. */
  readonly resealer: SecretResealer;
}

/** Builds the service: database, secret sealing, management use cases, the delivery engine (not started). */
export function composeWebhookService(config: Config, logger: Logger, overrides: WebhookOverrides = {}): WebhookServiceParts {
  const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
  const box = new SecretBox(config.WEBHOOK_SECRET_ENCRYPTION_KEY, config.WEBHOOK_SECRET_DECRYPTION_KEYS);
  const clock = overrides.clock ?? systemClock;
  const resolver = overrides.resolver ?? new DnsResolver(aresQuery({ servers: config.WEBHOOK_DNS_SERVERS }));
  const policy = { allowInsecure: config.WEBHOOK_ALLOW_INSECURE_URLS };
  // An endpoint resumed on any replica wakes every replica's sender: its held backlog is due now.
  const endpointRoutes = new EndpointRoutes({ db: database.sql, databaseUrl: config.DATABASE_URL, logger: logger.child({ component: "endpoint-routes" }), onChange: () => engine.wake() });
  // This replica's own write: its next read must see it, and a resume's backlog is due now.
  const endpointChanged = () => {
    endpointRoutes.changed();
    engine.wake();
  };
  const metrics = createMetrics("webhook");
  const dropped = droppedDeliveries(metrics.registry);
  const manage = new ManageEndpoint({
    store: new PrismaEndpointStore(database.client, box, endpointChanged, (count) => dropped.inc({ reason: "held_over_24h" }, count)),
    resolver,
    clock,
    policy,
    rotationQuota: config.WEBHOOK_ROTATIONS_PER_HOUR,
    rotationWindowSeconds: 3600,
  });
  const queue = new SqlDeliveryQueue(database.sql, box);
  const receiver = overrides.receiver ?? new PinnedHttpReceiver();
  const engine = new DeliveryEngine({
    queue,
    receiver,
    resolver,
    clock,
    policy,
    timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    firstRetrySeconds: config.WEBHOOK_FIRST_RETRY_SECONDS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    leaseMs: config.WEBHOOK_LEASE_MS,
    idleMs: config.WEBHOOK_IDLE_MS,
    replicaId: config.WEBHOOK_REPLICA_ID,
    observer: deliveryMetrics(metrics.registry, queue),
    logger: logger.child({ component: "delivery-engine" }),
  });
  const receiverCloser: Closer[] = receiver instanceof PinnedHttpReceiver ? [receiver] : [];
  // Operators' RPCs: the consumer's dead letters, replayed through the consumer's own handler.
  // Shipment events, queued through the writer of the consumer's transaction (endpoints from memory).
  const shipmentEvents = shipmentEventHandler(clock, () => engine.wake(), (tx: RawSql) => new SqlQueueWriter(tx, endpointRoutes));
  const deadLetters = new DeadLetterAdmin({ groupId: SHIPMENT_EVENTS_GROUP, runInTransaction: database.sql.runner(CONSUMER_TRANSACTION), handler: shipmentEvents });
  return {
    admin: deadLetterAdminRoutes(deadLetters),
    routes: (router) => router.service(WebhookService, webhookService({ manage, logger })),
    callers: processIdentity("webhook", config, logger, CALLERS).callers,
    checks: [database.readiness],
    closers: [...receiverCloser, database],
    metrics,
    database,
    engine,
    clock,
    endpointRoutes,
    shipmentEvents,
    maxAttempts: config.CONSUMER_MAX_ATTEMPTS,
    resealer: new SecretResealer(database.client, box, config.WEBHOOK_RESEAL_BATCH_SIZE, logger.child({ component: "secret-reseal" }), metrics.registry),
  };
}

/** Starts the shipment-event consumer (given a broker) and the delivery engine; their closers come first at shutdown. */
export async function startWebhookWorkers(parts: WebhookServiceParts, logger: Logger, opts: { kafka?: Kafka; consumerGroupId?: string; engine?: boolean } = {}): Promise<Closer[]> {
  const closers: Closer[] = [];
  // Listening before the first event is consumed (the routes) and before the engine's first look
  // (an endpoint resumed on any replica wakes it); stopped after both at shutdown.
  if (opts.kafka || opts.engine !== false) {
    await parts.endpointRoutes.start();
    closers.push(parts.endpointRoutes);
  }
  if (opts.kafka) {
    const subscription = { kafka: opts.kafka, groupId: opts.consumerGroupId ?? SHIPMENT_EVENTS_GROUP, topics: [SHIPMENT_EVENTS_TOPIC] };
    closers.unshift(
      await startConsumer(subscription, parts.database.sql.runner(CONSUMER_TRANSACTION), parts.shipmentEvents, logger, {
        ignores: ignoredEvent(parts.clock, parts.endpointRoutes),
        deadLetters: { maxAttempts: parts.maxAttempts, registry: parts.metrics.registry },
      }),
    );
  }
  // The engine is stopped first at shutdown even when a caller starts it later (tests, benches).
  if (opts.engine !== false) parts.engine.start();
  closers.unshift(parts.engine);
  return closers;
}

export type RunningWebhookService = InProcessService & { readonly parts: WebhookServiceParts };

/** The service in-process on HOST:PORT (port 0 picks a free one), without signal handling: for tests. */
export async function startWebhookService(
  config: Config,
  logger: Logger,
  opts: WebhookOverrides & { kafka?: Kafka; consumerGroupId?: string; engine?: boolean } = {},
): Promise<RunningWebhookService> {
  const parts = composeWebhookService(config, logger, opts);
  const workers = await startWebhookWorkers(parts, logger, opts);
  const running = await startInProcess({
    name: "webhook",
    config,
    logger,
    metrics: parts.metrics,
    serviceNames: SERVICE_NAMES,
    routes: parts.routes,
    admin: parts.admin,
    callers: parts.callers,
    checks: parts.checks,
    closers: [...workers, ...parts.closers],
  });
  return { ...running, parts };
}

/** The whole process as main.ts runs it: the service, its broker, the shipment event consumer and the delivery engine. */
export async function webhookProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const parts = composeWebhookService(config, logger);
  const broker = connectKafka({ clientId: "webhook", logger, ...kafkaConnection(config) });
  const workers = await startWebhookWorkers(parts, logger, { kafka: broker.kafka });
  const retention = startRetention(config, { policies: webhookRetention(config), logger, registry: parts.metrics.registry });
  // Re-sealing only while a rotation is under way: with a lone key every secret is already under it.
  const resealing = config.WEBHOOK_SECRET_DECRYPTION_KEYS.length > 0 ? [startResealing(parts.resealer, config.WEBHOOK_RESEAL_INTERVAL_MS, logger)] : [];
  return { name: "webhook", config, logger, metrics: parts.metrics, routes: parts.routes, admin: parts.admin, callers: parts.callers, serviceNames: SERVICE_NAMES, checks: parts.checks, closers: [...resealing, retention, ...workers, ...parts.closers] };
}
