// Composition root of the pricing service: configuration, then infrastructure, then the server.
import { openDatabase } from "@tawsil/db";
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { PrismaClient } from "./infra/prisma/generated/client";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "pricing", level: config.LOG_LEVEL });
const database = openDatabase(PrismaClient, { url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE, logger });

await runService({ name: "pricing", config, logger, checks: [database.readiness], closers: [database] });
