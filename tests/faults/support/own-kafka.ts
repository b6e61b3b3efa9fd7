/**
 * A Kafka broker of the fault suite's own, on free ports, that the suite can stop and start again
 * with its data kept (topics, offsets, consumer groups), as an outage of the real broker would.
 * A container of the run's when the run took the container path (stopped with SIGTERM, a
 * controlled shutdown, and started again: same port, same storage), else a native broker:
 * `ensureKafka` starts it, and a restart re-runs the very command line the JVM was started with.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { freePort } from "../../../packages/testing/src/free-port";
import { startKafkaContainer } from "../../../packages/testing/src/containers/containers";
import { removeContainer, startContainer, stopContainer } from "../../../packages/testing/src/containers/engine-api";
import { useEngine } from "../../../packages/testing/src/containers/runtime";
import { describeBroker, ensureKafka } from "../../../packages/testing/src/infra/kafka";
import type { ContainerRun } from "../../setup/container-infra";

export interface OwnKafka {
  readonly brokers: string[];
  /** SIGTERM (controlled shutdown), `downMs` with no broker, then the same broker again; resolves once it answers. */
  outage(downMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOwnKafka(log: (line: string) => void): Promise<OwnKafka> {
  const run = inject("testInfra").containers;
  return run ? startContainerKafka(run) : startNativeKafka(log);
}

async function untilBrokerAnswers(port: number, running: () => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await describeBroker(port).catch(() => undefined))) {
    if (Date.now() > deadline || !running()) throw new Error("the restarted broker did not answer");
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function startContainerKafka(run: ContainerRun): Promise<OwnKafka> {
  useEngine(run.path);
  const host = run.path.dockerHost;
  const { brokers, container } = await startKafkaContainer(run.images, run.labels);
  const port = Number(brokers[0]!.split(":")[1]);
  return {
    brokers,
    async outage(downMs) {
      await stopContainer(host, container.getId(), 30);
      await new Promise((r) => setTimeout(r, downMs));
      await startContainer(host, container.getId());
      await untilBrokerAnswers(port, () => true);
    },
    close: () => removeContainer(host, container.getId()),
  };
}

async function startNativeKafka(log: (line: string) => void): Promise<OwnKafka> {
  const handle = await ensureKafka({ port: await freePort(), controllerPort: await freePort(), log });
  if (!handle.startedHere || handle.pid === undefined || !handle.dataDir) throw new Error("expected a broker of our own");
  const argv = readFileSync(`/proc/${handle.pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  const port = Number(handle.brokers[0]!.split(":")[1]);
  let respawned: ChildProcess | undefined;
  const stopChild = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const force = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(force);
  };
  return {
    brokers: handle.brokers,
    async outage(downMs) {
      // Other runs' ensureKafka sweeps data dirs whose broker.pid names a dead process: while the
      // broker is down, the dir names this (live) test process, then the respawned broker.
      const pidFile = path.join(handle.dataDir!, "broker.pid");
      writeFileSync(pidFile, `${process.pid}\n`);
      if (respawned) await stopChild(respawned);
      else {
        process.kill(handle.pid!, "SIGTERM");
        await handle.exited;
      }
      await new Promise((r) => setTimeout(r, downMs));
      const out = openSync(path.join(handle.dataDir!, "console.log"), "a");
      // setpriv ties the broker's life to ours, as ensureKafka does, so a crashed run leaves no JVM.
      const setpriv = existsSync("/usr/bin/setpriv") ? ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--"] : [];
      const [cmd, ...args] = [...setpriv, ...argv];
      respawned = spawn(cmd!, args, { stdio: ["ignore", out, out] });
      closeSync(out);
      writeFileSync(pidFile, `${respawned.pid ?? process.pid}\n`);
      const child = respawned;
      await untilBrokerAnswers(port, () => child.exitCode === null);
    },
    async close() {
      if (respawned) await stopChild(respawned);
      await handle.stop();
    },
  };
}
