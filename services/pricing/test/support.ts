import { randomUUID } from "node:crypto";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Code, ConnectError } from "@connectrpc/connect";
import { databaseUrl, dropDatabase, ensureDatabase, migrate } from "@tawsil/db";
import { createLogger, type Logger } from "@tawsil/logging";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { readConfig, type Config } from "../src/config";
import { startPricingService, type RunningPricingService } from "../src/server";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

/** A fresh, migrated pricing database (no tables yet), dropped by `drop()`. */
export async function createPricingDatabase(adminUrl: string, label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pricing_test_${label}_${randomUUID().slice(0, 8)}`;
  await ensureDatabase(adminUrl, name);
  const url = databaseUrl(adminUrl, name);
  await migrate(url, MIGRATIONS);
  return { url, drop: () => dropDatabase(adminUrl, name) };
}

export interface Peers {
  readonly merchantUrl: string;
  readonly dispatchUrl: string;
}

export function testConfig(databaseUrlValue: string, peers: Peers, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: databaseUrlValue,
    DATABASE_POOL_SIZE: "3",
    MERCHANT_SERVICE_URL: peers.merchantUrl,
    DISPATCH_SERVICE_URL: peers.dispatchUrl,
    SHUTDOWN_GRACE_MS: "200",
    LOG_LEVEL: "debug",
    ...env,
  });
}

/** A logger whose every output line is kept, to prove what never reaches the logs. */
export function capturedLogger(service: string): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ service, level: "debug", destination }), lines };
}

export interface TestService extends RunningPricingService {
  readonly pricing: ReturnType<typeof createPeerClient<typeof PricingService>>;
  readonly logLines: string[];
}

export async function startTestService(databaseUrlValue: string, peers: Peers, env: Record<string, string> = {}): Promise<TestService> {
  const { logger, lines } = capturedLogger("pricing-test");
  const running = await startPricingService(testConfig(databaseUrlValue, peers, env), logger);
  return { ...running, pricing: createPeerClient(PricingService, running.url, { timeoutMs: 10_000 }), logLines: lines };
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

export { Code };
