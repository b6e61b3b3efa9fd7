/**
 * `make dev`: provisions PostgreSQL and Kafka, creates the databases and topics, applies the
 * migrations, starts the six services and the gateway, waits until every one is ready and prints
 * where everything runs. Ctrl-C (or `make down`) stops everything this started.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureKafka, ensureTopics, type KafkaHandle } from "./infra/kafka";
import { ensurePostgres, type PostgresHandle } from "./infra/postgres";
import { type Mesh, SERVICES, startMesh, TOPICS } from "./mesh";
import { dropDatabase } from "../packages/db/src/index";
import { migrateAll } from "./migrate-all";
import { seedDevMerchants } from "./seed-dev";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEV_DIR = path.join(ROOT, ".dev");
const PID_FILE = path.join(DEV_DIR, "dev.pid");
const SECRETS_FILE = path.join(DEV_DIR, "secrets.env");
const CREDENTIALS_FILE = path.join(DEV_DIR, "credentials.env");
const GATEWAY_PORT = Number(process.env.GATEWAY_PORT ?? 8080);
const FIRST_SERVICE_PORT = Number(process.env.FIRST_SERVICE_PORT ?? 7001);
/** Database names are `<prefix><service>`; a second checkout on the same server sets its own prefix. */
const DB_PREFIX = process.env.DEV_DB_PREFIX ?? "tawsil_";

const t0 = Date.now();
const say = (line: string) => console.log(`[dev ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${line}`);

let postgres: PostgresHandle | undefined;
let kafka: KafkaHandle | undefined;
let mesh: Mesh | undefined;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  say("stopping...");
  await mesh?.stop();
  await kafka?.stop();
  await postgres?.stop();
  rmSync(PID_FILE, { force: true });
  say("stopped");
  process.exit(code);
}

async function main(): Promise<void> {
  if (existsSync(PID_FILE)) {
    const pid = Number(readFileSync(PID_FILE, "utf8"));
    if (isAlive(pid)) throw new Error(`make dev is already running (pid ${pid}); stop it with make down`);
  }
  mkdirSync(DEV_DIR, { recursive: true });
  writeFileSync(PID_FILE, String(process.pid));

  postgres = await ensurePostgres({ log: say, ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}) });
  kafka = await ensureKafka({
    log: say,
    ...(process.env.KAFKA_PORT ? { port: Number(process.env.KAFKA_PORT) } : {}),
    ...(process.env.KAFKA_CONTROLLER_PORT ? { controllerPort: Number(process.env.KAFKA_CONTROLLER_PORT) } : {}),
  });
  await ensureTopics(kafka.brokers, TOPICS);
  say(`Kafka topics ready: ${TOPICS.map((t) => t.topic).join(", ")}`);

  if (!existsSync(SECRETS_FILE)) {
    // The local databases hold data sealed with the secrets of .dev/secrets.env (the merchant's
    // signing keys, for one). Without that file, what they hold cannot be opened: start empty.
    say("no .dev/secrets.env in this checkout: new local secrets, so the local databases start empty");
    await Promise.all(SERVICES.map((service) => dropDatabase(postgres!.adminUrl, `${DB_PREFIX}${service}`)));
    devSecret("SIGNING_KEY_ENCRYPTION_KEY");
  }
  const databases = await migrateAll(postgres.adminUrl, { dbPrefix: DB_PREFIX });
  for (const service of SERVICES) {
    const db = databases[service];
    say(`database ${db.name}: ${db.applied.length ? `applied ${db.applied.join(", ")}` : "up to date"}`);
  }

  say("starting the services and the gateway...");
  const logDir = path.join(DEV_DIR, "logs");
  mesh = await startMesh({
    databaseUrls: Object.fromEntries(SERVICES.map((s) => [s, databases[s].url])) as Record<(typeof SERVICES)[number], string>,
    kafkaBrokers: kafka.brokers,
    gatewayPort: GATEWAY_PORT,
    servicePorts: SERVICES.map((_, i) => FIRST_SERVICE_PORT + i),
    logDir,
    log: say,
    serviceEnv: {
      merchant: { SIGNING_KEY_ENCRYPTION_KEY: devSecret("SIGNING_KEY_ENCRYPTION_KEY") },
      // Local receivers (http, loopback) are allowed here only; production refuses them.
      webhook: { WEBHOOK_SECRET_ENCRYPTION_KEY: devSecret("WEBHOOK_SECRET_ENCRYPTION_KEY"), WEBHOOK_ALLOW_INSECURE_URLS: "true" },
      shipment: {
        TRACKING_LINK_SECRET: devSecret("TRACKING_LINK_SECRET"),
        CURSOR_SECRET: devSecret("CURSOR_SECRET"),
      },
    },
  });
  for (const p of mesh.processes) p.child.once("exit", (code) => !stopping && (say(`${p.name} exited (${code}); stopping`), void shutdown(1)));

  await seedDevMerchants({
    merchantUrl: mesh.processes.find((p) => p.name === "merchant")!.url,
    gatewayBaseUrl: `http://localhost:${GATEWAY_PORT}`,
    credentialsFile: CREDENTIALS_FILE,
    log: say,
  });
  const ready = await (await fetch(`${mesh.gatewayUrl}/readyz`)).text();
  console.log(`
Tawsil is running (sandbox) — ready in ${((Date.now() - t0) / 1000).toFixed(1)} s
  gateway      http://localhost:${GATEWAY_PORT}      (/readyz, /healthz, /metrics)
${mesh.processes
  .filter((p) => p.name !== "gateway")
  .map((p) => `  ${p.name.padEnd(12)} ${p.url}   (Connect + gRPC, /readyz)`)
  .join("\n")}
  PostgreSQL   ${new URL(postgres.adminUrl).host}   databases ${DB_PREFIX}<service>
  Kafka        ${kafka.brokers.join(",")}
  logs         ${path.relative(ROOT, logDir)}/<name>.log
  credentials  ${path.relative(ROOT, CREDENTIALS_FILE)} (TAWSIL_BASE_URL, TAWSIL_CLIENT_ID, ...)
  /readyz      ${ready}

Ctrl-C or \`make down\` stops everything.`);
}

/**
 * A local secret kept in .dev/secrets.env (git-ignored) so that what it encrypts, such as the
 * token signing keys in the merchant database, stays readable across restarts.
 */
function devSecret(name: string): string {
  const lines = existsSync(SECRETS_FILE) ? readFileSync(SECRETS_FILE, "utf8").split("\n") : [];
  const found = lines.find((line) => line.startsWith(`${name}=`));
  if (found) return found.slice(name.length + 1);
  const value = randomBytes(32).toString("base64");
  writeFileSync(SECRETS_FILE, [...lines.filter(Boolean), `${name}=${value}`, ""].join("\n"), { mode: 0o600 });
  return value;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
main().catch((err: unknown) => {
  console.error(`[dev] failed: ${err instanceof Error ? err.message : String(err)}`);
  void shutdown(1);
});
