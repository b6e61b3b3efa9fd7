/**
 * `make dev` from a warm checkout, timed by the bench from outside: a new process that starts the
 * same stack (DevStack) on the bench's existing databases, prints "ready" once it is seeded and
 * ready, then stops it. Options arrive as JSON in BENCH_STACK_OPTIONS.
 */
import { spawn } from "node:child_process";
import { DevStack, type DevStackOptions } from "../dev";
import { ROOT } from "./setup";

/** Seconds from spawning the process to its "ready" line; the stack is stopped again before this resolves. */
export async function measureWarmStart(opts: Omit<DevStackOptions, "log">): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/bench/warm-start.ts"], {
    cwd: ROOT,
    env: { ...process.env, BENCH_STACK_OPTIONS: JSON.stringify({ ...opts, freshDatabases: false }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let readyAt: number | undefined;
  child.stdout?.on("data", (chunk: Buffer) => {
    if (readyAt === undefined && chunk.toString().includes("ready")) readyAt = performance.now();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (readyAt === undefined) throw new Error(`the warm start exited (${code}) without getting ready`);
  return (readyAt - started) / 1000;
}

if (process.env.BENCH_STACK_OPTIONS && process.argv[1]?.endsWith("warm-start.ts")) {
  const opts = JSON.parse(process.env.BENCH_STACK_OPTIONS) as Omit<DevStackOptions, "log">;
  const stack = new DevStack({ ...opts, log: () => {} });
  try {
    await stack.start();
    console.log("ready");
  } catch (err) {
    console.error(`warm start failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}
