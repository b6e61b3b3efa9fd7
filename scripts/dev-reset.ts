/**
 * `make dev-reset`: starts this checkout's local state afresh. Drops this checkout's databases
 * (those of `make dev` and `make bench`, named with its namespace: scripts/checkout/namespace.ts)
 * and deletes its .dev/ folder (local secrets, credentials, logs). Nothing of another checkout is
 * touched: the names dropped are listed one by one, never matched by a pattern.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dropDatabase } from "../packages/db/src/index";
import { allDatabasesOf, devDatabasePrefix } from "./checkout/namespace";
import { existingDatabases } from "./checkout/sealed-data";
import { ensurePostgres } from "../packages/testing/src/infra/postgres";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEV_DIR = path.join(ROOT, ".dev");

function runningDevPid(): number | undefined {
  const pidFile = path.join(DEV_DIR, "dev.pid");
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, "utf8"));
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

try {
  const pid = runningDevPid();
  if (pid) throw new Error(`make dev is running in this checkout (pid ${pid}); stop it first (make down)`);
  const prefix = devDatabasePrefix(ROOT);
  const log = (line: string) => console.log(`[dev-reset] ${line}`);
  const postgres = await ensurePostgres({ log, ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}) });
  try {
    const existing = await existingDatabases(postgres.adminUrl, allDatabasesOf(prefix));
    for (const { name } of existing) {
      await dropDatabase(postgres.adminUrl, name);
      log(`dropped database ${name}`);
    }
    if (existing.length === 0) log(`no databases named ${prefix}* of this checkout`);
  } finally {
    await postgres.stop();
  }
  rmSync(DEV_DIR, { recursive: true, force: true });
  log(`removed ${path.relative(ROOT, DEV_DIR)}/ (local secrets, credentials, logs); the next make dev starts afresh`);
} catch (err) {
  console.error(`[dev-reset] ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
