/**
 * A Kafka broker of the fault suite's own, on free ports, that the suite can stop and start again
 * with its data kept (topics, offsets, consumer groups), as an outage of the real broker would.
 * `ensureKafka` starts it; a restart re-runs the very command line the JVM was started with.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "../../../packages/testing/src/free-port";
import { describeBroker, ensureKafka } from "../../../scripts/infra/kafka";

export interface OwnKafka {
  readonly brokers: string[];
  /** SIGTERM (controlled shutdown), `downMs` with no broker, then the same broker again; resolves once it answers. */
  outage(downMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startOwnKafka(log: (line: string) => void): Promise<OwnKafka> {
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
      const deadline = Date.now() + 120_000;
      while (!(await describeBroker(port).catch(() => undefined))) {
        if (Date.now() > deadline || respawned.exitCode !== null) throw new Error("the restarted broker did not answer");
        await new Promise((r) => setTimeout(r, 500));
      }
    },
    async close() {
      if (respawned) await stopChild(respawned);
      await handle.stop();
    },
  };
}
