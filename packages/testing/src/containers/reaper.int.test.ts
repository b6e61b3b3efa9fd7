/**
 * Nothing of a run is left behind, also when the run dies without its teardown: its reaper removes
 * its containers (and so their conmon processes) once the owner is SIGKILLed, and a later run's
 * sweep removes a dead run's containers while leaving a live run's alone.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { GenericContainer, Wait } from "testcontainers";
import { describe, expect, inject, it } from "vitest";
import { listContainers, removeRunContainers, RUN_LABEL } from "./engine-api";
import { runLabels, sweepDeadRuns } from "./reaper";
import { useEngine } from "./runtime";

const run = inject("testInfra").containers;
const HERE = path.dirname(fileURLToPath(import.meta.url));

async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** conmon processes (podman's per-container monitors) that name the container. */
function conmonsOf(containerId: string): number {
  return readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return path.basename(argv[0] ?? "") === "conmon" && argv.some((arg) => arg.includes(containerId));
    } catch {
      return false; // exited meanwhile
    }
  }).length;
}

const ofRun = async (runId: string) => (run ? listContainers(run.path.dockerHost, [`${RUN_LABEL}=${runId}`]) : []);

describe.skipIf(run === null)("cleanup of a test run's containers", () => {
  it("the reaper removes a run's containers, and podman's conmon with them, once its owner is SIGKILLed", async () => {
    const runId = `reaper-test-${randomUUID()}`;
    const owner = spawn(process.execPath, ["--import", "tsx", path.join(HERE, "fixtures", "owner-that-hangs.ts")], {
      env: { ...process.env, TAWSIL_FIXTURE_RUN: JSON.stringify(run), TAWSIL_FIXTURE_RUN_ID: runId },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const containerId = await new Promise<string>((resolve, reject) => {
        owner.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
        owner.once("exit", (code) => reject(new Error(`the owner exited (${code}) before starting its container`)));
      });
      expect((await ofRun(runId)).map((c) => [c.Id, c.State])).toEqual([[containerId, "running"]]);
      if (run!.path.kind === "podman") expect(conmonsOf(containerId)).toBe(1);

      owner.kill("SIGKILL");
      await until(async () => (await ofRun(runId)).length === 0, "the reaper to remove the run's container");
      if (run!.path.kind === "podman") await until(() => conmonsOf(containerId) === 0, "the container's conmon to exit", 10_000);
    } finally {
      owner.kill("SIGKILL");
      await removeRunContainers(run!.path.dockerHost, runId);
    }
  }, 120_000);

  it("a sweep removes the containers of a run whose owner is dead and keeps a live run's", async () => {
    useEngine(run!.path);
    const dead = spawn("true");
    await new Promise((r) => dead.once("exit", r));
    const [deadRun, liveRun] = [`sweep-dead-${randomUUID()}`, `sweep-live-${randomUUID()}`];
    const start = (labels: Record<string, string>) =>
      new GenericContainer(run!.images.postgres)
        .withCommand(["sh", "-c", "echo up; exec sleep infinity"])
        .withLabels(labels)
        .withWaitStrategy(Wait.forLogMessage("up"))
        .start();
    try {
      await Promise.all([start(runLabels(deadRun, dead.pid!)), start(runLabels(liveRun))]);
      expect(await sweepDeadRuns(run!.path.dockerHost)).toBeGreaterThanOrEqual(1);
      expect(await ofRun(deadRun)).toEqual([]);
      expect((await ofRun(liveRun)).map((c) => c.State)).toEqual(["running"]);
    } finally {
      await Promise.all([deadRun, liveRun].map((id) => removeRunContainers(run!.path.dockerHost, id)));
    }
  }, 120_000);
});
