// Operator and Kubernetes entry point. Urls come from the environment, never the command line,
// where `ps`, the pod spec and shell history would show the password.
//   MIGRATION_DATABASE_URL=... migrate-cli <migrationsDir>          applies pending migrations
//     (the migration Job, with the schema-owning role); exits 0 when the database is current.
//   DATABASE_URL=... migrate-cli --wait <migrationsDir>             waits, reading only, until every
//     committed migration is applied (a Deployment's initContainer, with the runtime role that
//     cannot change the schema); exits 1 after MIGRATE_WAIT_SECONDS (default 600).
// Either url connects with DATABASE_SSL_MODE and DATABASE_SSL_ROOT_CERT, as the services do.
// Exits 1 with the reason on failure, 2 with usage on wrong arguments.
import { setTimeout as sleep } from "node:timers/promises";
import { databaseTlsEnv, databaseUrlWithTls, loadConfig } from "@tawsil/config";
import { migrate } from "./migrate";
import { pendingMigrations } from "./pending-migrations";

const USAGE =
  "usage: MIGRATION_DATABASE_URL=<url> migrate-cli <migrationsDir>\n" +
  "       DATABASE_URL=<url> migrate-cli --wait <migrationsDir>\n";
const POLL_MS = 2_000;

async function main(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const wait = args[0] === "--wait";
  const [migrationsDir, ...rest] = wait ? args.slice(1) : args;
  const setting = wait ? "DATABASE_URL" : "MIGRATION_DATABASE_URL";
  const url = env[setting];
  if (!url || !migrationsDir || rest.length > 0 || migrationsDir.startsWith("-")) {
    process.stderr.write(USAGE);
    return 2;
  }
  const databaseUrl = databaseUrlWithTls(url, loadConfig(databaseTlsEnv, env), setting);
  if (wait) return waitUntilCurrent(databaseUrl, migrationsDir, Number(env.MIGRATE_WAIT_SECONDS ?? 600) * 1000);
  const { applied } = await migrate(databaseUrl, migrationsDir, {
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(
    applied.length === 0 ? "No pending migrations.\n" : `Applied ${applied.length} migration(s).\n`,
  );
  return 0;
}

async function waitUntilCurrent(databaseUrl: string, migrationsDir: string, limitMs: number): Promise<number> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const pending = await pendingMigrations(databaseUrl, migrationsDir);
    if (pending.length === 0) {
      process.stdout.write("Schema is current.\n");
      return 0;
    }
    if (Date.now() >= deadline) {
      process.stderr.write(`Still pending after ${limitMs / 1000} s: ${pending.join(", ")}\n`);
      return 1;
    }
    await sleep(POLL_MS);
  }
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // The message names the migration at fault; the url is never printed (it may hold a password).
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
