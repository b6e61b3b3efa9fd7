/**
 * A machine-wide lock between checkouts (two `make test` at once), held by a `flock` child: it
 * takes the lock, says so, and keeps it until its stdin closes, which also happens when this
 * process dies, so a crashed holder never leaves the lock taken.
 */
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";

const LOCK_DIR = "/run/lock";

export async function withMachineLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  mkdirSync(LOCK_DIR, { recursive: true });
  const holder = spawn("flock", ["-x", path.join(LOCK_DIR, `${name}.lock`), "-c", "echo locked; cat >/dev/null"], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    holder.once("error", reject);
    holder.once("exit", (code) => reject(new Error(`flock exited (${code}) before taking ${name}`)));
    holder.stdout.once("data", () => resolve());
  });
  try {
    return await fn();
  } finally {
    holder.removeAllListeners("exit");
    holder.stdin.end();
  }
}
