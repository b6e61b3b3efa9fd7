import { randomBytes, randomUUID } from "node:crypto";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import type { TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventTypeOf } from "../src/domain/event-types";
import type { EndpointRoutes } from "../src/infra/endpoint-routes";
import { createWebhookDatabase, queueChange, startHarness, type Harness } from "./support";

/**
 * The consumer's in-memory endpoint per merchant (infra/endpoint-routes.ts) across two replicas on
 * one database: a change made through either replica reaches the other's cache through the
 * NOTIFY its transaction sends, and the writing replica reads its own change at once. Until a
 * replica listens, its reads go to the database every time.
 */
const key = randomBytes(32).toString("base64");
let db: TestDatabase;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  db = await createWebhookDatabase(inject("databaseAdminUrl"), "routes");
  // One secret key for both: they are replicas of one deployment.
  a = await startHarness(db.url, { engine: false, env: { WEBHOOK_SECRET_ENCRYPTION_KEY: key } });
  b = await startHarness(db.url, { engine: false, env: { WEBHOOK_SECRET_ENCRYPTION_KEY: key } });
  await a.service.parts.endpointRoutes.start();
  await b.service.parts.endpointRoutes.start();
});
afterAll(async () => {
  for (const h of [a, b]) {
    await h?.service.parts.endpointRoutes.close();
    await h?.close();
  }
  await db?.drop();
});

const routes = (h: Harness): EndpointRoutes => h.service.parts.endpointRoutes;
const client = (h: Harness) => createPeerClient(WebhookService, h.service.url, { timeoutMs: 30_000 });
const routeOf = (h: Harness, merchantId: string) => routes(h).routeOf(merchantId, h.service.parts.database.client);

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("endpoint routes across replicas", () => {
  it("keeps that a merchant has no endpoint, then sees one registered, changed and deleted through the other replica", async () => {
    const merchantId = randomUUID();
    expect(await routeOf(b, merchantId)).toBeUndefined();
    expect(await routeOf(a, merchantId)).toBeUndefined();
    // Both now hold "no endpoint" for the merchant (the case of most shipment events).
    expect(routes(b).size).toBeGreaterThan(0);

    const registered = await client(a).registerEndpoint({ merchantId, url: "http://127.0.0.1:9/hooks" });
    const endpointId = registered.endpoint!.endpointId;
    // The writing replica reads its own change as soon as the RPC answers.
    expect((await routeOf(a, merchantId))?.id).toBe(endpointId);
    // The other replica's cache drops the negative entry when the notification arrives.
    const seen = await until(() => routeOf(b, merchantId), (route) => route !== undefined, "replica b to see the endpoint");
    expect(seen).toEqual({ id: endpointId, eventTypes: expect.arrayContaining([eventTypeOf("CREATED"), eventTypeOf("DELIVERED")]) });

    // Narrowed through b: a, which had the endpoint cached with every type, follows.
    expect((await routeOf(a, merchantId))?.eventTypes).toContain(eventTypeOf("CREATED"));
    const narrowed = await client(b).updateEndpoint({ merchantId, expectedVersion: registered.endpoint!.version, eventTypes: { eventTypes: [5 /* delivered */] } });
    expect(await routeOf(b, merchantId)).toEqual({ id: endpointId, eventTypes: [eventTypeOf("DELIVERED")] });
    await until(() => routeOf(a, merchantId), (route) => route?.eventTypes.length === 1, "replica a to see the narrowed event types");

    // Deleted through a: b stops routing to it.
    await client(a).deleteEndpoint({ merchantId, expectedVersion: narrowed.endpoint!.version });
    expect(await routeOf(a, merchantId)).toBeUndefined();
    await until(() => routeOf(b, merchantId), (route) => route === undefined, "replica b to see the deletion");
  });

  it("queues on the other replica an event of a merchant that registered there a moment ago", async () => {
    const merchantId = randomUUID();
    expect(await routeOf(b, merchantId)).toBeUndefined();
    const registered = await client(a).registerEndpoint({ merchantId, url: "http://127.0.0.1:9/hooks" });
    await until(() => routeOf(b, merchantId), (route) => route !== undefined, "replica b to see the endpoint");
    // What the consumer on b does for a shipment event, through the cache.
    const shipmentId = await queueChange(b.service, { merchantId, status: "CREATED" }, new Date(), routes(b));
    const rows = await b.service.parts.database.client.$queryRawUnsafe<{ endpoint_id: string }[]>(
      `SELECT endpoint_id::text AS endpoint_id FROM webhook_delivery WHERE shipment_id = $1::uuid`,
      shipmentId,
    );
    expect(rows).toEqual([{ endpoint_id: registered.endpoint!.endpointId }]);
  });

  it("lets the consumer skip the events of merchants without an endpoint for their type, and only those", async () => {
    const merchantId = randomUUID();
    expect(await routes(b).ignores(merchantId, eventTypeOf("CREATED"))).toBe(true);
    const registered = await client(a).registerEndpoint({ merchantId, url: "http://127.0.0.1:9/hooks", eventTypes: [5 /* delivered */] });
    await until(() => routes(b).ignores(merchantId, eventTypeOf("DELIVERED")), (ignored) => !ignored, "replica b to stop ignoring the merchant");
    expect(await routes(b).ignores(merchantId, eventTypeOf("CREATED"))).toBe(true);
    await client(a).updateEndpoint({ merchantId, expectedVersion: registered.endpoint!.version, eventTypes: { eventTypes: [1 /* created */, 5] } });
    await until(() => routes(b).ignores(merchantId, eventTypeOf("CREATED")), (ignored) => !ignored, "replica b to see the created type");
  });

  it("reads the database every time while it does not listen", async () => {
    const idle = await startHarness(db.url, { engine: false, env: { WEBHOOK_SECRET_ENCRYPTION_KEY: key } });
    try {
      const merchantId = randomUUID();
      expect(await routeOf(idle, merchantId)).toBeUndefined();
      // Registered through a replica whose notification this one cannot hear.
      const registered = await client(a).registerEndpoint({ merchantId, url: "http://127.0.0.1:9/hooks" });
      expect((await routeOf(idle, merchantId))?.id).toBe(registered.endpoint!.endpointId);
      expect(routes(idle).size).toBe(0);
      // Nor does it let the consumer skip anything.
      expect(await routes(idle).ignores(randomUUID(), eventTypeOf("CREATED"))).toBe(false);
    } finally {
      await idle.close();
    }
  });
});
