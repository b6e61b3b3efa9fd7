import { initTracing } from "@tawsil/logging";
import { beforeAll, describe, expect, it } from "vitest";
import { startPublishSpan } from "../src/publish-span";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const WRITER = "b7ad6b7169203331";
const record = (flags: string) => ({ eventId: "e-1", topic: "t", key: "k", type: "x", payload: new Uint8Array(), headers: { traceparent: `00-${TRACE}-${WRITER}-${flags}` } });

beforeAll(() => initTracing()); // as every process's main does (no endpoint: only sampled traces record)

describe("the relay's span of a record", () => {
  it("is none for an unsampled trace: the stored headers go out as they are", () => {
    const unsampled = record("00");
    const { span, headers } = startPublishSpan(unsampled);
    expect(span).toBeUndefined();
    expect(headers).toBe(unsampled.headers);
  });

  it("is none for a record written outside any trace", () => {
    expect(startPublishSpan({ ...record("01"), headers: {} }).span).toBeUndefined();
  });

  it("is a child of the writer's span for a sampled trace, and the record carries it to the consumer", () => {
    const { span, headers } = startPublishSpan(record("01"));
    expect(span?.isRecording()).toBe(true);
    const own = span!.spanContext().spanId;
    expect(headers.traceparent).toBe(`00-${TRACE}-${own}-01`);
    expect(own).not.toBe(WRITER);
    span!.end();
  });
});
