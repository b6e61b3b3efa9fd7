import type { ConnectRouter } from "@connectrpc/connect";
import { openDatabase, type ServiceDatabase } from "@tawsil/db";
import type { Logger } from "@tawsil/logging";
import { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { startInProcess, type Closer, type InProcessService, type ReadinessCheck } from "@tawsil/rpc";
import { CatalogueCache } from "./app/catalogue-cache";
import { CheckEligibility } from "./app/check-eligibility";
import type { Config } from "./config";
import { PrismaClient } from "./infra/prisma/generated/client";
import { CatalogueRepository } from "./infra/repositories/catalogue";
import { dispatchService } from "./rpc/dispatch-service";

/** Fully-qualified names the gRPC health protocol answers for. */
export const SERVICE_NAMES = [DispatchService.typeName] as const;

export interface DispatchServiceParts {
  readonly routes: (router: ConnectRouter) => void;
  readonly checks: readonly ReadinessCheck[];
  /** In shutdown order, after the server has drained. */
  readonly closers: readonly Closer[];
  /** The service's database, for what main.ts adds around the server (the outbox relay). */
  readonly database: ServiceDatabase<PrismaClient>;
}

/**
 * Builds the service from its configuration: database, the carrier catalogue (loaded here, so a
 * replica that cannot read it fails to start rather than answering "not eligible" to everyone),
 * use cases and RPC handlers. Kafka is main.ts's business: nothing here needs the broker.
 */
export async function composeDispatchService(config: Config, logger: Logger): Promise<DispatchServiceParts> {
  const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
  const repository = new CatalogueRepository(database.client);
  const catalogue = new CatalogueCache({ load: () => repository.load(), refreshMs: config.CATALOGUE_REFRESH_MS, logger });
  try {
    await catalogue.start();
  } catch (error) {
    await database.close();
    throw error;
  }
  const checkEligibility = new CheckEligibility(catalogue);
  return {
    routes: (router) => {
      router.service(DispatchService, dispatchService({ checkEligibility }));
    },
    checks: [database.readiness],
    closers: [catalogue, database],
    database,
  };
}

export type RunningDispatchService = InProcessService;

/** The service in-process on HOST:PORT (port 0 picks a free one), without Kafka or signal handling: for tests. */
export async function startDispatchService(config: Config, logger: Logger): Promise<RunningDispatchService> {
  const parts = await composeDispatchService(config, logger);
  return startInProcess({ name: "dispatch", config, logger, serviceNames: SERVICE_NAMES, ...parts });
}
