// Composition root of the shipment service: configuration, then infrastructure, then the server.
import { openDatabase, withTransaction } from "@tawsil/db";
import { connectKafka, startOutboxRelay } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { PrismaClient } from "./infra/prisma/generated/client";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "shipment", level: config.LOG_LEVEL });
const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
const broker = connectKafka({ clientId: "shipment", brokers: config.KAFKA_BROKERS, logger });
// The relay holds its transaction while the broker acknowledges a batch: allow for broker retries.
const relay = startOutboxRelay({ kafka: broker.kafka, logger, runInTransaction: (fn) => withTransaction(database.client, fn, { timeoutMs: 30_000 }) });

await runService({ name: "shipment", config, logger, checks: [database.readiness, broker.readiness], closers: [relay, broker, database] });
