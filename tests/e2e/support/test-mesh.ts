/**
 * The mesh as `make dev` runs it (seven processes and the sandbox fleet, real PostgreSQL and Kafka, seeded sandbox
 * merchants), on free ports and throwaway databases, for black-box tests through the gateway.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropDatabase } from "@tawsil/db";
import pg from "pg";
import { identityFrom } from "@tawsil/rpc";
import { TawsilClient } from "@tawsil/sdk";
import { expect, inject } from "vitest";
import { artefactDirFor, freePort, recordErrorAnswersFrom, validateResponsesFrom, watchProcessLogs } from "@tawsil/testing";
import { readOpenApiDocument } from "../../../gateway/src/openapi/document";
import { ensureTopics } from "../../../packages/testing/src/infra/kafka";
import { createBucket, localStorageEnv } from "../../../packages/testing/src/infra/s3";
import { CITY_STAFFING_TOPIC, type DatabaseServiceName, SERVICES, SERVICES_WITH_DATABASE, TOPICS, type ServiceName } from "@tawsil/topology";
import { freeSidePorts, type Mesh, startMesh } from "@tawsil/testing/mesh";
import { migrateAll } from "../../../packages/testing/src/migrate-all";
import { seedDevMerchants } from "../../../packages/testing/src/seed-dev";

export interface TestMesh {
  readonly mesh: Mesh;
  /** Each service's database, for what a test sets up or reads behind the services' backs. */
  readonly databaseUrls: Readonly<Record<DatabaseServiceName, string>>;
  readonly gatewayUrl: string;
  /** The seeded credentials, as `make dev` writes them to .dev/credentials.env. */
  readonly credentials: Record<string, string>;
  /** Each process's log, kept after the run: `.artefacts/<suite>/<test>/<process>.log`. */
  readonly logDir: string;
  /** The mesh's own bucket on the run's S3 server (media bytes). */
  readonly s3: { readonly endpoint: string; readonly bucket: string };
  /** An access token for a client, through POST /oauth/token (by the SDK). */
  tokenFor(clientId: string, clientSecret: string): Promise<string>;
  /**
   * The SDK as a merchant uses it, for a client, through the fetch that validates every response
   * against the OpenAPI document, and with retries off: a test must see every failure, not the
   * SDK's recovery from it.
   */
  sdkFor(clientId: string, clientSecret: string): TawsilClient;
  close(): Promise<void>;
}

/**
 * The fleet of a file that follows sandbox deliveries to the end: none fails, and its drivers drive
 * at five times the sandbox's 600 km/h, so the seeded pickup to the usual destination (9 km) takes
 * about 11 s, not a minute. Nothing these files check depends on the pace (make dev and the
 * first-hour test keep the sandbox's own), and waiting for it took most of their time.
 */
export const BRISK_DELIVERIES: Readonly<Record<string, string>> = { FLEET_FAILURE_RATE: "0", FLEET_SPEED_KMH: "3000" };

export interface TestMeshOptions {
  readonly adminUrl: string;
  readonly brokers: readonly string[];
  readonly serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Settings for every process, the gateway included (its rate limits, say). */
  readonly env?: Record<string, string>;
  /** Settings of the gateway alone, given each service's port (the fault suite puts a proxy in front of one). */
  readonly gatewayEnv?: (servicePorts: Readonly<Record<ServiceName, number>>) => Record<string, string>;
  /** Starts the sandbox fleet process (services/sandbox-fleet) after the others; default on. Off: the file's drivers are its own. */
  readonly fleet?: boolean;
  /** Settings of the fleet alone (FLEET_FAILURE_RATE, say); it staffs Riyadh only unless FLEET_CITIES says otherwise. */
  readonly fleetEnv?: Record<string, string>;
  /** Instances of the gateway and of each service (startMesh's `replicas`; the soak runs two). */
  readonly replicas?: number;
  /** How long each process may take to answer /readyz (startMesh's default otherwise). */
  readonly readyTimeoutMs?: number;
  /** Runs on the migrated databases before any service starts (data services load at start). */
  readonly beforeStart?: (databaseUrls: Readonly<Record<DatabaseServiceName, string>>) => Promise<void>;
}

export async function startTestMesh(opts: TestMeshOptions): Promise<TestMesh> {
  const prefix = `tawsil_e2e_${randomUUID().slice(0, 8)}_`;
  const credentialsFile = path.join(os.tmpdir(), `${prefix}credentials.env`);
  // Kept after the run (.artefacts/<suite>/<test>/<process>.log); a failure prints what they say.
  const logDir = artefactDirFor(expect.getState().testPath);
  watchProcessLogs(logDir);
  await ensureTopics([...opts.brokers], TOPICS);
  const databases = await migrateAll(opts.adminUrl, { dbPrefix: prefix });
  const databaseUrls = Object.fromEntries(SERVICES_WITH_DATABASE.map((s) => [s, databases[s].url])) as Record<DatabaseServiceName, string>;
  await opts.beforeStart?.(databaseUrls);
  // A bucket per mesh: one mesh's orphan sweep must never see another's objects.
  const runS3 = inject("s3");
  if (!runS3) throw new Error("this run started no S3 server");
  const s3 = { endpoint: runS3.endpoint, bucket: `e2e-${prefix.slice(11, 19)}` };
  await createBucket(s3.endpoint, s3.bucket);
  const servicePorts = await Promise.all(SERVICES.map(() => freePort()));
  const mesh = await startMesh({
    databaseUrls,
    kafkaBrokers: opts.brokers,
    gatewayPort: await freePort(),
    servicePorts,
    sidePorts: await freeSidePorts(freePort),
    logDir,
    fleet: opts.fleet ?? true,
    ...(opts.replicas ? { replicas: opts.replicas } : {}),
    ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
    // Riyadh only, where every file's shipments are: each driver of the four other cities was a
    // registration, a hashed secret and a token before the mesh was ready (54 drivers, 14 here).
    fleetEnv: { FLEET_CITIES: "RUH", ...opts.fleetEnv },
    env: { LOG_LEVEL: "warn", ...opts.env },
    gatewayEnv: {
      MEDIA_DOWNLOAD_SECRET: randomBytes(32).toString("base64"),
      ...opts.gatewayEnv?.(Object.fromEntries(SERVICES.map((s, i) => [s, servicePorts[i]!])) as Record<ServiceName, number>),
    },
    serviceEnv: {
      ...opts.serviceEnv,
      merchant: { SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"), ...opts.serviceEnv?.merchant },
      shipment: {
        TRACKING_LINK_SECRET: randomBytes(32).toString("base64"),
        CURSOR_SECRET: randomBytes(32).toString("base64"),
        ...localStorageEnv(s3.endpoint, s3.bucket),
        ...opts.serviceEnv?.shipment,
      },
      webhook: { WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"), WEBHOOK_ALLOW_INSECURE_URLS: "true", ...opts.serviceEnv?.webhook },
    },
  });
  await staffingSettled(databaseUrls.dispatch, mesh.processes.find((p) => p.name === "pricing")!.url);
  // Every response of the gateway, seeding included, must be one the OpenAPI document describes.
  validateResponsesFrom(mesh.gatewayUrl, readOpenApiDocument());
  recordErrorAnswersFrom(mesh.gatewayUrl);
  const merchant = mesh.processes.find((p) => p.name === "merchant")!;
  const shipmentAdminUrl = mesh.processes.find((p) => p.name === "shipment")!.adminUrl!;
  await seedDevMerchants({ merchantUrl: merchant.url, merchantAdminUrl: merchant.adminUrl!, shipmentAdminUrl, otherAdminUrls: Object.fromEntries(mesh.processes.filter((p) => p.adminUrl && p.name !== "merchant" && p.name !== "shipment").map((p) => [p.name, p.adminUrl!])), gatewayBaseUrl: mesh.gatewayUrl, credentialsFile, log: () => {}, identity: identityFrom(mesh.identityKeys, "gateway") });
  const credentials = Object.fromEntries(
    readFileSync(credentialsFile, "utf8")
      .split("\n")
      .filter((line) => /^[A-Z0-9_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  // globalThis.fetch is the validating fetch from here on.
  const validatingFetch = globalThis.fetch;
  const sdkFor = (clientId: string, clientSecret: string) =>
    new TawsilClient({ baseUrl: mesh.gatewayUrl, clientId, clientSecret, fetch: validatingFetch, retry: { maxAttempts: 1 } });
  return {
    mesh,
    databaseUrls,
    gatewayUrl: mesh.gatewayUrl,
    credentials,
    logDir,
    s3,
    tokenFor: (clientId, clientSecret) => sdkFor(clientId, clientSecret).accessToken(),
    sdkFor,
    async close() {
      rmSync(credentialsFile, { force: true });
      await mesh.stop();
      await Promise.all(SERVICES_WITH_DATABASE.map((s) => dropDatabase(opts.adminUrl, `${prefix}${s}`)));
    },
  };
}

/**
 * Ready processes are not yet a consistent mesh: dispatch is ready once it has recorded each
 * city's staffing in its outbox, and pricing once it has read the staffing topic to its end, which
 * may be before the relay published this dispatch's records. The lane's broker still holds the
 * staffing the previous mesh on it published (a compacted topic keyed by city), so until then
 * pricing answers from another mesh's drivers. Settled: nothing of the topic left unsent in
 * dispatch's outbox, and pricing ready again (its readiness reads the topic's end offsets anew).
 */
async function staffingSettled(dispatchDatabaseUrl: string, pricingUrl: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  const db = new pg.Client({ connectionString: dispatchDatabaseUrl });
  await db.connect();
  try {
    const unsent = async () =>
      (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_event WHERE topic = $1 AND sent_at IS NULL`, [CITY_STAFFING_TOPIC])).rows[0]!.n;
    while ((await unsent()) > 0) {
      if (Date.now() > deadline) throw new Error("dispatch's city staffing was not published within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await db.end();
  }
  while ((await fetch(`${pricingUrl}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined))?.status !== 200) {
    if (Date.now() > deadline) throw new Error("pricing did not read dispatch's city staffing within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
