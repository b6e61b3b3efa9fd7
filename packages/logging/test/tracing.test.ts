import { ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { OtlpReceiver } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTracerProvider } from "../src/tracing";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
/** A caller's context whose trace it asks to be recorded (a traceparent with the sampled flag). */
const sampledParent = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED, isRemote: true });

let receiver: OtlpReceiver;
let endpoint: string;
beforeAll(async () => {
  receiver = new OtlpReceiver();
  endpoint = await receiver.listen();
});
afterAll(() => receiver.close());

describe("tracing without an endpoint", () => {
  it("exports nothing, even a sampled trace, and never samples a new root", async () => {
    // The SDK reads this variable itself when an exporter is built without a URL: none may be built.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    try {
      const provider = createTracerProvider({ serviceName: "test" });
      const tracer = provider.getTracer("test");
      const root = tracer.startSpan("root");
      expect(root.isRecording()).toBe(false);
      expect(root.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(0);
      expect(trace.isSpanContextValid(root.spanContext())).toBe(true); // ids for logs and propagation all the same
      root.end();
      tracer.startSpan("asked for", {}, sampledParent).end();
      await provider.forceFlush();
      await provider.shutdown();
      expect(receiver.requests).toBe(0);
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    }
  });
});

describe("tracing with an endpoint", () => {
  it("exports a sampled trace's spans under the service's name, and follows the caller's decision", async () => {
    const provider = createTracerProvider({ serviceName: "shipment", endpoint, rootRatio: 0 });
    const tracer = provider.getTracer("test");
    const root = tracer.startSpan("root");
    expect(root.isRecording()).toBe(false);
    root.end();
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, { ...trace.getSpanContext(sampledParent)!, traceFlags: TraceFlags.NONE });
    expect(tracer.startSpan("not asked", {}, unsampled).isRecording()).toBe(false);
    const child = tracer.startSpan("asked for", {}, sampledParent);
    expect(child.isRecording()).toBe(true);
    child.end();
    await provider.shutdown(); // flushes the batch, as a process's last closer does
    expect(receiver.spans).toEqual([expect.objectContaining({ service: "shipment", name: "asked for", traceId: TRACE_ID, parentSpanId: "b7ad6b7169203331" })]);
  });

  it("samples new roots at the ratio", async () => {
    const always = createTracerProvider({ serviceName: "gateway", endpoint, rootRatio: 1 });
    expect(always.getTracer("test").startSpan("root").isRecording()).toBe(true);
    await always.shutdown();
  });
});
