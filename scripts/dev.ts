/**
 * `make dev`: provisions PostgreSQL and Kafka, creates the databases and topics, applies the
 * migrations, starts the six services and the gateway, waits until every one is ready and prints
 * where everything runs. Ctrl-C (or `make down`) stops everything this started.
 *
 * `DevStack` is that sequence as a module, so `make bench` starts the very same mesh (in its own
 * state folder, databases and ports) instead of a copy of these steps.
 *
 * Several checkouts on one machine never touch each other's state: the databases carry the
 * checkout's namespace (scripts/checkout/namespace.ts), every `make dev` runs a Kafka broker of
 * its own, and the ports are claimed before anything starts (scripts/checkout/ports.ts).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureKafka, ensureTopics, type KafkaHandle } from "../packages/testing/src/infra/kafka";
import { localStorageEnv, startS3, type S3Handle } from "../packages/testing/src/infra/s3";
import { freePort } from "../packages/testing/src/free-port";
import { ensurePostgres, type PostgresHandle } from "../packages/testing/src/infra/postgres";
import { IDENTITIES, SERVICES, SERVICES_WITH_DATABASE, type DatabaseServiceName, TOPICS } from "../packages/topology/src";
import { type Mesh, type SidePorts, sidePortsFrom, startMesh } from "../packages/testing/src/mesh";
import { generateIdentityKeys, identityFrom, identityKeysOf, type IdentityKeys } from "../packages/rpc/src/identity-keys";
import { dropDatabase } from "../packages/db/src/index";
import { checkoutNamespace, databaseNames, devDatabasePrefix } from "./checkout/namespace";
import { readyBanner } from "./dev-banner";
import { claimPorts, PortsTaken } from "./checkout/ports";
import { existingDatabases, markDatabases, mismatchedSecrets } from "./checkout/sealed-data";
import { migrateAll, type MigratedDatabase } from "../packages/testing/src/migrate-all";
import { seedDevMerchants } from "../packages/testing/src/seed-dev";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The local secrets (.dev/secrets.env); the first two seal data stored in the databases. */
const SECRET_NAMES = ["SIGNING_KEY_ENCRYPTION_KEY", "WEBHOOK_SECRET_ENCRYPTION_KEY", "TRACKING_LINK_SECRET", "CURSOR_SECRET"] as const;
/** The local bucket of media bytes, on this checkout's own S3 server. */
const MEDIA_BUCKET = "tawsil-media";

/** The checkout's local data cannot be used as it is; the message says what happened and what to run. */
export class LocalStateError extends Error {}

export interface DevStackOptions {
  /** Secrets, credentials and logs live here (`.dev` for `make dev`). */
  readonly stateDir: string;
  /** Database names are `<prefix><service>`; the prefix carries the checkout's namespace. */
  readonly dbPrefix: string;
  readonly gatewayPort: number;
  /** Ports of the services, in SERVICES order. */
  readonly servicePorts: readonly number[];
  /** Admin listeners and metrics ports. */
  readonly sidePorts: SidePorts;
  readonly kafkaPort?: number;
  readonly kafkaControllerPort?: number;
  /** PostgreSQL admin url; else the local server, else an embedded one. */
  readonly adminUrl?: string;
  /** Settings for every process, on top of the defaults. */
  readonly env?: Record<string, string>;
  /** Drop this stack's databases before migrating (the bench starts from nothing every run). */
  readonly freshDatabases?: boolean;
  /** How long each process may take to answer /readyz (startMesh's default otherwise). */
  readonly readyTimeoutMs?: number;
  /** Instances of the gateway and of each service (startMesh's `replicas`; `make soak` runs two). */
  readonly replicas?: number;
  readonly log: (line: string) => void;
}

/** One `make dev`: infrastructure, migrated databases, the seven processes and the seeded sandbox. */
export class DevStack {
  postgres: PostgresHandle | undefined;
  kafka: KafkaHandle | undefined;
  s3: S3Handle | undefined;
  mesh: Mesh | undefined;
  databases: Record<DatabaseServiceName, MigratedDatabase> | undefined;
  readonly credentialsFile: string;
  readonly logDir: string;
  readonly gatewayBaseUrl: string;
  readonly #secretsFile: string;
  #stopped: Promise<void> | undefined;

  constructor(readonly opts: DevStackOptions) {
    this.credentialsFile = path.join(opts.stateDir, "credentials.env");
    this.logDir = path.join(opts.stateDir, "logs");
    this.gatewayBaseUrl = `http://localhost:${opts.gatewayPort}`;
    this.#secretsFile = path.join(opts.stateDir, "secrets.env");
  }

  /** Everything up to a seeded, ready mesh. On failure, call stop() for what did start. */
  async start(): Promise<void> {
    const { opts } = this;
    const say = opts.log;
    mkdirSync(opts.stateDir, { recursive: true });
    this.postgres = await ensurePostgres({ log: say, ...(opts.adminUrl ? { adminUrl: opts.adminUrl } : {}) });
    const adminUrl = this.postgres.adminUrl;
    const names = Object.values(databaseNames(opts.dbPrefix));
    if (opts.freshDatabases) {
      await Promise.all(names.map((name) => dropDatabase(adminUrl, name)));
    } else {
      await this.checkLocalData(adminUrl, names);
    }
    const secrets = Object.fromEntries(SECRET_NAMES.map((name) => [name, this.secret(name)]));

    // Kafka, the S3 server and the migrations need nothing of one another: they start together
    // (one after another, the two JVMs' start-ups were a third of a warm start). Each is kept as it
    // comes up, so that stop() ends what did start when another fails.
    const [kafka, s3, migrated] = await Promise.allSettled([
      ensureKafka({
        log: say,
        // Never another checkout's (or the tests') broker: the topics and consumer groups are the same.
        reuse: false,
        ...(opts.kafkaPort ? { port: opts.kafkaPort } : {}),
        ...(opts.kafkaControllerPort ? { controllerPort: opts.kafkaControllerPort } : {}),
      }).then(async (started) => {
        this.kafka = started;
        await ensureTopics(started.brokers, TOPICS);
        say(`Kafka topics ready: ${TOPICS.map((t) => t.topic).join(", ")}`);
        return started;
      }),
      // This checkout's own S3 server on free ports, its objects in the state dir beside what the databases say of them.
      (async () => {
        this.s3 = await startS3({ port: await freePort(), httpsPort: await freePort(), bucket: MEDIA_BUCKET, log: say, keepIn: path.join(opts.stateDir, "s3") });
        return this.s3;
      })(),
      migrateAll(adminUrl, { dbPrefix: opts.dbPrefix }),
    ]);
    if (kafka.status === "rejected") throw kafka.reason;
    if (s3.status === "rejected") throw s3.reason;
    if (migrated.status === "rejected") throw migrated.reason;
    const broker = kafka.value;
    const media = s3.value;
    const databases = migrated.value;
    await markDatabases(adminUrl, names, secrets);
    this.databases = databases;
    for (const service of SERVICES_WITH_DATABASE) {
      const db = databases[service];
      say(`database ${db.name}: ${db.applied.length ? `applied ${db.applied.join(", ")}` : "up to date"}`);
    }

    say("starting the services and the gateway...");
    this.mesh = await startMesh({
      databaseUrls: Object.fromEntries(SERVICES_WITH_DATABASE.map((s) => [s, databases[s].url])) as Record<DatabaseServiceName, string>,
      kafkaBrokers: broker.brokers,
      gatewayPort: opts.gatewayPort,
      servicePorts: opts.servicePorts,
      sidePorts: opts.sidePorts,
      logDir: this.logDir,
      log: say,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
      ...(opts.replicas ? { replicas: opts.replicas } : {}),
      identityKeys: this.identityKeys(),
      // `SANDBOX_FLEET_ENABLED=false make dev`: no fleet process, so the only drivers are yours.
      fleet: (opts.env?.SANDBOX_FLEET_ENABLED ?? process.env.SANDBOX_FLEET_ENABLED) !== "false",
      gatewayEnv: { MEDIA_DOWNLOAD_SECRET: this.secret("MEDIA_DOWNLOAD_SECRET") },
      serviceEnv: {
        merchant: { SIGNING_KEY_ENCRYPTION_KEY: this.secret("SIGNING_KEY_ENCRYPTION_KEY") },
        shipment: { TRACKING_LINK_SECRET: this.secret("TRACKING_LINK_SECRET"), CURSOR_SECRET: this.secret("CURSOR_SECRET"), ...localStorageEnv(media.endpoint, MEDIA_BUCKET) },
        // Local receivers (http, loopback) are allowed here only; production refuses them.
        webhook: { WEBHOOK_SECRET_ENCRYPTION_KEY: this.secret("WEBHOOK_SECRET_ENCRYPTION_KEY"), WEBHOOK_ALLOW_INSECURE_URLS: "true" },
      },
    });

    const merchant = this.mesh.processes.find((p) => p.name === "merchant")!;
    await seedDevMerchants({
      identity: identityFrom(this.mesh.identityKeys, "gateway"),
      merchantUrl: merchant.url,
      merchantAdminUrl: merchant.adminUrl!,
      shipmentAdminUrl: this.mesh.processes.find((p) => p.name === "shipment")!.adminUrl!,
      otherAdminUrls: Object.fromEntries(this.mesh.processes.filter((p) => p.adminUrl && p.name !== "merchant" && p.name !== "shipment").map((p) => [p.name, p.adminUrl!])),
      gatewayBaseUrl: this.gatewayBaseUrl,
      credentialsFile: this.credentialsFile,
      log: say,
    });
  }

  /**
   * Refuses, before anything runs, to start on databases the local secrets cannot open: they exist
   * but secrets.env is gone (deleted .dev/), or they were sealed with other secrets (a restored
   * database). Data is never dropped here: `make dev-reset` does that when asked.
   */
  async checkLocalData(adminUrl: string, names: readonly string[]): Promise<void> {
    const existing = await existingDatabases(adminUrl, names);
    if (existing.length === 0) return;
    const secretsFile = path.relative(ROOT, this.#secretsFile);
    const list = existing.map((db) => db.name).join(", ");
    const advice = `Nothing was started or dropped. Run \`make dev-reset\` to drop this checkout's databases and ${path.relative(ROOT, this.opts.stateDir)}/ and start afresh (or put the right ${secretsFile} back).`;
    if (!existsSync(this.#secretsFile)) {
      throw new LocalStateError(`this checkout's databases exist (${list}), but ${secretsFile} is gone: what they hold (the merchant's signing keys, the webhook secrets) was sealed with the secrets it held and cannot be opened. ${advice}`);
    }
    const secrets = Object.fromEntries(SECRET_NAMES.map((name) => [name, this.secret(name)]));
    const sealedOtherwise = existing.filter((db) => mismatchedSecrets(db.comment, secrets).length > 0);
    if (sealedOtherwise.length > 0) {
      const which = [...new Set(sealedOtherwise.flatMap((db) => mismatchedSecrets(db.comment, secrets)))].join(", ");
      throw new LocalStateError(`this checkout's databases ${sealedOtherwise.map((db) => db.name).join(", ")} were sealed with other secrets than ${secretsFile} holds (differing: ${which}; a database restored from elsewhere, or a replaced ${secretsFile}), so their data cannot be opened. ${advice}`);
    }
  }

  /** Stops whatever start() got as far as starting, mesh first; once, however often it is called. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      await this.mesh?.stop();
      await this.kafka?.stop();
      await this.s3?.stop();
      await this.postgres?.stop();
    })();
    return this.#stopped;
  }

  /**
   * Each identity's Ed25519 private key (SERVICE_IDENTITY_KEY_<NAME> in secrets.env; the public
   * keys are derived from them), kept so that a token signed before a restart of one process stays
   * valid for the others. They seal no data: deleting them only means new keys.
   */
  identityKeys(): IdentityKeys {
    const generate = (name: string) => () => generateIdentityKeys([name])[name]!.privateKey;
    const envName = (name: string) => `SERVICE_IDENTITY_KEY_${name.toUpperCase().replace(/-/g, "_")}`;
    return identityKeysOf(Object.fromEntries(IDENTITIES.map((name) => [name, this.secret(envName(name), generate(name))])));
  }

  /**
   * A local secret kept in secrets.env (git-ignored) so that what it encrypts, such as the token
   * signing keys in the merchant database, stays readable across restarts.
   */
  secret(name: string, generate: () => string = () => randomBytes(32).toString("base64")): string {
    const file = this.#secretsFile;
    const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n") : [];
    const found = lines.find((line) => line.startsWith(`${name}=`));
    if (found) return found.slice(name.length + 1);
    const value = generate();
    writeFileSync(file, [...lines.filter(Boolean), `${name}=${value}`, ""].join("\n"), { mode: 0o600 });
    return value;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const say = (line: string) => console.log(`[dev ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${line}`);
  const devDir = path.join(ROOT, ".dev");
  const pidFile = path.join(devDir, "dev.pid");
  const firstServicePort = Number(process.env.FIRST_SERVICE_PORT ?? 7001);
  const gatewayPort = Number(process.env.GATEWAY_PORT ?? 8080);
  const kafkaPort = Number(process.env.KAFKA_PORT ?? 9092);
  const kafkaControllerPort = Number(process.env.KAFKA_CONTROLLER_PORT ?? 9093);
  let stack: DevStack;
  try {
    stack = new DevStack({
      stateDir: devDir,
      dbPrefix: devDatabasePrefix(ROOT),
      gatewayPort,
      servicePorts: SERVICES.map((_, i) => firstServicePort + i),
      sidePorts: sidePortsFrom(firstServicePort),
      kafkaPort,
      kafkaControllerPort,
      ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}),
      log: say,
    });
  } catch (err) {
    console.error(`[dev] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  let releasePorts = () => {};

  let stopping = false;
  const shutdown = async (code: number): Promise<never> => {
    if (stopping) process.exit(code);
    stopping = true;
    // Nothing to say when start() was refused before it started anything.
    const started = stack.postgres !== undefined;
    if (started) say("stopping...");
    await stack.stop();
    releasePorts();
    rmSync(pidFile, { force: true });
    if (started) say("stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  try {
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8"));
      if (isAlive(pid)) {
        console.error(`[dev] make dev is already running in this checkout (pid ${pid}); stop it with make down`);
        process.exit(1);
      }
    }
    say(`checkout ${ROOT}: namespace ${process.env.DEV_DB_PREFIX ? "(DEV_DB_PREFIX)" : checkoutNamespace(ROOT)}, databases ${stack.opts.dbPrefix}<service>`);
    releasePorts = (
      await claimPorts(
        [
          { what: "gateway", port: gatewayPort, setting: "GATEWAY_PORT" },
          ...SERVICES.map((name, i) => ({ what: `${name} service`, port: stack.opts.servicePorts[i]!, setting: "FIRST_SERVICE_PORT" })),
          ...Object.entries(stack.opts.sidePorts.admin).map(([name, port]) => ({ what: `${name} admin listener`, port, setting: "FIRST_SERVICE_PORT" })),
          ...Object.entries(stack.opts.sidePorts.metrics).map(([name, port]) => ({ what: `${name} metrics`, port, setting: "FIRST_SERVICE_PORT" })),
          { what: "Kafka", port: kafkaPort, setting: "KAFKA_PORT" },
          { what: "Kafka controller", port: kafkaControllerPort, setting: "KAFKA_CONTROLLER_PORT" },
        ],
        ROOT,
      )
    ).release;
    mkdirSync(devDir, { recursive: true });
    writeFileSync(pidFile, String(process.pid));
    await stack.start();
  } catch (err) {
    const known = err instanceof PortsTaken || err instanceof LocalStateError;
    console.error(`[dev] ${known ? "" : "failed: "}${err instanceof Error ? err.message : String(err)}`);
    return void shutdown(1);
  }
  const [mesh, postgres, kafka] = [stack.mesh!, stack.postgres!, stack.kafka!];
  for (const p of mesh.processes) p.child.once("exit", (code) => !stopping && (say(`${p.name} exited (${code}); stopping`), void shutdown(1)));
  const ready = await fetch(`${mesh.gatewayUrl}/readyz`).then(
    (res) => res.text(),
    (err: unknown) => `unanswered (${err instanceof Error ? err.message : String(err)})`,
  );
  console.log(
    readyBanner({
      seconds: (Date.now() - t0) / 1000,
      gatewayBaseUrl: stack.gatewayBaseUrl,
      gatewayMetricsUrl: mesh.processes.find((p) => p.name === "gateway")!.metricsUrl,
      services: mesh.processes.filter((p) => p.name !== "gateway"),
      postgresHost: new URL(postgres.adminUrl).host,
      dbPrefix: stack.opts.dbPrefix,
      kafkaBrokers: kafka.brokers,
      logDir: path.relative(ROOT, stack.logDir),
      credentialsFile: path.relative(ROOT, stack.credentialsFile),
      ready,
    }),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) void main();
