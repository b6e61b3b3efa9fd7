import { randomBytes, randomUUID } from "node:crypto";
import { OtlpReceiver, type ReceivedSpan } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { RecordingReceiver } from "./support/recording-receiver";
import { startTestMesh, type TestMesh } from "./support/test-mesh";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

/**
 * Issue 32 point 6: every process exports its spans to OTEL_EXPORTER_OTLP_ENDPOINT (here a local
 * receiver standing in for the collector), and one create through the gateway, sampled by its
 * caller's traceparent, arrives as one trace: the gateway's request, shipment's RPC and its call to
 * pricing, shipment's relay publishing the event, and the consumers of dispatch, tracking and
 * webhook (the merchant has a webhook: webhook skips, without a span, the events of one without),
 * then webhook's delivery attempt, each span's parent a span of the same trace.
 */
let testMesh: TestMesh;
const receiver = new OtlpReceiver();
const merchantHooks = new RecordingReceiver();

beforeAll(async () => {
  const endpoint = await receiver.listen();
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    gatewayEnv: () => ({ OTEL_TRACES_SAMPLER_RATIO: "1" }),
  });
}, 180_000);
afterAll(async () => {
  await testMesh?.close();
  await receiver.close();
  await merchantHooks.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/** Where each hop of a create shows in its trace. */
const HOPS: Record<string, (span: ReceivedSpan) => boolean> = {
  "gateway's request": (s) => s.service === "gateway" && s.kind === SERVER && s.name === "HTTP POST",
  "shipment's create": (s) => s.service === "shipment" && s.kind === SERVER && s.name.endsWith("ShipmentService/CreateShipment"),
  "pricing's quote": (s) => s.service === "pricing" && s.kind === SERVER && s.name.includes("PricingService/"),
  "shipment's relay": (s) => s.service === "shipment" && s.kind === PRODUCER && s.name === `publish ${SHIPMENT_EVENTS_TOPIC}`,
  "dispatch's consumer": (s) => s.service === "dispatch" && s.kind === CONSUMER && s.name === `consume ${SHIPMENT_EVENTS_TOPIC}`,
  "tracking's consumer": (s) => s.service === "tracking" && s.kind === CONSUMER && s.name === `consume ${SHIPMENT_EVENTS_TOPIC}`,
  "webhook's consumer": (s) => s.service === "webhook" && s.kind === CONSUMER && s.name === `consume ${SHIPMENT_EVENTS_TOPIC}`,
  "webhook's attempt": (s) => s.service === "webhook" && s.kind === CLIENT && s.name === "webhook attempt",
};
const missing = (spans: readonly ReceivedSpan[]) => Object.keys(HOPS).filter((hop) => !spans.some(HOPS[hop]!));

describe("traces", () => {
  it("one create is one trace across the gateway, shipment, pricing, the relay and every consumer", async () => {
    const { credentials } = testMesh;
    await testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!).webhook.register({ url: await merchantHooks.listen("/hooks") });
    const token = await testMesh.tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const traceId = randomBytes(16).toString("hex");
    const callerSpanId = randomBytes(8).toString("hex");
    const created = await fetch(`${testMesh.gatewayUrl}/v2/external/shipments`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": randomUUID(), traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({
        reference: `TRACE-${randomUUID().slice(0, 8)}`,
        pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
        destination: { latitude: 24.774265, longitude: 46.738586 },
        recipient: { name: "Huda", mobile: "0512345600" },
      }),
    });
    expect(created.status).toBe(201);

    // Each process exports in batches (every 5 s by default).
    const deadline = Date.now() + 45_000;
    while (missing(receiver.trace(traceId)).length > 0 && Date.now() < deadline) await sleep(500);
    const spans = receiver.trace(traceId);
    expect(missing(spans), `the trace's spans: ${JSON.stringify(spans)}`).toEqual([]);

    // One root, the gateway's request, a child of the caller's span; every other span's parent is in the trace.
    const ids = new Set(spans.map((s) => s.spanId));
    const orphans = spans.filter((s) => !ids.has(s.parentSpanId));
    expect(orphans).toEqual([expect.objectContaining({ service: "gateway", name: "HTTP POST", parentSpanId: callerSpanId })]);
    // The consumers' spans are children of the relay's: the record carried the relay's span, not the writer's.
    const relay = spans.filter(HOPS["shipment's relay"]!).map((s) => s.spanId);
    for (const hop of ["dispatch's consumer", "tracking's consumer", "webhook's consumer"]) {
      expect(relay, hop).toContain(spans.find(HOPS[hop]!)!.parentSpanId);
    }
  }, 90_000);
});
