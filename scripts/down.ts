/** `make down`: asks a running `make dev` to stop everything it started, and waits until it has. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PID_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".dev", "dev.pid");

if (!existsSync(PID_FILE)) {
  console.log("make dev is not running");
  process.exit(0);
}
const pid = Number(readFileSync(PID_FILE, "utf8"));
try {
  process.kill(pid, "SIGTERM");
} catch {
  console.log("make dev is not running");
  process.exit(0);
}
const deadline = Date.now() + 60_000;
while (Date.now() < deadline) {
  try {
    process.kill(pid, 0);
  } catch {
    console.log("stopped");
    process.exit(0);
  }
  await new Promise((r) => setTimeout(r, 200));
}
console.error(`make dev (pid ${pid}) did not stop within 60 s`);
process.exit(1);
