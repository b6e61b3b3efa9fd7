/**
 * The ports a `make dev` needs, checked and claimed before it starts anything, so that a second
 * `make dev` (another checkout, same ports) refuses at once with the reason instead of leaving a
 * half-started mesh, and never shares another checkout's Kafka broker (the meshes use the same
 * topics and consumer groups, so two on one broker would split each other's events).
 *
 * A claim is a file per port in the OS temp folder naming the claiming process and checkout,
 * created exclusively (two `make dev` starting in the same second cannot both win); a claim
 * whose process is gone is stale and taken over. A port no claim covers is then bound once to
 * prove it free of anything else.
 */
import { readdirSync, readFileSync, readlinkSync, rmSync, mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { alive } from "../../packages/testing/src/pid-alive";

export interface PortNeed {
  /** What uses it, e.g. "gateway" or "Kafka controller". */
  readonly what: string;
  readonly port: number;
  /** The setting that moves it, e.g. GATEWAY_PORT. */
  readonly setting: string;
}

interface Claim {
  readonly pid: number;
  readonly checkout: string;
  readonly what: string;
}

export class PortsTaken extends Error {}

const CLAIMS_DIR = path.join(os.tmpdir(), "tawsil-dev-ports");

/** Claims every port or none; throws PortsTaken listing each taken port, its holder and its setting. */
export async function claimPorts(needs: readonly PortNeed[], checkout: string): Promise<{ release(): void }> {
  mkdirSync(CLAIMS_DIR, { recursive: true });
  const claimed: string[] = [];
  const release = () => {
    for (const file of claimed.splice(0)) rmSync(file, { force: true });
  };
  const taken: string[] = [];
  for (const need of needs) {
    const holder = claim(need, checkout, claimed) ?? (await boundBy(need.port));
    if (holder) taken.push(`  ${need.what} port ${need.port} (${need.setting}): ${holder}`);
  }
  if (taken.length > 0) {
    release();
    const settings = [...new Set(needs.map((n) => n.setting))].join(", ");
    throw new PortsTaken(
      `ports this make dev needs are taken; nothing was started:\n${taken.join("\n")}\n` +
        `Stop what holds them, or choose other ports with ${settings} (e.g. GATEWAY_PORT=8180 FIRST_SERVICE_PORT=7101 KAFKA_PORT=9192 KAFKA_CONTROLLER_PORT=9193 make dev).`,
    );
  }
  process.once("exit", release);
  return { release };
}

/** Takes the port's claim file; returns who holds it when another live process does. */
function claim(need: PortNeed, checkout: string, claimed: string[]): string | undefined {
  const file = path.join(CLAIMS_DIR, `${need.port}.json`);
  const mine: Claim = { pid: process.pid, checkout, what: need.what };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(mine), { flag: "wx" });
      claimed.push(file);
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const other = readClaim(file);
    if (other && alive(other.pid)) return `held by make dev of the checkout ${other.checkout} (pid ${other.pid}, its ${other.what})`;
    rmSync(file, { force: true }); // stale: its process is gone
  }
  return "claimed by another make dev starting right now";
}

function readClaim(file: string): Claim | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Claim;
  } catch {
    return undefined; // being written, or gone
  }
}


/** Undefined when 127.0.0.1:port can be bound, else a description of what holds it. */
async function boundBy(port: number): Promise<string | undefined> {
  const free = await new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
  return free ? undefined : `in use by ${listenerOf(port) ?? "another process"}`;
}

/** "pid 123 (node dist/main.mjs in /work/x/services/merchant)" from /proc, when it can be read (Linux, same user). */
export function listenerOf(port: number): string | undefined {
  try {
    const inodes = new Set<string>();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let text: string;
      try {
        text = readFileSync(table, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n").slice(1)) {
        const cols = line.trim().split(/\s+/);
        // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; column 9 is the socket's inode.
        if (cols.length > 9 && cols[3] === "0A" && parseInt(cols[1]!.split(":")[1]!, 16) === port) inodes.add(cols[9]!);
      }
    }
    if (inodes.size === 0) return undefined;
    for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue; // another user's process, or gone
      }
      for (const fd of fds) {
        let target: string;
        try {
          target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode && inodes.has(inode)) return describeProcess(Number(pid));
      }
    }
  } catch {
    // /proc unreadable: the caller says "another process"
  }
  return undefined;
}

function describeProcess(pid: number): string {
  const read = (fn: () => string) => {
    try {
      return fn();
    } catch {
      return "?";
    }
  };
  const command = read(() => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" "));
  const cwd = read(() => readlinkSync(`/proc/${pid}/cwd`));
  const short = command.length > 80 ? `${command.slice(0, 77)}...` : command;
  return `pid ${pid} (${short} in ${cwd})`;
}
