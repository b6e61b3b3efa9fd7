/**
 * The end-to-end files run two at a time (vitest.config.ts), each on a broker of its own lane: a
 * mesh uses the architecture's fixed topics and consumer groups, so two meshes on one broker would
 * split each other's events (a create consumed by the other mesh's dispatch is never offered).
 *
 * A file claims a lane for its whole process (each file runs in a process of its own): the lane's
 * lock directory, holding the claimant's pid, renamed into place (atomic: it fails while another
 * holds it), removed at exit, and taken over when the pid it names is gone. Vitest's worker number (VITEST_POOL_ID) only says which lane to
 * try first: a full run once gave two concurrent files the same number, and their meshes shared a
 * broker.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { alive } from "@tawsil/testing";
import { laneLockDir } from "../../setup/lane-locks";

let claimed: string[] | undefined;

export function laneBrokers(): string[] {
  if (claimed) return claimed;
  const lanes = [inject("kafkaBrokers"), inject("e2eSecondBrokers")].filter((brokers) => brokers.length > 0);
  if (lanes.length === 0) throw new Error("this run started no Kafka broker");
  const first = (Number(process.env.VITEST_POOL_ID ?? "1") - 1 + lanes.length) % lanes.length;
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    for (let i = 0; i < lanes.length; i++) {
      const brokers = lanes[(first + i) % lanes.length]!;
      if (claim(laneLockDir(brokers))) return (claimed = brokers);
    }
    if (Date.now() > deadline) throw new Error(`no free end-to-end lane within 15 min (${lanes.length} lane(s), each held by a live process)`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  }
}

/** Takes the lane's lock for this process, or answers false while a live process holds it. */
function claim(dir: string): boolean {
  if (create(dir)) return true;
  const holder = Number(readHolder(dir));
  if (holder === process.pid) return true;
  if (Number.isInteger(holder) && holder > 0 && alive(holder)) return false;
  // Its holder died without releasing it (killed): free it, and race the others for it once more.
  rmSync(dir, { recursive: true, force: true });
  return create(dir);
}

/** The lock, made whole (with its pid) elsewhere and renamed into place: a directory that holds a file cannot be renamed over. */
function create(dir: string): boolean {
  const draft = `${dir}.${process.pid}.draft`;
  rmSync(draft, { recursive: true, force: true });
  mkdirSync(draft);
  writeFileSync(path.join(draft, "pid"), String(process.pid));
  try {
    renameSync(draft, dir);
  } catch {
    rmSync(draft, { recursive: true, force: true });
    return false;
  }
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return true;
}

function readHolder(dir: string): string {
  try {
    return readFileSync(path.join(dir, "pid"), "utf8");
  } catch {
    return "";
  }
}
