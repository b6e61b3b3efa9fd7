/**
 * `make dev`: provisions PostgreSQL and Kafka, creates the databases and topics, applies the
 * migrations, starts the six services and the gateway, waits until every one is ready and prints
 * where everything runs. Ctrl-C (or `make down`) stops everything this started.
 *
 * `DevStack` is that sequence as a module, so `make bench` starts the very same mesh (in its own
 * state folder, databases and ports) instead of a copy of these steps.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureKafka, ensureTopics, type KafkaHandle } from "./infra/kafka";
import { ensurePostgres, type PostgresHandle } from "./infra/postgres";
import { type Mesh, SERVICES, SERVICES_WITH_DATABASE, type DatabaseServiceName, startMesh, TOPICS } from "./mesh";
import { dropDatabase } from "../packages/db/src/index";
import { migrateAll, type MigratedDatabase } from "./migrate-all";
import { seedDevMerchants } from "./seed-dev";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface DevStackOptions {
  /** Secrets, credentials and logs live here (`.dev` for `make dev`). */
  readonly stateDir: string;
  /** Database names are `<prefix><service>`; a second checkout on the same server sets its own prefix. */
  readonly dbPrefix: string;
  readonly gatewayPort: number;
  /** Ports of the services, in SERVICES order. */
  readonly servicePorts: readonly number[];
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
  readonly log: (line: string) => void;
}

/** One `make dev`: infrastructure, migrated databases, the seven processes and the seeded sandbox. */
export class DevStack {
  postgres: PostgresHandle | undefined;
  kafka: KafkaHandle | undefined;
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
    this.kafka = await ensureKafka({
      log: say,
      ...(opts.kafkaPort ? { port: opts.kafkaPort } : {}),
      ...(opts.kafkaControllerPort ? { controllerPort: opts.kafkaControllerPort } : {}),
    });
    await ensureTopics(this.kafka.brokers, TOPICS);
    say(`Kafka topics ready: ${TOPICS.map((t) => t.topic).join(", ")}`);

    const adminUrl = this.postgres.adminUrl;
    if (opts.freshDatabases || !existsSync(this.#secretsFile)) {
      // The local databases hold data sealed with the secrets of secrets.env (the merchant's
      // signing keys, for one). Without that file, what they hold cannot be opened: start empty.
      if (!opts.freshDatabases) say(`no ${path.relative(ROOT, this.#secretsFile)} in this checkout: new local secrets, so the local databases start empty`);
      await Promise.all(SERVICES_WITH_DATABASE.map((service) => dropDatabase(adminUrl, `${opts.dbPrefix}${service}`)));
      this.secret("SIGNING_KEY_ENCRYPTION_KEY");
    }
    const databases = await migrateAll(adminUrl, { dbPrefix: opts.dbPrefix });
    this.databases = databases;
    for (const service of SERVICES_WITH_DATABASE) {
      const db = databases[service];
      say(`database ${db.name}: ${db.applied.length ? `applied ${db.applied.join(", ")}` : "up to date"}`);
    }

    say("starting the services and the gateway...");
    this.mesh = await startMesh({
      databaseUrls: Object.fromEntries(SERVICES_WITH_DATABASE.map((s) => [s, databases[s].url])) as Record<DatabaseServiceName, string>,
      kafkaBrokers: this.kafka.brokers,
      gatewayPort: opts.gatewayPort,
      servicePorts: opts.servicePorts,
      logDir: this.logDir,
      log: say,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.readyTimeoutMs ? { readyTimeoutMs: opts.readyTimeoutMs } : {}),
      serviceEnv: {
        merchant: { SIGNING_KEY_ENCRYPTION_KEY: this.secret("SIGNING_KEY_ENCRYPTION_KEY") },
        shipment: { TRACKING_LINK_SECRET: this.secret("TRACKING_LINK_SECRET"), CURSOR_SECRET: this.secret("CURSOR_SECRET") },
        // Local receivers (http, loopback) are allowed here only; production refuses them.
        webhook: { WEBHOOK_SECRET_ENCRYPTION_KEY: this.secret("WEBHOOK_SECRET_ENCRYPTION_KEY"), WEBHOOK_ALLOW_INSECURE_URLS: "true" },
      },
    });

    await seedDevMerchants({
      merchantUrl: this.mesh.processes.find((p) => p.name === "merchant")!.url,
      gatewayBaseUrl: this.gatewayBaseUrl,
      credentialsFile: this.credentialsFile,
      log: say,
    });
  }

  /** Stops whatever start() got as far as starting, mesh first; once, however often it is called. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      await this.mesh?.stop();
      await this.kafka?.stop();
      await this.postgres?.stop();
    })();
    return this.#stopped;
  }

  /**
   * A local secret kept in secrets.env (git-ignored) so that what it encrypts, such as the token
   * signing keys in the merchant database, stays readable across restarts.
   */
  secret(name: string): string {
    const file = this.#secretsFile;
    const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n") : [];
    const found = lines.find((line) => line.startsWith(`${name}=`));
    if (found) return found.slice(name.length + 1);
    const value = randomBytes(32).toString("base64");
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
  const stack = new DevStack({
    stateDir: devDir,
    dbPrefix: process.env.DEV_DB_PREFIX ?? "tawsil_",
    gatewayPort: Number(process.env.GATEWAY_PORT ?? 8080),
    servicePorts: SERVICES.map((_, i) => firstServicePort + i),
    ...(process.env.KAFKA_PORT ? { kafkaPort: Number(process.env.KAFKA_PORT) } : {}),
    ...(process.env.KAFKA_CONTROLLER_PORT ? { kafkaControllerPort: Number(process.env.KAFKA_CONTROLLER_PORT) } : {}),
    ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}),
    log: say,
  });

  let stopping = false;
  const shutdown = async (code: number): Promise<never> => {
    if (stopping) process.exit(code);
    stopping = true;
    say("stopping...");
    await stack.stop();
    rmSync(pidFile, { force: true });
    say("stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  try {
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8"));
      if (isAlive(pid)) throw new Error(`make dev is already running (pid ${pid}); stop it with make down`);
    }
    mkdirSync(devDir, { recursive: true });
    writeFileSync(pidFile, String(process.pid));
    await stack.start();
  } catch (err) {
    console.error(`[dev] failed: ${err instanceof Error ? err.message : String(err)}`);
    return void shutdown(1);
  }
  const [mesh, postgres, kafka] = [stack.mesh!, stack.postgres!, stack.kafka!];
  for (const p of mesh.processes) p.child.once("exit", (code) => !stopping && (say(`${p.name} exited (${code}); stopping`), void shutdown(1)));
  const ready = await fetch(`${mesh.gatewayUrl}/readyz`).then(
    (res) => res.text(),
    (err: unknown) => `unanswered (${err instanceof Error ? err.message : String(err)})`,
  );
  console.log(`
Tawsil is running (sandbox) — ready in ${((Date.now() - t0) / 1000).toFixed(1)} s
  gateway      ${stack.gatewayBaseUrl}      (/readyz, /healthz, /metrics)
${mesh.processes
  .filter((p) => p.name !== "gateway")
  .map((p) => `  ${p.name.padEnd(12)} ${p.url}   (Connect + gRPC, /readyz)`)
  .join("\n")}
  PostgreSQL   ${new URL(postgres.adminUrl).host}   databases ${stack.opts.dbPrefix}<service>
  Kafka        ${kafka.brokers.join(",")}
  logs         ${path.relative(ROOT, stack.logDir)}/<name>.log
  credentials  ${path.relative(ROOT, stack.credentialsFile)} (TAWSIL_BASE_URL, TAWSIL_CLIENT_ID, ...)
  /readyz      ${ready}

Ctrl-C or \`make down\` stops everything.`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) void main();
