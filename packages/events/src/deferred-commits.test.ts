import { describe, expect, it } from "vitest";
import { DeferredCommits } from "./deferred-commits";

type Offsets = { topic: string; partition: number; offset: string }[];

/** A consumer whose commits are recorded, each ending when the test says. */
function recordingConsumer() {
  const commits: Offsets[] = [];
  const pending: { resolve: () => void; reject: (err: Error) => void }[] = [];
  return {
    commits,
    pending,
    consumer: {
      commitOffsets: (offsets: Offsets) => {
        commits.push(offsets);
        return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
      },
    },
  };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("deferred offset commits", () => {
  it("commits what became ready within the delay in one request, the latest offset of each partition", async () => {
    const { consumer, commits, pending } = recordingConsumer();
    const deferred = new DeferredCommits(consumer, 20, () => {});
    deferred.add("t", 0, "5");
    deferred.add("t", 0, "6");
    deferred.add("t", 1, "3");
    deferred.add("u", 0, "9");
    expect(commits).toEqual([]);
    await tick(40);
    expect(commits).toEqual([
      [
        { topic: "t", partition: 0, offset: "6" },
        { topic: "t", partition: 1, offset: "3" },
        { topic: "u", partition: 0, offset: "9" },
      ],
    ]);
    pending[0]!.resolve();
  });

  it("sends a commit only after the one before it ended, so an older offset never lands after a newer one", async () => {
    const { consumer, commits, pending } = recordingConsumer();
    const errors: unknown[] = [];
    const deferred = new DeferredCommits(consumer, 5, (err) => errors.push(err));
    deferred.add("t", 0, "1");
    void deferred.flush();
    await tick(1);
    deferred.add("t", 0, "2");
    const second = deferred.flush();
    await tick(20);
    expect(commits).toHaveLength(1);
    // The first fails (a rebalance): reported, and the next one still goes.
    pending[0]!.reject(new Error("rebalance in progress"));
    await tick(1);
    expect(commits).toEqual([[{ topic: "t", partition: 0, offset: "1" }], [{ topic: "t", partition: 0, offset: "2" }]]);
    pending[1]!.resolve();
    await second;
    expect(errors).toHaveLength(1);
  });

  it("commits at once when flushed (a stop), and sends nothing when nothing is ready", async () => {
    const { consumer, commits, pending } = recordingConsumer();
    const deferred = new DeferredCommits(consumer, 60_000, () => {});
    await deferred.flush();
    expect(commits).toEqual([]);
    deferred.add("t", 0, "8");
    const flushed = deferred.flush();
    await tick(1);
    expect(commits).toEqual([[{ topic: "t", partition: 0, offset: "8" }]]);
    pending[0]!.resolve();
    await flushed;
  });

  it("forgets what is not committed yet when told (a rebalance): nothing of it is sent later", async () => {
    const { consumer, commits } = recordingConsumer();
    const deferred = new DeferredCommits(consumer, 10, () => {});
    deferred.add("t", 0, "4");
    deferred.discard();
    await tick(30);
    await deferred.flush();
    expect(commits).toEqual([]);
  });
});
