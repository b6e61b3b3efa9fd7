import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { problemSchemaErrors } from "../../packages/testing/src/problem-schema";
import { portAccepts } from "../../packages/testing/src/infra/kafka";
import { SERVICES } from "../../packages/topology/src";
import { putFleetOnShift } from "../../services/dispatch/test/support";
import { startTestMesh, type TestMesh } from "../e2e/support/test-mesh";
import { startOwnKafka, type OwnKafka } from "./support/own-kafka";
import { watchShipmentEvents } from "./support/topic-watch";

/**
 * Issue 14 item 5, graceful degradation, through the gateway as a merchant calls it. One service
 * down fails only the routes that need it, at once, with the 503 problem and Retry-After, and the
 * gateway stays ready; Kafka down leaves the gateway and every service ready and tokens, /me, reads
 * and creates working, the creates' events relayed once the broker is back. The mesh runs on a
 * Kafka of its own, which this file stops; every answer is checked against the OpenAPI document.
 */
const RIYADH_MALQA = { latitude: 24.774265, longitude: 46.738586 };
const RIYADH_OLAYA = { latitude: 24.7136, longitude: 46.6753 };
/** Long enough for every check of the outage to run while the broker is away (asserted at the end). */
const KAFKA_DOWN_MS = 30_000;
/** A call refused by the gateway's per-peer circuit answers at once; the peer's deadline is 5 s. */
const FAIL_FAST_MS = 1_000;
const log = (line: string) => console.log(`[degradation] ${line}`);

let kafka: OwnKafka;
let testMesh: TestMesh;
let credentials: Record<string, string>;

beforeAll(async () => {
  kafka = await startOwnKafka(log);
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: kafka.brokers,
    fleet: false,
    beforeStart: (databaseUrls) => putFleetOnShift(databaseUrls.dispatch, { cities: ["RUH"], busy: true }),
  });
  credentials = testMesh.credentials;
}, 300_000);

afterAll(async () => {
  await testMesh?.close();
  await kafka?.close();
}, 120_000);

/** A fresh SDK client: its first call asks the token endpoint. */
const merchant = (): ReturnType<TestMesh["sdkFor"]> => testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);

const processUrl = (name: string) => testMesh.mesh.processes.find((p) => p.name === name)!.url;
const readyStatus = async (name: string) => (await fetch(`${processUrl(name)}/readyz`)).status;

async function gatewayView(): Promise<{ status: number; services: Record<string, string> }> {
  const res = await fetch(`${testMesh.gatewayUrl}/readyz`);
  return { status: res.status, services: ((await res.json()) as { services: Record<string, string> }).services };
}

function shapeA(reference: string) {
  return {
    reference,
    pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
    destination: RIYADH_MALQA,
    recipient: { name: "Huda", mobile: "0512345600" },
    parcel: { description: "Books", pieces: 1, weightKg: 1 },
  };
}

/** Everything a merchant does that tracking and webhook are not needed for, each answered as usual. */
async function merchantBasicsWork(label: string): Promise<string> {
  const client = merchant();
  expect(await client.accessToken()).toMatch(/^ey/);
  expect((await client.me()).code).toEqual(expect.any(String));
  expect((await client.estimates.create({ pickup: RIYADH_OLAYA, delivery: RIYADH_MALQA })).price).toBeGreaterThan(0);
  const started = Date.now();
  const { shipment } = await client.shipments.create(shapeA(`DEG-${label}-${Date.now()}`));
  log(`${label}: create answered in ${Date.now() - started} ms`);
  const id = String(shipment.id);
  expect(await client.shipments.get(id)).toMatchObject({ notModified: false, shipment: { shipmentId: id } });
  expect((await client.shipments.page({})).data.map((s: { shipmentId: string }) => s.shipmentId)).toContain(id);
  return id;
}

/** A raw GET through the validating fetch: the 503 problem, its Retry-After, and how long it took. */
async function unavailable(path: string, token?: string): Promise<void> {
  const started = Date.now();
  const res = await fetch(`${testMesh.gatewayUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const ms = Date.now() - started;
  expect(res.status, path).toBe(503);
  expect(res.headers.get("retry-after"), path).toMatch(/^[1-9]\d*$/);
  const problem = (await res.json()) as Record<string, unknown>;
  expect(problemSchemaErrors(problem)).toEqual([]);
  expect(problem).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
  expect(ms, `${path} answered in ${ms} ms`).toBeLessThan(FAIL_FAST_MS);
  log(`${path.replace(/[A-Za-z0-9_-]{36,}/g, "…")}: 503 in ${ms} ms`);
}

describe("graceful degradation", () => {
  it("tracking killed: the gateway stays ready, only tracking's routes answer 503 with Retry-After, the rest as usual; back when it is", async () => {
    const client = merchant();
    const { shipment } = await client.shipments.create(shapeA(`DEG-TRK-${Date.now()}`));
    const id = String(shipment.id);
    const code = String(shipment.trackingUrl).split("/t/")[1]!;
    // The projection exists before the fault, so the read after recovery has something to show.
    await expect.poll(async () => (await fetch(`${testMesh.gatewayUrl}/v2/public/tracking/${code}`)).status, { timeout: 30_000 }).toBe(200);

    const tracking = testMesh.mesh.processes.find((p) => p.name === "tracking")!.child;
    const exited = new Promise((r) => tracking.once("exit", r));
    tracking.kill("SIGKILL");
    await exited;
    await expect.poll(async () => (await gatewayView()).services.tracking, { timeout: 10_000 }).toBe("down");

    expect((await gatewayView()).status).toBe(200);
    const token = await client.accessToken();
    await unavailable(`/v2/external/shipments/${id}/tracking`, token);
    await unavailable(`/v2/public/tracking/${code}`);
    const page = await fetch(`${testMesh.gatewayUrl}/t/${code}`);
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    await merchantBasicsWork("TRK");
    for (const name of SERVICES.filter((s) => s !== "tracking")) expect(await readyStatus(name), name).toBe(200);

    await testMesh.mesh.restart("tracking");
    await expect.poll(async () => (await fetch(`${testMesh.gatewayUrl}/v2/public/tracking/${code}`)).status, { timeout: 10_000 }).toBe(200);
    expect((await client.tracking.get(id)).shipmentId).toBe(id);
    expect((await gatewayView()).services.tracking).toBe("up");
  }, 180_000);

  it("Kafka down: the gateway and every service stay ready; token, /me, reads and a create work; the create's events follow once it is back", async () => {
    const client = merchant();
    const { shipment: before } = await client.shipments.create(shapeA(`DEG-KFK0-${Date.now()}`));
    const beforeId = String(before.id);
    await expect.poll(async () => (await fetch(`${testMesh.gatewayUrl}/v2/external/shipments/${beforeId}/tracking`, { headers: { authorization: `Bearer ${await client.accessToken()}` } })).status, { timeout: 30_000 }).toBe(200);
    await client.webhook.register({ url: "http://127.0.0.1:9/hooks" });

    const port = Number(kafka.brokers[0]!.split(":")[1]);
    const outage = kafka.outage(KAFKA_DOWN_MS);
    await expect.poll(() => portAccepts(port), { timeout: 60_000, interval: 200 }).toBe(false);
    log("broker down");

    expect((await gatewayView()).status).toBe(200);
    const createdWhileDown = await merchantBasicsWork("KFK");
    expect((await client.tracking.get(beforeId)).shipmentId).toBe(beforeId);
    expect((await client.webhook.get()).url).toBe("http://127.0.0.1:9/hooks");
    for (const name of SERVICES) expect(await readyStatus(name), name).toBe(200);
    expect((await gatewayView()).status).toBe(200);
    // Everything above happened while the broker was away, or the test proved nothing.
    expect(await portAccepts(port)).toBe(false);
    log("checks done while the broker was down");

    await outage;
    const topic = await watchShipmentEvents(kafka.brokers);
    try {
      await expect.poll(() => topic.events.some((e) => e.shipmentId === createdWhileDown), { timeout: 60_000, interval: 500 }).toBe(true);
    } finally {
      await topic.close();
    }
  }, 300_000);
});
