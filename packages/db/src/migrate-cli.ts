// Operator and Kubernetes-Job entry point:
//   tsx packages/db/src/migrate-cli.ts <databaseUrl> <migrationsDir>
// Exits 0 when the database is current (printing what it applied), 1 with the reason otherwise.
import { migrate } from "./migrate";

const USAGE = "usage: tsx packages/db/src/migrate-cli.ts <databaseUrl> <migrationsDir>\n";

async function main(args: string[]): Promise<number> {
  const [databaseUrl, migrationsDir, ...rest] = args;
  if (!databaseUrl || !migrationsDir || rest.length > 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  const { applied } = await migrate(databaseUrl, migrationsDir, {
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(
    applied.length === 0 ? "No pending migrations.\n" : `Applied ${applied.length} migration(s).\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // The message names the migration at fault; the url is never printed (it may hold a password).
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
