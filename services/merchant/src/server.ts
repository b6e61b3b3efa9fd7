import { openDatabase, RELAY_TRANSACTION, type ServiceDatabase } from "@tawsil/db";
import type { Logger } from "@tawsil/logging";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { createMetrics, processIdentity, startInProcess, type InProcessService, type ServiceParts, type ServiceSpec } from "@tawsil/rpc";
import { Clients } from "./app/clients";
import { DriverClients } from "./app/driver-clients";
import { IssueAccessToken } from "./app/issue-access-token";
import { MerchantContexts } from "./app/merchant-context";
import { Merchants } from "./app/merchants";
import { Places } from "./app/places";
import { RateCards } from "./app/rate-cards";
import { SigningKeyRing } from "./app/signing-key-ring";
import type { Config } from "./config";
import { randomCredentials } from "./infra/client-credentials";
import { es256Signer } from "./infra/es256";
import { KeyEncryption } from "./infra/key-encryption";
import { PrismaClient } from "./infra/prisma/generated/client";
import { ClientRepository } from "./infra/repositories/clients";
import { DriverClientRepository } from "./infra/repositories/driver-clients";
import { MerchantRepository } from "./infra/repositories/merchants";
import { PlaceRepository } from "./infra/repositories/places";
import { RateCardRepository } from "./infra/repositories/rate-cards";
import { SigningKeyRepository } from "./infra/repositories/signing-keys";
import { scryptSecrets } from "./infra/scrypt-secret-hash";
import { merchantAdminService } from "./rpc/merchant-admin-service";
import { CALLERS } from "./rpc/callers";
import { merchantService } from "./rpc/merchant-service";
import { connectKafka, kafkaConnection, outboxRetention, startOutboxRelay } from "@tawsil/events";
import { startRetention } from "@tawsil/retention";

/** Fully-qualified names the gRPC health protocol answers for, on the service port and on the admin listener. */
export const SERVICE_NAMES = [MerchantService.typeName] as const;
export const ADMIN_SERVICE_NAMES = [MerchantAdminService.typeName] as const;

/** How often a replica checks whether another one rotated the signing key. */
const SIGNING_KEY_REFRESH_MS = 5_000;

export interface MerchantServiceParts extends ServiceParts {
  readonly admin: NonNullable<ServiceParts["admin"]>;
  /** The service's database, for what main.ts adds around the server (the outbox relay). */
  readonly database: ServiceDatabase<PrismaClient>;
}

export interface ComposeOptions {
  readonly signingKeyRefreshMs?: number;
}

/**
 * Builds the service from its configuration: database, signing keys (the first one is created
 * here if none exists, so a ready replica can always sign), use cases and RPC handlers.
 */
export async function composeMerchantService(config: Config, logger: Logger, opts: ComposeOptions = {}): Promise<MerchantServiceParts> {
  const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
  const db = database.client;
  try {
    const signingKeys = new SigningKeyRing({
      keys: new SigningKeyRepository(db),
      encryption: new KeyEncryption(config.SIGNING_KEY_ENCRYPTION_KEY, config.SIGNING_KEY_DECRYPTION_KEYS),
      signer: es256Signer,
      tokenTtlSeconds: config.TOKEN_TTL_SECONDS,
      refreshMs: opts.signingKeyRefreshMs ?? SIGNING_KEY_REFRESH_MS,
      logger,
    });
    const kid = await signingKeys.ensureCurrent();
    logger.info({ kid, issuer: config.TOKEN_ISSUER, audience: config.TOKEN_AUDIENCE }, "token issuer ready");

    const merchants = new Merchants(new MerchantRepository(db));
    const clientRepository = new ClientRepository(db);
    const driverClientRepository = new DriverClientRepository(db);
    const issueAccessToken = new IssueAccessToken({
      clients: clientRepository,
      drivers: driverClientRepository,
      keys: signingKeys,
      secrets: scryptSecrets,
      signer: es256Signer,
      policy: { issuer: config.TOKEN_ISSUER, audience: config.TOKEN_AUDIENCE, driverAudience: config.DRIVER_TOKEN_AUDIENCE, ttlSeconds: config.TOKEN_TTL_SECONDS, environment: config.TAWSIL_ENVIRONMENT },
    });
    const rateCardRepository = new RateCardRepository(db);
    const placeRepository = new PlaceRepository(db);
    const rateCards = new RateCards({ rateCards: rateCardRepository, merchants });
    const places = new Places({ places: placeRepository, merchants });
    const contexts = new MerchantContexts({ merchants, rateCards: rateCardRepository, places: placeRepository });
    const admin = {
      merchants,
      clients: new Clients({ clients: clientRepository, merchants, secrets: scryptSecrets, credentials: randomCredentials, environment: config.TAWSIL_ENVIRONMENT, logger }),
      driverClients: new DriverClients({ clients: driverClientRepository, secrets: scryptSecrets, credentials: randomCredentials, environment: config.TAWSIL_ENVIRONMENT, logger }),
      places,
      rateCards,
      signingKeys,
    };
    return {
      routes: (router) => void router.service(MerchantService, merchantService({ issueAccessToken, signingKeys, merchants, rateCards, places, contexts })),
      // Apart from the service port: whoever may call merchant (the gateway, peers) must not be
      // able to mint client secrets or change a merchant's status.
      admin: { routes: (router) => void router.service(MerchantAdminService, merchantAdminService(admin)), serviceNames: ADMIN_SERVICE_NAMES },
      callers: processIdentity("merchant", config, logger, CALLERS).callers,
      checks: [database.readiness],
      closers: [database],
      database,
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

export type RunningMerchantService = InProcessService;

/** The service in-process on HOST:PORT (port 0 picks a free one), without signal handling: for tests. */
export async function startMerchantService(config: Config, logger: Logger, opts: ComposeOptions = {}): Promise<RunningMerchantService> {
  const parts = await composeMerchantService(config, logger, opts);
  return startInProcess({ name: "merchant", config, logger, serviceNames: SERVICE_NAMES, routes: parts.routes, admin: parts.admin, callers: parts.callers, checks: parts.checks, closers: parts.closers });
}

/** The whole process as main.ts runs it: the service, its broker and the outbox relay of merchant events (status, rate cards, places keep other services' caches fresh). */
export async function merchantProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const parts = await composeMerchantService(config, logger);
  const broker = connectKafka({ clientId: "merchant", logger, ...kafkaConnection(config) });
  const metrics = createMetrics("merchant");
  // Its lag on the service's /metrics (outbox_oldest_unsent_age_seconds, the OutboxLag alert).
  const relay = await startOutboxRelay({ kafka: broker.kafka, logger, runInTransaction: parts.database.sql.runner(RELAY_TRANSACTION), databaseUrl: config.DATABASE_URL, registry: metrics.registry });
  const retention = startRetention(config, { policies: [outboxRetention(config.OUTBOX_RETENTION_DAYS)], logger, registry: metrics.registry });
  return { name: "merchant", config, logger, metrics, serviceNames: SERVICE_NAMES, routes: parts.routes, admin: parts.admin, callers: parts.callers, checks: parts.checks, closers: [retention, relay, ...parts.closers] };
}
