import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/**
 * Runs `./tawsil` as an operator would from a fresh shell: a PATH without pnpm (only where node
 * is), no admin URL in the environment, and `credentials` as its .dev/credentials.env (by
 * TAWSIL_CREDENTIALS_FILE; `undefined`: a file that names nothing). For the CLI's tests.
 */
export async function runTawsil(args: readonly string[], credentials: Record<string, string> | undefined): Promise<{ code: number; out: string[]; err: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tawsil-cli-"));
  const file = path.join(dir, "credentials.env");
  writeFileSync(file, Object.entries(credentials ?? {}).map(([key, value]) => `${key}=${value}\n`).join(""));
  const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: os.homedir(), TAWSIL_CREDENTIALS_FILE: file };
  try {
    return await new Promise((resolve) => {
      execFile(path.join(ROOT, "tawsil"), [...args], { env, cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
        const lines = (text: string) => text.split("\n").filter((line) => line !== "");
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out: lines(stdout), err: lines(stderr) });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
