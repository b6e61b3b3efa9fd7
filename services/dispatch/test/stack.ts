import { randomUUID } from "node:crypto";
import { createPrismaClient, disconnect, withTransaction } from "@tawsil/db";
import { createKafka, startOutboxRelay } from "@tawsil/events";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { capturedLogger, type TestDatabase } from "@tawsil/testing";
import { createLogger } from "@tawsil/logging";
import { ensureTopics } from "../../../packages/testing/src/infra/kafka";
import { PrismaClient as ShipmentPrisma } from "../../shipment/src/infra/prisma/generated/client";
import { draft, idempotency, startStack, type Stack } from "../../shipment/test/support";
import { startDispatchService, type RunningDispatchService } from "../src/server";
import { createDispatchDatabase, testConfig } from "./support";
import { SHIPMENT_EVENTS_TOPIC, topicSpec } from "@tawsil/topology";

export { AL_MALAZ, AL_OLAYA, draft, idempotency } from "../../shipment/test/support";

/** Saqr Express's bike service, which serves Riyadh (seeded catalogue). */
export const SAQR_BIKE = "41fc1f34-ce04-41ab-8e65-226796c7477b";

/** Another dispatch replica on the same database and consumer group, with its own log. */
export interface DispatchReplica {
  readonly service: RunningDispatchService;
  readonly drivers: ReturnType<typeof createPeerClient<typeof DriverService>>;
  readonly logLines: string[];
}

export interface DispatchStack {
  readonly shipments: Stack;
  readonly dispatch: RunningDispatchService;
  readonly drivers: ReturnType<typeof createPeerClient<typeof DriverService>>;
  readonly dispatchDb: TestDatabase;
  readonly merchantId: string;
  readonly logLines: string[];
  createShipment(reference: string, fields?: Parameters<typeof draft>[1]): Promise<string>;
  startReplica(): Promise<DispatchReplica>;
  close(): Promise<void>;
}

/**
 * Merchant, pricing and shipment in-process (shipment's own test stack, with an eligibility-only
 * dispatch replica for pricing), the shipment outbox relayed to the real broker, and a dispatch
 * replica on its own database running the consumer and the dispatcher against that shipment
 * service. Drivers are the test's own, acting through the replica's driver API.
 */
export async function startDispatchStack(adminUrl: string, brokers: readonly string[], label: string, env: Record<string, string>): Promise<DispatchStack> {
  await ensureTopics([...brokers], [topicSpec(SHIPMENT_EVENTS_TOPIC)]);
  const shipments = await startStack(adminUrl, `d${label}`);
  const dispatchDb = await createDispatchDatabase(adminUrl, label);
  const quiet = createLogger({ service: "dispatch-test-relay", level: "silent" });
  const kafka = createKafka({ clientId: `dispatch-test-${randomUUID().slice(0, 8)}`, brokers, logger: quiet });
  const shipmentDb = createPrismaClient(ShipmentPrisma, { url: shipments.databaseUrl, maxConnections: 2 });
  const relay = await startOutboxRelay({ kafka, logger: quiet, runInTransaction: (fn) => withTransaction(shipmentDb, fn, { timeoutMs: 30_000 }), databaseUrl: shipments.databaseUrl });
  const { logger, lines } = capturedLogger("dispatch-workers");
  const config = testConfig(dispatchDb.url, { SHIPMENT_SERVICE_URL: shipments.shipment.url, DATABASE_POOL_SIZE: "10", LOG_LEVEL: "info", ...env });
  const consumerGroupId = `dispatch.shipments.test-${randomUUID()}`;
  const started = await startDispatchService(config, logger, { kafka, consumerGroupId });
  // A test may stop this replica itself (a leader going away); close() then leaves it be.
  let stopping: Promise<void> | undefined;
  const dispatch: RunningDispatchService = { ...started, close: () => (stopping ??= started.close()) };
  const replicas: RunningDispatchService[] = [];
  const merchantId = await shipments.newMerchant(`M${label.toUpperCase().replace(/[^A-Z]/g, "")}`.slice(0, 12));
  return {
    shipments,
    dispatch,
    drivers: createPeerClient(DriverService, dispatch.url, { timeoutMs: 30_000 }),
    dispatchDb,
    merchantId,
    logLines: lines,
    async createShipment(reference, fields) {
      const body = draft(reference, fields);
      // The fingerprint of any stable text will do: a body with timestamps (bigint seconds) is no JSON.
      const { shipment } = await shipments.client.createShipment({ merchantId, idempotency: idempotency(reference, fields ? reference : body), draft: body });
      return shipment?.shipmentId ?? "";
    },
    async startReplica() {
      const replica = capturedLogger("dispatch-replica");
      const service = await startDispatchService(config, replica.logger, { kafka, consumerGroupId });
      replicas.push(service);
      return { service, drivers: createPeerClient(DriverService, service.url, { timeoutMs: 30_000 }), logLines: replica.lines };
    },
    async close() {
      for (const replica of replicas) await replica.close();
      await dispatch.close();
      await relay.close();
      await disconnect(shipmentDb);
      await shipments.close();
      await dispatchDb.drop();
    },
  };
}

/** Polls until `probe` returns a value (not undefined); fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
