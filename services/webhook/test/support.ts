import { randomBytes, randomUUID } from "node:crypto";
import { createSocket } from "node:dgram";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withTransaction } from "@tawsil/db";
import { capturedLogger, createMigratedDatabase, type TestDatabase } from "@tawsil/testing";
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";
import { enqueueShipmentEvent } from "../src/app/enqueue-event";
import type { Clock, ResolvedAddress, Resolver } from "../src/app/ports";
import { readConfig, type Config } from "../src/config";
import type { PublicStatus } from "../src/domain/event-types";
import { DnsResolver } from "../src/infra/dns-resolver";
import type { EndpointRoutes } from "../src/infra/endpoint-routes";
import { SqlQueueWriter } from "../src/infra/sql-delivery-queue";
import { startWebhookService, type RunningWebhookService, type WebhookOverrides } from "../src/server";
import type { Kafka } from "kafkajs";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

export function createWebhookDatabase(adminUrl: string, label: string): Promise<TestDatabase> {
  return createMigratedDatabase(adminUrl, `webhook_test_${label}_${randomUUID().slice(0, 8)}`, MIGRATIONS);
}

export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: "127.0.0.1:9092",
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
    WEBHOOK_ATTEMPT_TIMEOUT_MS: "500",
    SHUTDOWN_GRACE_MS: "100",
    LOG_LEVEL: "debug",
    ...env,
  });
}

/** A clock that only moves when the test says so. */
export class TestClock implements Clock {
  #now: number;
  constructor(start = Date.now()) {
    this.#now = start;
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(seconds: number): void {
    this.#now += seconds * 1000;
  }
}

/**
 * The service's resolver over made-up DNS answers: names resolve where the test says, names in
 * `failures` fail with that error code (ESERVFAIL: the resolver could not answer), and any other
 * name does not exist (ENOTFOUND).
 */
export class TestResolver extends DnsResolver implements Resolver {
  readonly names = new Map<string, ResolvedAddress[]>();
  readonly failures = new Map<string, string>();
  constructor() {
    super(async (hostname, family) => {
      const failure = this.failures.get(hostname);
      const found = this.names.get(hostname);
      if (failure !== undefined || !found) throw Object.assign(new Error(`query ${failure ?? "ENOTFOUND"} ${hostname}`), { code: failure ?? "ENOTFOUND" });
      return found.filter((a) => a.family === family).map((a) => a.address);
    });
  }
}

export interface Received {
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

/** The merchant's receiver: a local HTTP server that records every request and answers as told. */
export interface TestReceiver {
  readonly url: string;
  readonly port: number;
  readonly requests: Received[];
  /** How the next requests are answered (default 200), after `delayMs` when given; `hang` never answers. */
  respond(answer: (req: Received) => Answer): void;
  close(): Promise<void>;
}

type Answer = { status: number; headers?: Record<string, string>; delayMs?: number } | "hang";

export async function startReceiver(): Promise<TestReceiver> {
  const requests: Received[] = [];
  let answer: (req: Received) => Answer = () => ({ status: 200 });
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(received);
      const a = answer(received);
      if (a === "hang") return void hanging.push(res);
      if (!a.delayMs) return void res.writeHead(a.status, a.headers ?? {}).end();
      hanging.push(res);
      setTimeout(() => res.destroyed || res.writeHead(a.status, a.headers ?? {}).end(), a.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    requests,
    respond(next) {
      answer = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Verifies a delivery with the official Standard Webhooks library, as a receiver whose clock reads
 * `at` (the library checks the timestamp against Date.now(), so a test clock hours ahead needs the
 * receiver's clock moved too); throws when it does not verify.
 */
export function verify(secret: string, req: Received, at: Date = new Date()): unknown {
  vi.useFakeTimers({ toFake: ["Date"], now: at });
  try {
    return new Webhook(secret).verify(req.body, {
      "webhook-id": String(req.headers["webhook-id"]),
      "webhook-timestamp": String(req.headers["webhook-timestamp"]),
      "webhook-signature": String(req.headers["webhook-signature"]),
    });
  } finally {
    vi.useRealTimers();
  }
}

export interface Harness {
  readonly service: RunningWebhookService;
  readonly logLines: string[];
  close(): Promise<void>;
}

export async function startHarness(databaseUrl: string, opts: WebhookOverrides & { env?: Record<string, string>; kafka?: Kafka; consumerGroupId?: string; engine?: boolean } = {}): Promise<Harness> {
  const { logger, lines } = capturedLogger("webhook-test");
  const service = await startWebhookService(testConfig(databaseUrl, opts.env), logger, opts);
  return { service, logLines: lines, close: () => service.close() };
}

let version = 0n;

/** Queues a shipment's public status change as the consumer would, in one transaction (through `routes`, as the consumer, when given). */
export async function queueChange(
  service: RunningWebhookService,
  fact: { merchantId: string; shipmentId?: string; status: PublicStatus; version?: bigint; reasonCode?: string },
  now: Date,
  routes?: EndpointRoutes,
): Promise<string> {
  const shipmentId = fact.shipmentId ?? randomUUID();
  await withTransaction(service.parts.database.client, (tx) =>
    enqueueShipmentEvent(
      new SqlQueueWriter(tx, routes),
      {
        shipmentId,
        merchantId: fact.merchantId,
        reference: `REF-${shipmentId.slice(0, 8)}`,
        status: fact.status,
        version: fact.version ?? ++version,
        occurredAt: now,
        trackingUrl: `http://localhost:8080/t/${shipmentId}`,
        timelineMedia: [],
        reasonCode: fact.reasonCode ?? "",
      },
      now,
    ),
  );
  return shipmentId;
}

/**
 * A merchant's DNS zone: a name server on 127.0.0.1 (UDP) that answers A queries for `names` with
 * their address (TTL 0, so nothing is cached), AAAA with no records, and never answers a name in
 * `silent`: the receiver whose name stops resolving. `server` is WEBHOOK_DNS_SERVERS's value.
 */
export interface TestNameServer {
  readonly server: string;
  readonly names: Map<string, string>;
  readonly silent: Set<string>;
  close(): Promise<void>;
}

export async function startNameServer(): Promise<TestNameServer> {
  const names = new Map<string, string>();
  const silent = new Set<string>();
  const socket = createSocket("udp4");
  socket.on("message", (query, peer) => {
    let end = 12;
    const labels: string[] = [];
    while (end < query.length && query[end]! !== 0) {
      labels.push(query.subarray(end + 1, end + 1 + query[end]!).toString("ascii"));
      end += query[end]! + 1;
    }
    const name = labels.join(".").toLowerCase();
    if (silent.has(name)) return;
    const type = query.readUInt16BE(end + 1);
    const address = type === 1 ? names.get(name) : undefined;
    const known = names.has(name);
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    const question = query.subarray(12, end + 5);
    const answer = address ? Buffer.concat([Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4]), Buffer.from(address.split(".").map(Number))]) : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, answer]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    names,
    silent,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/**
 * Index and table rows of webhook_delivery read so far on `service`'s database. Each connection
 * reports its counts when idle, at most once a second and later when the server is busy: read
 * until two readings 2 s apart agree (a sender that kept walking rows would keep it climbing).
 */
export async function deliveryRowsRead(service: RunningWebhookService): Promise<number> {
  const db = service.parts.database.client;
  let last = -1;
  for (let tries = 0; tries < 10; tries++) {
    await db.$queryRawUnsafe(`SELECT pg_stat_clear_snapshot()::text`);
    const [row] = await db.$queryRawUnsafe<{ n: bigint }[]>(
      `SELECT (SELECT COALESCE(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'webhook_delivery') + (SELECT COALESCE(sum(seq_tup_read), 0) FROM pg_stat_user_tables WHERE relname = 'webhook_delivery') AS n`,
    );
    if (Number(row!.n) === last) return last;
    last = Number(row!.n);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  return last;
}
