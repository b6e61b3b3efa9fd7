import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Code, ConnectError } from "@connectrpc/connect";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { EndpointStatus } from "@tawsil/proto/tawsil/webhook/v1/webhook_pb";
import { trace } from "@opentelemetry/api";
import { initTracing } from "@tawsil/logging";
import { createPeerClient } from "@tawsil/rpc";
import type { TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createWebhookDatabase, queueChange, startHarness, startReceiver, TestClock, verify, type Harness, type TestReceiver } from "./support";

let db: TestDatabase;
let harness: Harness;
let receiver: TestReceiver;
const clock = new TestClock();
let client: ReturnType<typeof createPeerClient<typeof WebhookService>>;

beforeAll(async () => {
  db = await createWebhookDatabase(inject("databaseAdminUrl"), "delivery");
  receiver = await startReceiver();
  harness = await startHarness(db.url, { clock, engine: false });
  client = createPeerClient(WebhookService, harness.service.url, { timeoutMs: 30_000 });
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
  await db?.drop();
});
const sql = <T>(text: string, ...params: unknown[]) => harness.service.parts.database.client.$queryRawUnsafe<T[]>(text, ...params);

beforeEach(async () => {
  // Each test starts with an empty queue: what an earlier test left pending is not its business.
  await sql(`UPDATE webhook_delivery SET status = 'DELIVERED' WHERE status = 'PENDING'`);
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 200 }));
});

const engine = () => harness.service.parts.engine;

async function register(url = receiver.url) {
  const merchantId = randomUUID();
  const { endpoint, signingSecret } = await client.registerEndpoint({ merchantId, url });
  return { merchantId, secret: signingSecret, version: endpoint!.version };
}

async function attemptsOf(deliveryId: string) {
  return sql<{ number: number; outcome: string; status_code: number | null }>(`SELECT number, outcome, status_code FROM webhook_attempt WHERE delivery_id = $1::uuid ORDER BY number`, deliveryId);
}

describe("a delivery", () => {
  it("is signed per Standard Webhooks and carries the contract's body", async () => {
    const { merchantId, secret } = await register();
    const shipmentId = await queueChange(harness.service, { merchantId, status: "CANCELLED", version: 4n, reasonCode: "CUSTOMER_REQUEST" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    const [req] = receiver.requests;
    const body = verify(secret, req!, clock.now()) as Record<string, unknown>;
    expect(body).toEqual({
      id: req!.headers["webhook-id"],
      type: "shipment.cancelled",
      timestamp: clock.now().toISOString(),
      sequence: 4,
      data: { shipmentId, reference: `REF-${shipmentId.slice(0, 8)}`, status: "CANCELLED", occurredAt: clock.now().toISOString(), trackingUrl: `http://localhost:8080/t/${shipmentId}`, reasonCode: "CUSTOMER_REQUEST" },
    });
    expect(req!.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString("base64")}`, req!, clock.now())).toThrow();
  });

  it("is attempted in the trace of the change that queued it, every attempt", async () => {
    initTracing(); // as the process's main does
    const { merchantId } = await register();
    receiver.respond(() => ({ status: 503 }));
    const linesBefore = harness.logLines.length;
    // The consumer handles the shipment's event in the trace of the merchant's request (packages/events).
    const requestTrace = await trace.getTracer("test").startActiveSpan("POST /v2/shipments", async (span) => {
      await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
      span.end();
      return span.spanContext().traceId;
    });
    expect(requestTrace).toMatch(/^[0-9a-f]{32}$/);
    expect(await engine().runOnce()).toBe(1);
    clock.advance(30);
    expect(await engine().runOnce()).toBe(1);
    const attempts = harness.logLines.slice(linesBefore).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === "webhook attempt");
    expect(attempts.map((line) => [line.attempt, line.traceId])).toEqual([
      [1, requestTrace],
      [2, requestTrace],
    ]);
  });

  it("is sent only for subscribed event types", async () => {
    const merchantId = randomUUID();
    const { signingSecret } = await client.registerEndpoint({ merchantId, url: receiver.url, eventTypes: [5 /* delivered */] });
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    await queueChange(harness.service, { merchantId, status: "DELIVERED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    expect((verify(signingSecret, receiver.requests[0]!, clock.now()) as { type: string }).type).toBe("shipment.delivered");
  });

  it("retries 30 s doubling with the same webhook-id and stops after the eighth attempt", async () => {
    const { merchantId, secret } = await register();
    receiver.respond(() => ({ status: 500 }));
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    for (const wait of [30, 60, 120, 240, 480, 960, 1920]) {
      clock.advance(wait - 1);
      expect(await engine().runOnce()).toBe(0);
      clock.advance(1);
      expect(await engine().runOnce()).toBe(1);
      verify(secret, receiver.requests.at(-1)!, clock.now());
    }
    clock.advance(3600);
    expect(await engine().runOnce()).toBe(0);
    const ids = new Set(receiver.requests.map((r) => r.headers["webhook-id"]));
    expect({ requests: receiver.requests.length, ids: ids.size }).toEqual({ requests: 8, ids: 1 });
    const [row] = await sql<{ status: string; attempts: number }>(`SELECT status::text, attempts FROM webhook_delivery WHERE id = $1::uuid`, [...ids][0]);
    expect(row).toEqual({ status: "EXHAUSTED", attempts: 8 });
    expect((await attemptsOf(String([...ids][0]))).map((a) => a.outcome)).toEqual(Array(8).fill("HTTP_500"));
  });

  it("survives a receiver that is down, then delivers when it is up again", async () => {
    const spare = await startReceiver();
    const port = spare.port;
    await spare.close();
    const { merchantId, secret } = await register(`http://127.0.0.1:${port}/hooks`);
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    const got: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        got.push(String(verify(secret, { headers: req.headers, body: Buffer.concat(chunks).toString() }, clock.now()) && req.headers["webhook-id"]));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      clock.advance(30);
      expect(await engine().runOnce()).toBe(1);
      expect(got).toHaveLength(1);
      expect((await attemptsOf(got[0]!)).map((a) => a.outcome)).toEqual(["TRANSPORT", "DELIVERED"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("waits as long as a 429's Retry-After says", async () => {
    const { merchantId } = await register();
    receiver.respond(() => ({ status: 429, headers: { "retry-after": "120" } }));
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    receiver.respond(() => ({ status: 200 }));
    clock.advance(119);
    expect(await engine().runOnce()).toBe(0);
    clock.advance(1);
    expect(await engine().runOnce()).toBe(1);
  });

  it("counts a redirect as a failed attempt and does not follow it", async () => {
    const { merchantId } = await register();
    receiver.respond(() => ({ status: 302, headers: { location: receiver.url.replace("/hooks", "/elsewhere") } }));
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect(await attemptsOf(String(receiver.requests[0]!.headers["webhook-id"]))).toEqual([{ number: 1, outcome: "REDIRECT", status_code: 302 }]);
  });

  it("counts a receiver that never answers as a timeout", async () => {
    const { merchantId } = await register();
    receiver.respond(() => "hang");
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    expect(await attemptsOf(String(receiver.requests[0]!.headers["webhook-id"]))).toEqual([{ number: 1, outcome: "TIMEOUT", status_code: null }]);
  });

  it("sends nothing while PAUSED, holding pending retries, and resumes when ACTIVE", async () => {
    const { merchantId, version } = await register();
    receiver.respond(() => ({ status: 503 }));
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    const paused = await client.updateEndpoint({ merchantId, expectedVersion: version, status: EndpointStatus.PAUSED });
    await queueChange(harness.service, { merchantId, status: "ASSIGNED" }, clock.now());
    clock.advance(3600);
    expect(await engine().runOnce()).toBe(0);
    receiver.respond(() => ({ status: 200 }));
    await client.updateEndpoint({ merchantId, expectedVersion: paused.endpoint!.version, status: EndpointStatus.ACTIVE });
    expect(await engine().runOnce()).toBe(2);
    expect(receiver.requests).toHaveLength(3);
  });

  it("drops, at the resume, the held events older than 24 h, counting them, and sends the rest oldest first", async () => {
    const { merchantId, version } = await register();
    const paused = await client.updateEndpoint({ merchantId, expectedVersion: version, status: EndpointStatus.PAUSED });
    const stale = await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    clock.advance(23 * 3600);
    const recent = await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    clock.advance(3600 + 1); // the first is 24 h and 1 s old, the second 1 h
    const dropped = async () => (await harness.service.parts.metrics.registry.getSingleMetric("webhook_deliveries_dropped_total")!.get()).values.find((v) => v.labels.reason === "held_over_24h")?.value ?? 0;
    const before = await dropped();
    await client.updateEndpoint({ merchantId, expectedVersion: paused.endpoint!.version, status: EndpointStatus.ACTIVE });
    expect(await engine().runOnce()).toBe(1);
    expect(receiver.requests.map((r) => JSON.parse(r.body).data.shipmentId)).toEqual([recent]);
    const rows = await sql<{ shipment_id: string; status: string; completed: boolean }>(`SELECT shipment_id::text, status::text, completed_at IS NOT NULL AS completed FROM webhook_delivery WHERE shipment_id = ANY($1::uuid[]) ORDER BY occurred_at`, [stale, recent]);
    expect(rows).toEqual([
      { shipment_id: stale, status: "DROPPED", completed: true },
      { shipment_id: recent, status: "DELIVERED", completed: true },
    ]);
    expect((await dropped()) - before).toBe(1);
  });

  it("is signed with both secrets during the 24 hours after a rotation, then with the new one only", async () => {
    const { merchantId, secret: old, version } = await register();
    const { signingSecret: fresh } = await client.rotateSecret({ merchantId, expectedVersion: version });
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    verify(old, receiver.requests[0]!, clock.now());
    verify(fresh, receiver.requests[0]!, clock.now());
    clock.advance(24 * 3600 + 1);
    await queueChange(harness.service, { merchantId, status: "ASSIGNED" }, clock.now());
    expect(await engine().runOnce()).toBe(1);
    verify(fresh, receiver.requests[1]!, clock.now());
    expect(() => verify(old, receiver.requests[1]!, clock.now())).toThrow();
  });

  it("fails alone when its endpoint's secret cannot be opened, while the other deliveries of the same claim go out", async () => {
    const broken = await register();
    const others = [await register(), await register()];
    // A sealed secret copied from another endpoint does not open (the endpoint id is its additional data): as after a key change.
    await sql(`UPDATE webhook_endpoint SET secret_sealed = (SELECT secret_sealed FROM webhook_endpoint WHERE merchant_id = $2::uuid) WHERE merchant_id = $1::uuid`, broken.merchantId, others[0]!.merchantId);
    const brokenShipment = await queueChange(harness.service, { merchantId: broken.merchantId, status: "CREATED" }, clock.now());
    const sent = [];
    for (const other of others) sent.push({ secret: other.secret, shipmentId: await queueChange(harness.service, { merchantId: other.merchantId, status: "CREATED" }, clock.now()) });
    expect(await engine().runOnce()).toBe(3);
    expect(receiver.requests).toHaveLength(2);
    for (const { secret, shipmentId } of sent) verify(secret, receiver.requests.find((r) => r.body.includes(shipmentId))!, clock.now());
    const [row] = await sql<{ id: string; status: string; attempts: number; last_error: string }>(`SELECT id::text, status::text, attempts, last_error FROM webhook_delivery WHERE shipment_id = $1::uuid`, brokenShipment);
    expect(row).toMatchObject({ status: "PENDING", attempts: 1, last_error: "SECRET_UNREADABLE" });
    expect(await attemptsOf(row!.id)).toEqual([{ number: 1, outcome: "SECRET_UNREADABLE", status_code: null }]);
    expect(harness.logLines.join("\n")).not.toMatch(/whsec_/);
  });

  it("leaves nothing to send once the endpoint is deleted", async () => {
    const { merchantId, version } = await register();
    await queueChange(harness.service, { merchantId, status: "CREATED" }, clock.now());
    await client.deleteEndpoint({ merchantId, expectedVersion: version });
    expect(await engine().runOnce()).toBe(0);
    await expect(client.getEndpoint({ merchantId })).rejects.toSatisfy((e) => ConnectError.from(e).code === Code.NotFound);
  });
});
