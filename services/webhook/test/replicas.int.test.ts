import { randomBytes, randomUUID } from "node:crypto";
import { EndpointStatus } from "@tawsil/proto/tawsil/webhook/v1/webhook_pb";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import type { TestDatabase } from "@tawsil/testing";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { capturedLogger } from "@tawsil/testing";
import { DeliveryEngine } from "../src/app/delivery-engine";
import type { ClaimedDelivery, ClaimRequest, CompletedAttempt, DeliveryQueue, ResolvedAddress, Resolver } from "../src/app/ports";
import { PinnedHttpReceiver } from "../src/infra/http-receiver";
import { SqlDeliveryQueue } from "../src/infra/sql-delivery-queue";
import { SecretBox } from "../src/infra/secret-box";
import { createWebhookDatabase, queueChange, startHarness, startReceiver, TestClock, TestResolver, type Harness, type TestReceiver } from "./support";

/**
 * Two replicas never make one attempt twice: a claim is leased well beyond the attempt's timeout
 * and the DNS deadline, and a send never starts with less lease left than its timeout and a margin
 * (past the lease the other replica may take the row), so a send within its 15 s timeout always
 * ends, and is recorded, before another replica may claim it.
 */
const key = randomBytes(32).toString("base64");
let db: TestDatabase;
let receiver: TestReceiver;
let harnesses: Harness[] = [];

beforeAll(async () => {
  db = await createWebhookDatabase(inject("databaseAdminUrl"), "replicas");
  receiver = await startReceiver();
});
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
  receiver.requests.length = 0;
  receiver.respond(() => ({ status: 200 }));
});
afterAll(async () => {
  await receiver?.close();
  await db?.drop();
});

async function replica(opts: Parameters<typeof startHarness>[1]): Promise<Harness> {
  const harness = await startHarness(db.url, { ...opts, env: { WEBHOOK_SECRET_ENCRYPTION_KEY: key, WEBHOOK_ATTEMPT_TIMEOUT_MS: "15000", ...opts?.env } });
  harnesses.push(harness);
  return harness;
}

/** An engine of the test's own over `queue` (a real queue the test wraps), sending through a receiver of its own. */
function engineOver(queue: DeliveryQueue, perEndpoint: number): { engine: DeliveryEngine; receiverOfEngine: PinnedHttpReceiver } {
  const receiverOfEngine = new PinnedHttpReceiver();
  const engine = new DeliveryEngine({
    queue,
    receiver: receiverOfEngine,
    resolver: new TestResolver(),
    clock: { now: () => new Date() },
    policy: { allowInsecure: true },
    timeoutMs: 15_000,
    concurrency: 4,
    perEndpoint,
    leaseMs: 120_000,
    idleMs: 50,
    observer: { attempted: () => {}, firstAttemptLag: () => {}, inFlight: () => {} },
    logger: capturedLogger("engine").logger,
  });
  return { engine, receiverOfEngine };
}

const sql = <T>(h: Harness, text: string, ...params: unknown[]) => h.service.parts.database.client.$queryRawUnsafe<T[]>(text, ...params);

describe("two webhook replicas", () => {
  it("never send one attempt twice, a send of 14 s included, while both keep delivering", async () => {
    const env = { WEBHOOK_IDLE_MS: "50" };
    const [a, b] = [await replica({ engine: false, env }), await replica({ engine: false, env })];
    const client = createPeerClient(WebhookService, a!.service.url, { timeoutMs: 30_000 });
    const merchants = [randomUUID(), randomUUID(), randomUUID()];
    for (const merchantId of merchants) await client.registerEndpoint({ merchantId, url: receiver.url });
    const now = new Date();
    const slow = await queueChange(a!.service, { merchantId: merchants[0]!, status: "CREATED" }, now);
    for (let i = 0; i < 150; i++) await queueChange(a!.service, { merchantId: merchants[i % 3]!, status: "CREATED" }, now);
    receiver.respond((req) => (req.body.includes(slow) ? { status: 200, delayMs: 14_000 } : { status: 200 }));
    a!.service.parts.engine.start();
    b!.service.parts.engine.start();
    const deadline = Date.now() + 60_000;
    const delivered = async () =>
      (await sql<{ n: bigint }>(a!, `SELECT count(*) AS n FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id WHERE d.status = 'DELIVERED' AND e.merchant_id = ANY($1::uuid[])`, merchants))[0]!.n;
    while ((await delivered()) < 151n && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await delivered()).toBe(151n);
    const attempts = await sql<{ delivery_id: string; shipment_id: string; number: number; outcome: string; duration_ms: number }>(
      a!,
      `SELECT d.id::text AS delivery_id, d.shipment_id::text, a.number, a.outcome, a.duration_ms FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id JOIN webhook_endpoint e ON e.id = d.endpoint_id WHERE e.merchant_id = ANY($1::uuid[])`,
      merchants,
    );
    // An attempt sent twice is two requests under one attempt row (the lost claim's record is
    // refused): every request has an attempt of its own. On a machine at load 20 the 14 s answer can
    // pass the 15 s timeout; that TIMEOUT is retried and seen again, as the contract says.
    const requests = new Map<string, number>();
    for (const r of receiver.requests) requests.set(String(r.headers["webhook-id"]), (requests.get(String(r.headers["webhook-id"])) ?? 0) + 1);
    const made = new Map<string, number>();
    for (const row of attempts) made.set(row.delivery_id, (made.get(row.delivery_id) ?? 0) + 1);
    expect({ ids: requests.size, sentTwice: [...requests].filter(([id, n]) => n > (made.get(id) ?? 0)) }).toEqual({ ids: 151, sentTwice: [] });
    expect(attempts.filter((row) => row.outcome !== "DELIVERED" && !(row.shipment_id === slow && row.outcome === "TIMEOUT"))).toEqual([]);
    const slowFirst = attempts.find((row) => row.shipment_id === slow && row.number === 1)!;
    expect(slowFirst.duration_ms).toBeGreaterThanOrEqual(14_000);
    console.info(`[replicas] the 14 s send: ${slowFirst.outcome} after ${slowFirst.duration_ms} ms; ${receiver.requests.length} requests for ${attempts.length} attempts of 151 deliveries`);
  }, 120_000);

  it("give back a claim whose lease ran short before its send, and the other replica makes that attempt once", async () => {
    const clock = new TestClock();
    const name = "stalls.merchant.test";
    const resolver = new TestResolver();
    resolver.names.set(name, [{ address: "127.0.0.1", family: 4 }]);
    // Replica A stalls between its claim and its send for 100 s (a paused process, an overloaded
    // node): the attempt's lease has less left than the attempt's timeout when it would send.
    let stalled!: () => void;
    const reachedStall = new Promise<void>((resolve) => (stalled = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const stalling: Resolver = {
      async resolve(): Promise<ResolvedAddress[]> {
        clock.advance(100);
        stalled();
        await resumed;
        return [{ address: "127.0.0.1", family: 4 }];
      },
    };
    const a = await replica({ engine: false, clock, resolver: stalling });
    const b = await replica({ engine: false, clock, resolver });
    const merchantId = randomUUID();
    await createPeerClient(WebhookService, b.service.url, { timeoutMs: 30_000 }).registerEndpoint({ merchantId, url: `http://${name}:${receiver.port}/hooks` });
    const shipmentId = await queueChange(b.service, { merchantId, status: "CREATED" }, clock.now());

    const roundOfA = a.service.parts.engine.runOnce();
    await reachedStall;
    const takenByB = await b.service.parts.engine.runOnce(); // A's claim is still leased to A
    resume();
    expect(await roundOfA).toBe(1);
    const retakenByB = await b.service.parts.engine.runOnce(); // A gave it back unsent
    expect({ takenByB, retakenByB }).toEqual({ takenByB: 0, retakenByB: 1 });
    expect(receiver.requests.filter((r) => r.body.includes(shipmentId))).toHaveLength(1);
    const attempts = await sql<{ number: number; outcome: string }>(a, `SELECT a.number, a.outcome FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.shipment_id = $1::uuid`, shipmentId);
    expect(attempts).toEqual([{ number: 1, outcome: "DELIVERED" }]);
  }, 60_000);

  it("take back at once, started again under the same WEBHOOK_REPLICA_ID, what the replica held when it was killed; another replica waits for the lease", async () => {
    const env = (id: string) => ({ env: { WEBHOOK_REPLICA_ID: id } });
    const first = await replica({ engine: false, ...env("webhook-a") });
    const merchantId = randomUUID();
    await createPeerClient(WebhookService, first.service.url, { timeoutMs: 30_000 }).registerEndpoint({ merchantId, url: receiver.url });
    const shipmentId = await queueChange(first.service, { merchantId, status: "CREATED" }, new Date());
    // What "webhook-a" held when it was SIGKILLed between its claim and its send: a 120 s lease.
    const queue = new SqlDeliveryQueue(first.service.parts.database.sql, new SecretBox(Buffer.from(key, "base64")));
    const [claimed] = await queue.claimDue(new Date(), { limit: 10, leaseMs: 120_000, perEndpoint: 4, busy: new Map(), holder: "webhook-a" });
    expect(claimed?.attempt).toBe(1);
    await first.close();
    harnesses = harnesses.filter((h) => h !== first);

    const other = await replica({ engine: false, ...env("webhook-b") });
    expect(await other.service.parts.engine.runOnce()).toBe(0); // not its claim: leased to webhook-a
    const again = await replica({ engine: false, ...env("webhook-a") });
    expect(await again.service.parts.engine.runOnce()).toBe(1);
    expect(receiver.requests.filter((r) => r.body.includes(shipmentId))).toHaveLength(1);
    const rows = await sql<{ status: string; attempts: number; claimed_by: string | null }>(again, `SELECT status::text, attempts, claimed_by FROM webhook_delivery WHERE shipment_id = $1::uuid`, shipmentId);
    // The attempt the dead replica may have sent counts: the one made now is the second.
    expect(rows).toEqual([{ status: "DELIVERED", attempts: 2, claimed_by: "webhook-a" }]);
  });

  it("give back at once, unsent and uncounted, what a claim took when its answer was lost (the database went away as it committed), rather than wait out the lease", async () => {
    const h = await replica({ engine: false });
    const merchantId = randomUUID();
    await createPeerClient(WebhookService, h.service.url, { timeoutMs: 30_000 }).registerEndpoint({ merchantId, url: receiver.url });
    const shipmentId = await queueChange(h.service, { merchantId, status: "CREATED" }, new Date());
    const box = new SecretBox(Buffer.from(key, "base64"));
    // A claim that commits and then loses its connection, once: the rows are leased to this replica, unseen.
    class AnswerLostOnce extends SqlDeliveryQueue {
      lost = 0;
      override async claimDue(now: Date, request: ClaimRequest): Promise<ClaimedDelivery[]> {
        const claimed = await super.claimDue(now, request);
        if (this.lost++ > 0) return claimed;
        throw new Error("Connection terminated unexpectedly");
      }
    }
    const queue = new AnswerLostOnce(h.service.parts.database.client, box);
    const { engine, receiverOfEngine } = engineOver(queue, 2);
    try {
      await expect(engine.runOnce()).rejects.toThrow("Connection terminated");
      const leased = await sql<{ attempts: number }>(h, `SELECT attempts FROM webhook_delivery WHERE shipment_id = $1::uuid AND claim_token IS NOT NULL`, shipmentId);
      expect(leased).toEqual([{ attempts: 1 }]); // taken, for 120 s, by a claim whose answer never came
      expect(await engine.runOnce()).toBe(1);
    } finally {
      await engine.close();
      await receiverOfEngine.close();
    }
    expect(receiver.requests.filter((r) => r.body.includes(shipmentId))).toHaveLength(1);
    const attempts = await sql<{ number: number; outcome: string }>(h, `SELECT a.number, a.outcome FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.shipment_id = $1::uuid`, shipmentId);
    expect(attempts).toEqual([{ number: 1, outcome: "DELIVERED" }]);
  });

  it("record nothing for a replica whose lease was lost: the attempt is the new holder's to record, once", async () => {
    const h = await replica({ engine: false });
    const merchantId = randomUUID();
    await createPeerClient(WebhookService, h.service.url, { timeoutMs: 30_000 }).registerEndpoint({ merchantId, url: receiver.url });
    const t0 = new Date();
    const shipmentId = await queueChange(h.service, { merchantId, status: "CREATED" }, t0);
    const queue = new SqlDeliveryQueue(h.service.parts.database.sql, new SecretBox(Buffer.from(key, "base64")));
    const request: ClaimRequest = { limit: 10, leaseMs: 1_000, perEndpoint: 4, busy: new Map(), holder: "replica-a" };
    const [lost] = await queue.claimDue(t0, request);
    const [held] = await queue.claimDue(new Date(t0.getTime() + 1_001), request); // the first lease lapsed
    expect([lost?.attempt, held?.attempt]).toEqual([1, 2]);
    const done = (claim: typeof lost, outcome: string) => ({ claim: claim!, record: { startedAt: t0, durationMs: 5, statusCode: 200, outcome }, outcome: { kind: "delivered" as const } });
    await queue.complete([done(lost, "LOST_CLAIM")]);
    await queue.complete([done(held, "DELIVERED")]);
    const attempts = await sql<{ number: number; outcome: string }>(h, `SELECT a.number, a.outcome FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.shipment_id = $1::uuid`, shipmentId);
    expect(attempts).toEqual([{ number: 2, outcome: "DELIVERED" }]);
  });
});

/** Until `done` holds (checked every 50 ms) or `ms` pass. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("a webhook sender", () => {
  it("is woken on every replica when an endpoint resumes: the held backlog goes out at once, not at the next idle look", async () => {
    // A minute between idle looks: only the resume's notification can make replica B look sooner.
    const env = { WEBHOOK_IDLE_MS: "60000" };
    const a = await replica({ engine: false, env });
    await replica({ env });
    const client = createPeerClient(WebhookService, a.service.url, { timeoutMs: 30_000 });
    const merchantId = randomUUID();
    const { endpoint } = await client.registerEndpoint({ merchantId, url: receiver.url });
    const paused = await client.updateEndpoint({ merchantId, expectedVersion: endpoint!.version, status: EndpointStatus.PAUSED });
    const shipmentId = await queueChange(a.service, { merchantId, status: "CREATED" }, new Date());
    const resumed = performance.now();
    await client.updateEndpoint({ merchantId, expectedVersion: paused.endpoint!.version, status: EndpointStatus.ACTIVE });
    await until(() => receiver.requests.some((r) => r.body.includes(shipmentId)), 15_000);
    expect(receiver.requests.filter((r) => r.body.includes(shipmentId))).toHaveLength(1);
    console.info(`[replicas] resumed on A, sent by B ${Math.round(performance.now() - resumed)} ms later (idle look every 60 s)`);
  }, 60_000);

  it("frees an endpoint's slot once its send is answered, while the attempt is still being recorded", async () => {
    const h = await replica({ engine: false });
    const merchantId = randomUUID();
    await createPeerClient(WebhookService, h.service.url, { timeoutMs: 30_000 }).registerEndpoint({ merchantId, url: receiver.url });
    const shipments = [await queueChange(h.service, { merchantId, status: "CREATED" }, new Date()), await queueChange(h.service, { merchantId, status: "CREATED" }, new Date())];
    // Records wait until the test lets them through: a slot held until its record would leave the second send waiting.
    let letRecordsThrough!: () => void;
    const gate = new Promise<void>((resolve) => (letRecordsThrough = resolve));
    class HeldRecords extends SqlDeliveryQueue {
      override async complete(results: readonly CompletedAttempt[]): Promise<void> {
        await gate;
        return super.complete(results);
      }
    }
    const { engine, receiverOfEngine } = engineOver(new HeldRecords(h.service.parts.database.sql, new SecretBox(Buffer.from(key, "base64"))), 1);
    const sent = () => shipments.filter((id) => receiver.requests.some((r) => r.body.includes(id))).length;
    try {
      engine.start();
      await until(() => sent() === 2, 10_000);
      expect(sent()).toBe(2);
      const recorded = await sql<{ n: bigint }>(h, `SELECT count(*) AS n FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.shipment_id = ANY($1::uuid[])`, shipments);
      expect(recorded).toEqual([{ n: 0n }]);
    } finally {
      letRecordsThrough();
      await engine.close();
      await receiverOfEngine.close();
    }
    const attempts = await sql<{ number: number; outcome: string }>(h, `SELECT a.number, a.outcome FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.shipment_id = ANY($1::uuid[])`, shipments);
    expect(attempts).toEqual([
      { number: 1, outcome: "DELIVERED" },
      { number: 1, outcome: "DELIVERED" },
    ]);
  }, 60_000);

  it("looks at an empty queue less and less while nothing happens, and again when woken", async () => {
    const h = await replica({ engine: false });
    let looks = 0;
    class CountedLooks extends SqlDeliveryQueue {
      override claimDue(now: Date, request: ClaimRequest): Promise<ClaimedDelivery[]> {
        looks++;
        return super.claimDue(now, request);
      }
    }
    // idleMs 50: 1.6 s of looks every 50 ms would be 32; doubling, the sleeps are 50, 100, 200, 400, 800 ms.
    const { engine } = engineOver(new CountedLooks(h.service.parts.database.sql, new SecretBox(Buffer.from(key, "base64"))), 1);
    try {
      engine.start();
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      const quiet = looks;
      expect(quiet).toBeGreaterThanOrEqual(2);
      expect(quiet).toBeLessThanOrEqual(8);
      // Woken (as by an event queued here), it looks again, and its sleeps start from 50 ms again.
      engine.wake();
      await until(() => looks > quiet, 5_000);
      expect(looks).toBeGreaterThan(quiet);
    } finally {
      await engine.close();
    }
  });
});
