import { openDatabase, RELAY_TRANSACTION } from "@tawsil/db";
import type { Logger } from "@tawsil/logging";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { createMetrics, createPeerClient, processIdentity, startInProcess, type Metrics, type ReadinessCheck, type InProcessService, type ServiceParts, type ServiceSpec } from "@tawsil/rpc";
import { ApplyDispatchStep } from "./app/apply-dispatch-step";
import { GetSandboxDeliveryProof } from "./app/sandbox-delivery-proof";
import { CancelShipment } from "./app/cancel-shipment";
import { CreateShipment } from "./app/create-shipment";
import { DecideApproval } from "./app/decide-approval";
import { MediaAssets } from "./app/media-assets";
import { MediaRetention } from "./app/media-retention";
import { ReadShipments } from "./app/read-shipments";
import { ReserveForOffer } from "./app/reserve-for-offer";
import type { Config } from "./config";
import { CachedMerchantDirectory } from "./infra/merchant-directory";
import { PricingServiceQuotes } from "./infra/pricing-quotes";
import { FindTrackedShipment } from "./app/find-tracked-shipment";
import { trackingLinkOf } from "./domain/tracking-link";
import { startMediaRetention } from "./infra/media-retention-job";
import { PrismaMediaStore } from "./infra/prisma-media-store";
import { SqlShipmentStore } from "./infra/sql-shipment-store";
import { S3ObjectStorage } from "./infra/s3-object-storage";
import { mediaAssetService } from "./rpc/media-asset-service";
import { PrismaClient } from "./infra/prisma/generated/client";
import { shipmentAdminService } from "./rpc/shipment-admin-service";
import { shipmentService } from "./rpc/shipment-service";
import { CALLERS } from "./rpc/callers";
import { connectKafka, kafkaConnection, startOutboxRelay } from "@tawsil/events";
import { startRetention } from "@tawsil/retention";
import { shipmentRetention } from "./infra/retention-policies";
import { listenToMerchantChanges } from "./consumers/merchant-changes";
import { snapshotOf } from "./messages/shipment-message";

/** Fully-qualified names the gRPC health protocol answers for, on the service port and on the admin listener. */
export const SERVICE_NAMES = [ShipmentService.typeName, MediaAssetService.typeName] as const;
export const ADMIN_SERVICE_NAMES = [ShipmentAdminService.typeName] as const;

export interface ShipmentServiceParts extends ServiceParts {
  /** The database only: a peer that is down fails creates with Unavailable, reads still work. */
  readonly checks: readonly ReadinessCheck[];
  readonly metrics: Metrics;
  readonly admin: NonNullable<ServiceParts["admin"]>;
  /** Merchants as this replica knows them; main.ts keeps it fresh from merchant events. */
  readonly merchantCache: CachedMerchantDirectory["cache"];
  /** Media retention; tests run it on demand. */
  readonly mediaRetention: ReturnType<typeof startMediaRetention>;
  /** The database, for the composition root's outbox relay. */
  readonly database: ReturnType<typeof openDatabase<PrismaClient>>;
}

/**
 * Builds the service from its configuration. The interactive transaction of a create may wait on
 * the idempotency lock for IDEMPOTENCY_WAIT_MS and, before that, for a pooled connection while
 * concurrent duplicates hold the others: both bounds leave room for that queue.
 */
export function composeShipmentService(config: Config, logger: Logger): ShipmentServiceParts {
  const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
  const store = new SqlShipmentStore(database.sql, {
    maxWaitMs: config.IDEMPOTENCY_WAIT_MS * 4 + 10_000,
    timeoutMs: config.IDEMPOTENCY_WAIT_MS + 10_000,
    trackingLink: (shipmentId) => trackingLinkOf(config.PUBLIC_BASE_URL, config.TRACKING_LINK_SECRET, shipmentId),
    attachedMediaRetentionMs: config.MEDIA_ATTACHED_RETENTION_DAYS * 24 * 3600_000,
  });
  const retentionMs = config.IDEMPOTENCY_RETENTION_HOURS * 3600_000;
  const identity = processIdentity("shipment", config, logger, CALLERS);
  const peer = { timeoutMs: config.PEER_TIMEOUT_MS, identity: identity.self };
  const links = { publicBaseUrl: config.PUBLIC_BASE_URL, secret: config.TRACKING_LINK_SECRET };
  const merchants = new CachedMerchantDirectory(createPeerClient(MerchantService, config.MERCHANT_SERVICE_URL, peer), { maxAgeMs: config.MERCHANT_CACHE_MAX_AGE_MS });
  // Idempotent answers are stored as the merchant's Shipment message, PIN included.
  const snapshots = { of: snapshotOf };
  const createShipment = new CreateShipment({
    store,
    snapshots,
    merchants,
    quotes: new PricingServiceQuotes(createPeerClient(PricingService, config.PRICING_SERVICE_URL, peer)),
    environment: config.TAWSIL_ENVIRONMENT,
    idempotencyWaitMs: config.IDEMPOTENCY_WAIT_MS,
    retentionMs,
  });
  const service = shipmentService({
    createShipment,
    cancelShipment: new CancelShipment({ store, snapshots, idempotencyWaitMs: config.IDEMPOTENCY_WAIT_MS, retentionMs }),
    reserveForOffer: new ReserveForOffer({ store }),
    applyDispatchStep: new ApplyDispatchStep({ store }),
    readShipments: new ReadShipments({ store, cursorSecret: config.CURSOR_SECRET }),
    findTrackedShipment: new FindTrackedShipment({ store }),
    links,
    logger,
  });
  // On the admin listener only, as the merchant service serves its MerchantAdminService: dispatch
  // and the gateway reach the service port, never the approvals.
  const admin = shipmentAdminService({ decideApproval: new DecideApproval({ store }), getSandboxDeliveryProof: new GetSandboxDeliveryProof({ store, environment: config.TAWSIL_ENVIRONMENT }), links, logger });
  const metrics = createMetrics("shipment");
  const storage = new S3ObjectStorage({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    timeoutMs: config.S3_TIMEOUT_MS,
  });
  const mediaStore = new PrismaMediaStore(database.client);
  const mediaAssets = new MediaAssets({
    store: mediaStore,
    storage,
    unattachedRetentionMs: config.MEDIA_UNATTACHED_RETENTION_HOURS * 3600_000,
    presignSeconds: config.MEDIA_PRESIGN_SECONDS,
    onRejected: (assetId, reason) => logger.info({ assetId, reason }, "media upload rejected"),
  });
  const mediaRetention = startMediaRetention({
    retention: new MediaRetention({ store: mediaStore, storage, batchSize: 100, orphanGraceMs: config.MEDIA_ORPHAN_GRACE_MINUTES * 60_000 }),
    logger,
    registry: metrics.registry,
    intervalMs: config.MEDIA_RETENTION_INTERVAL_MS,
  });
  const media = mediaAssetService({ mediaAssets, logger });
  return {
    routes: (router) => {
      router.service(ShipmentService, service);
      router.service(MediaAssetService, media);
    },
    admin: { routes: (router) => void router.service(ShipmentAdminService, admin), serviceNames: ADMIN_SERVICE_NAMES },
    callers: identity.callers,
    checks: [database.readiness],
    closers: [mediaRetention, database],
    metrics,
    mediaRetention,
    merchantCache: merchants.cache,
    database,
  };
}

export type RunningShipmentService = InProcessService;

/** The service in-process on HOST:PORT (port 0 picks a free one), without signal handling or relay: for tests and benches. */
export async function startShipmentService(config: Config, logger: Logger): Promise<RunningShipmentService & { parts: ShipmentServiceParts }> {
  const parts = composeShipmentService(config, logger);
  const running = await startInProcess({
    name: "shipment",
    config,
    logger,
    metrics: parts.metrics,
    routes: parts.routes,
    admin: parts.admin,
    serviceNames: SERVICE_NAMES,
    callers: parts.callers,
    checks: parts.checks,
    closers: parts.closers,
  });
  return { ...running, parts };
}

/** The whole process as main.ts runs it: the service, its broker, outbox relay and merchant-change listener. */
export async function shipmentProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const parts = composeShipmentService(config, logger);
  const broker = connectKafka({ clientId: "shipment", logger, ...kafkaConnection(config) });
  // Its lag on the service's /metrics (outbox_oldest_unsent_age_seconds, the OutboxLag alert).
  const relay = await startOutboxRelay({
    kafka: broker.kafka,
    logger,
    runInTransaction: parts.database.sql.runner(RELAY_TRANSACTION),
    databaseUrl: config.DATABASE_URL,
    registry: parts.metrics.registry,
  });
  const retention = startRetention(config, { policies: shipmentRetention(config), logger, registry: parts.metrics.registry });
  const merchantChanges = listenToMerchantChanges(broker.kafka, parts.merchantCache, logger);
  merchantChanges.startInBackground();
  return {
    name: "shipment",
    config,
    logger,
    metrics: parts.metrics,
    routes: parts.routes,
    admin: parts.admin,
    serviceNames: SERVICE_NAMES,
    callers: parts.callers,
    checks: parts.checks,
    closers: [{ name: "merchant-changes", close: () => merchantChanges.stop() }, retention, relay, ...parts.closers],
  };
}
