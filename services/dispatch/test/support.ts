import { randomUUID } from "node:crypto";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Code, ConnectError } from "@connectrpc/connect";
import { createPrismaClient, databaseUrl, disconnect, dropDatabase, ensureDatabase, migrate } from "@tawsil/db";
import { createLogger, type Logger } from "@tawsil/logging";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { readConfig, type Config } from "../src/config";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { startDispatchService, type RunningDispatchService } from "../src/server";

/** The committed migrations, seeded carrier catalogue included. */
export const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

/** A fresh dispatch database, migrated and so holding the sandbox catalogue; dropped by `drop()`. */
export async function createDispatchDatabase(adminUrl: string, label: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `dispatch_test_${label}_${randomUUID().slice(0, 8)}`;
  await ensureDatabase(adminUrl, name);
  const url = databaseUrl(adminUrl, name);
  await migrate(url, MIGRATIONS);
  return { name, url, drop: () => dropDatabase(adminUrl, name) };
}

export function testConfig(databaseUrlValue: string, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: databaseUrlValue,
    DATABASE_POOL_SIZE: "3",
    // Never contacted by the in-process service; readConfig requires it all the same.
    KAFKA_BROKERS: "127.0.0.1:9092",
    SHUTDOWN_GRACE_MS: "200",
    LOG_LEVEL: "debug",
    ...env,
  });
}

/** A logger whose every output line is kept, to prove what never reaches the logs. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ service: "dispatch-test", level: "debug", destination }), lines };
}

export interface TestService extends RunningDispatchService {
  readonly dispatch: ReturnType<typeof createPeerClient<typeof DispatchService>>;
  readonly logLines: string[];
}

export async function startTestService(databaseUrlValue: string, env: Record<string, string> = {}): Promise<TestService> {
  const { logger, lines } = capturedLogger();
  const running = await startDispatchService(testConfig(databaseUrlValue, env), logger);
  return { ...running, dispatch: createPeerClient(DispatchService, running.url, { timeoutMs: 10_000 }), logLines: lines };
}

/** The Connect error a call failed with (fails the test when it succeeded). */
export async function failure(call: Promise<unknown>): Promise<{ code: Code; reason: string | undefined; message: string }> {
  try {
    await call;
  } catch (error) {
    const connect = ConnectError.from(error);
    return { code: connect.code, reason: connect.findDetails(ErrorReasonSchema)[0]?.reason, message: connect.rawMessage };
  }
  throw new Error("expected the call to fail");
}

/** Reads or changes the database behind the service's back. */
export async function query<T>(url: string, sql: string, ...params: unknown[]): Promise<T[]> {
  const client = createPrismaClient(PrismaClient, { url, maxConnections: 1 });
  try {
    return await client.$queryRawUnsafe<T[]>(sql, ...params);
  } finally {
    await disconnect(client);
  }
}

export { Code };
