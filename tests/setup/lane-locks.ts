import os from "node:os";
import path from "node:path";

/** Where the end-to-end lane of `brokers` is locked (tests/e2e/support/lane.ts); unique per broker, so per run. */
export function laneLockDir(brokers: readonly string[]): string {
  return path.join(os.tmpdir(), `tawsil-e2e-lane-${brokers.join("_").replace(/[^A-Za-z0-9]/g, "-")}`);
}
