import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { restartAfterCrash } from "./crash-restart";

const log = { error: () => {}, warn: () => {} } as unknown as Parameters<typeof restartAfterCrash>[2];

function fakeConsumer() {
  const emitter = new EventEmitter();
  const consumer = {
    events: { CRASH: "consumer.crash" },
    on: (event: string, listener: (e: unknown) => void) => emitter.on(event, listener),
    disconnect: async () => {},
  } as unknown as Parameters<typeof restartAfterCrash>[0];
  const crash = (restart: boolean) => emitter.emit("consumer.crash", { payload: { error: new Error("Failed to find group coordinator"), groupId: "g", restart } });
  return { consumer, crash };
}

describe("restarting a crashed consumer", () => {
  it("starts again after a crash kafkajs will not restart, retrying until the start succeeds", async () => {
    const { consumer, crash } = fakeConsumer();
    let starts = 0;
    restartAfterCrash(consumer, async () => {
      starts++;
      if (starts < 2) throw new Error("broker still down");
    }, log, () => false, 5, 10);
    crash(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(starts).toBe(2);
  });

  it("leaves kafkajs's own restarts alone, and a stopped consumer stopped", async () => {
    const { consumer, crash } = fakeConsumer();
    let starts = 0;
    let stopped = false;
    restartAfterCrash(consumer, async () => void starts++, log, () => stopped, 5);
    crash(true);
    stopped = true;
    crash(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(starts).toBe(0);
  });
});
