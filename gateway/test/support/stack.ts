/**
 * A gateway with a real merchant service behind it, both in-process, on a fresh database of the
 * real PostgreSQL: one deployment (sandbox or production) as far as authentication goes.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { databaseUrl, dropDatabase, ensureDatabase, migrate, openDatabase } from "@tawsil/db";
import { createLogger, initTracing } from "@tawsil/logging";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { createMetrics, createPeerClient } from "@tawsil/rpc";
import type { FastifyInstance } from "fastify";
import type { Registry } from "prom-client";
import { SignJWT, type JWTHeaderParameters, type JWTPayload } from "jose";
import { importSigningKey, signJwt } from "../../../services/merchant/src/infra/es256";
import { KeyEncryption } from "../../../services/merchant/src/infra/key-encryption";
import { PrismaClient } from "../../../services/merchant/src/infra/prisma/generated/client";
import { SigningKeyRepository } from "../../../services/merchant/src/infra/repositories/signing-keys";
import { readConfig as readMerchantConfig } from "../../../services/merchant/src/config";
import { startMerchantService, type RunningMerchantService } from "../../../services/merchant/src/server";
import { buildGateway } from "../../src/app";
import { readConfig, SERVICES } from "../../src/config";
import { readOpenApiDocument } from "../../src/openapi/document";
import { startRedisServer, validateResponsesFrom, type RedisServer } from "@tawsil/testing";
import { requestToken } from "./token-request";

export { requestToken };

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../services/merchant/prisma/migrations");

export interface Credentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface Stack {
  readonly baseUrl: string;
  /** The merchant service's /metrics: how many token requests reached it (rpc_server_duration_seconds_count). */
  readonly merchantMetricsUrl: string;
  /** The merchant service's RPC address, for services a test starts behind this gateway. */
  readonly merchantUrl: string;
  readonly environment: "sandbox" | "production";
  readonly admin: ReturnType<typeof createPeerClient<typeof MerchantAdminService>>;
  /** An ACTIVE merchant and its clients: all scopes, read-only, and disabled. */
  readonly merchant: { id: string; code: string; full: Credentials; readOnly: Credentials; disabled: Credentials };
  /**
   * Signs arbitrary claims with this deployment's current signing key (for the rejection matrix);
   * `header` replaces the issuer's protected header `{alg, kid, typ}` when given.
   */
  signWithIssuerKey(claims: JWTPayload, header?: (kid: string) => JWTHeaderParameters): Promise<string>;
  /**
   * Another gateway replica in front of the same merchant service, with the first one's settings
   * and `env` over them (a shared RATE_LIMIT_REDIS_URL, say); its base URL. Closed with the stack.
   */
  addReplica(env?: Record<string, string>): Promise<{ baseUrl: string; registry: Registry }>;
  close(): Promise<void>;
}

export async function startStack(opts: {
  adminUrl: string;
  environment: "sandbox" | "production";
  gatewayEnv?: Record<string, string>;
  /** Starts services behind the gateway once the merchant service runs (its RPC address given); returns the gateway's settings that name them. */
  behindGateway?: (merchantUrl: string) => Promise<Record<string, string>>;
}): Promise<Stack> {
  initTracing();
  const logger = createLogger({ service: `stack-${opts.environment}`, level: "silent" });
  const dbName = `tawsil_test_gw_${opts.environment}_${randomUUID().slice(0, 8)}`;
  await ensureDatabase(opts.adminUrl, dbName);
  const url = databaseUrl(opts.adminUrl, dbName);
  await migrate(url, MIGRATIONS);

  const encryptionKey = randomBytes(32).toString("base64");
  const merchantConfig = readMerchantConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: url,
    TAWSIL_ENVIRONMENT: opts.environment,
    // Required by its configuration; the in-process service publishes nothing here (no relay).
    KAFKA_BROKERS: "127.0.0.1:9092",
    SIGNING_KEY_ENCRYPTION_KEY: encryptionKey,
    SHUTDOWN_GRACE_MS: "100",
  });
  let merchantService: RunningMerchantService | undefined;
  let gateway: FastifyInstance | undefined;
  const replicas: FastifyInstance[] = [];
  // Production requires the replicas' shared limits store: a Redis of the stack's own.
  let redis: RedisServer | undefined;
  const keysDb = openDatabase(PrismaClient, { url, maxConnections: 2, logger });
  try {
    merchantService = await startMerchantService(merchantConfig, logger);
    const behind = (await opts.behindGateway?.(merchantService.url)) ?? {};
    if (opts.environment === "production" && !opts.gatewayEnv?.RATE_LIMIT_REDIS_URL) redis = await startRedisServer();
    const gatewayEnv = {
      PORT: "0",
      TAWSIL_ENVIRONMENT: opts.environment,
      PUBLIC_BASE_URL: "https://api.tawsil.test",
      // Required; buildGateway alone starts no revocation feed (main.ts does).
      KAFKA_BROKERS: "127.0.0.1:9092",
      // Every test of a file asks for its tokens from this one address: the per-address limit has its own test.
      TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "10000",
      // Only the merchant service is needed for authentication; the others are never called here.
      ...Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_SERVICE_URL`, s === "merchant" ? merchantService!.url : "http://127.0.0.1:9"])),
      ...(redis ? { RATE_LIMIT_REDIS_URL: redis.url } : {}),
      ...opts.gatewayEnv,
      ...behind,
    };
    const startGateway = async (env: Record<string, string>, registry = createMetrics("gateway").registry) => {
      const app = buildGateway({ config: readConfig({ ...gatewayEnv, ...env }), logger, registry });
      // A scoped operation of the real guard, before the issues that bring scoped routes of their own.
      app.get("/test/needs-write", { onRequest: app.guard("shipments:write") }, async (request) => ({ merchantId: request.principal?.merchantId }));
      await app.listen({ host: "127.0.0.1", port: 0 });
      return app;
    };
    gateway = await startGateway({});
    const baseUrlOf = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const baseUrl = baseUrlOf(gateway);
    // Every response of this gateway must be one the OpenAPI document describes.
    validateResponsesFrom(baseUrl, readOpenApiDocument());

    // The operator's deadline, not a peer's 5 s: each client's secret is hashed with scrypt, and
    // two stacks set up at once on a loaded 2-core machine took longer than 5 s for it.
    const admin = createPeerClient(MerchantAdminService, merchantService.adminUrl!, { timeoutMs: 30_000 });
    const code = `M${randomUUID().slice(0, 6).toUpperCase()}`;
    const { merchant } = await admin.createMerchant({ code, displayName: `${code} Store`, legalName: `${code} Trading LLC` });
    await admin.setMerchantStatus({ merchantCode: code, status: MerchantStatus.ACTIVE });
    const client = async (scopes: string[]) => {
      const created = await admin.createClient({ merchantCode: code, name: `test ${scopes.join(" ")}`, scopes });
      return { clientId: created.client!.clientId, clientSecret: created.clientSecret };
    };
    const full = await client(["shipments:read", "shipments:write", "webhooks:manage"]);
    const readOnly = await client(["shipments:read"]);
    const disabled = await client(["shipments:read"]);
    await admin.setClientEnabled({ clientId: disabled.clientId, enabled: false });

    const running = { merchantService, gateway, redis };
    return {
      baseUrl,
      merchantMetricsUrl: `${merchantService.metricsUrl}/metrics`,
      merchantUrl: merchantService.url,
      environment: opts.environment,
      admin,
      merchant: { id: merchant!.merchantId, code, full, readOnly, disabled },
      async signWithIssuerKey(claims, header) {
        const row = await new SigningKeyRepository(keysDb.client).current();
        if (!row) throw new Error("no current signing key");
        const key = await importSigningKey(row.kid, new KeyEncryption(merchantConfig.SIGNING_KEY_ENCRYPTION_KEY).open(row.privateKeyEncrypted, row.kid));
        return header ? new SignJWT(claims).setProtectedHeader(header(key.kid)).sign(key.privateKey) : signJwt(key, claims);
      },
      async addReplica(env = {}) {
        const { registry } = createMetrics("gateway");
        const replica = await startGateway(env, registry);
        replicas.push(replica);
        validateResponsesFrom(baseUrlOf(replica), readOpenApiDocument());
        return { baseUrl: baseUrlOf(replica), registry };
      },
      async close() {
        for (const replica of replicas) await replica.close();
        await running.gateway.close();
        await running.redis?.stop();
        await running.merchantService.close();
        await keysDb.close();
        await dropDatabase(opts.adminUrl, dbName);
      },
    };
  } catch (error) {
    await gateway?.close();
    await redis?.stop();
    await merchantService?.close();
    await keysDb.close();
    await dropDatabase(opts.adminUrl, dbName);
    throw error;
  }
}

export async function accessToken(baseUrl: string, credentials: Credentials, scope?: string): Promise<string> {
  const res = await requestToken(baseUrl, { grant_type: "client_credentials", ...(scope ? { scope } : {}) }, credentials);
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
