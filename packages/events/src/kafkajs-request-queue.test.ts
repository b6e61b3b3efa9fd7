/**
 * kafkajs 2.2.4's request queue, as patched in patches/kafkajs@2.2.4.patch: an idle connection
 * arms no timer. Released, every response started a 1 ms setTimeout loop that never ended (kafkajs
 * issues #1556 and #1704), about 1.5% of a core per idle process here.
 */
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";

interface Queue {
  push(request: { entry: { correlationId: number; resolve(): void; reject(): void }; expectResponse: boolean; sendRequest(): void; requestTimeout?: number }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  checkPendingRequests(): void;
  destroy(): void;
  readonly pending: readonly unknown[];
}

// Internal module: the queue is not exported, and the patch is exactly about it.
const RequestQueue = createRequire(import.meta.url)("kafkajs/src/network/requestQueue/index.js") as new (opts: object) => Queue;
const logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const queues: Queue[] = [];

function queue(): { queue: Queue; checks: () => number; sent: number[] } {
  const q = new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: "test", broker: "127.0.0.1:1", logger });
  queues.push(q);
  let checks = 0;
  const original = q.checkPendingRequests.bind(q);
  q.checkPendingRequests = () => {
    checks++;
    original();
  };
  const sent: number[] = [];
  return { queue: q, checks: () => checks, sent };
}

const request = (correlationId: number, sent: number[]) => ({ entry: { correlationId, resolve: () => {}, reject: () => {} }, expectResponse: true, sendRequest: () => sent.push(correlationId) });

afterEach(() => {
  for (const q of queues.splice(0)) q.destroy();
});

describe("kafkajs request queue (patched)", () => {
  it("checks nothing once the last response arrived: no timer loop on an idle connection", async () => {
    const { queue: q, checks, sent } = queue();
    q.push(request(1, sent));
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    const afterResponse = checks();
    await sleep(100);
    // Released, the 1 ms loop ran here dozens of times.
    expect(checks()).toBe(afterResponse);
    expect(sent).toEqual([1]);
  });

  it("still sends a request held back by the in-flight limit when the one before it is answered", async () => {
    const { queue: q, sent } = queue();
    q.push(request(1, sent));
    q.push(request(2, sent));
    expect(sent).toEqual([1]);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1, 2]);
  });

  it("still sends a request held back by the broker's throttling once the throttle ends", async () => {
    const { queue: q, sent } = queue();
    q.maybeThrottle(40);
    q.push(request(1, sent));
    expect(sent).toEqual([]);
    await sleep(120);
    expect(sent).toEqual([1]);
    expect(q.pending).toHaveLength(0);
  });
});
