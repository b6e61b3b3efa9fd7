// Composition root of the tracking service: configuration, then infrastructure, then the server.
import { openDatabase } from "@tawsil/db";
import { connectKafka } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { PrismaClient } from "./infra/prisma/generated/client";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "tracking", level: config.LOG_LEVEL });
const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });
const broker = connectKafka({ clientId: "tracking", brokers: config.KAFKA_BROKERS, logger });

await runService({ name: "tracking", config, logger, checks: [database.readiness, broker.readiness], closers: [broker, database] });
