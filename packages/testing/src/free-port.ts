import { closeSync, mkdirSync, openSync, rmSync, statSync, utimesSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * Ports handed out here: below the kernel's ephemeral range (32768-60999 on Linux), which serves
 * every outbound connection, every `listen(0)` and podman's published container ports. A port
 * picked there and released for a process to bind a moment later could be taken by any of those
 * meanwhile (a clean-clone run saw a service fail with EADDRINUSE); below it, only another picker
 * of ours can race. Clear of the test containers' range (20000-32000).
 */
const RANGE: PortRange = { from: 10_000, to: 19_999 };

/**
 * Pickers in other processes (vitest's workers, a second checkout's run on the same machine) see
 * a port as free between its pick and its bind too, so each pick also reserves the port with a
 * file created exclusively here. A reservation outlives the window between pick and bind by far
 * (a mesh binds within seconds of its picks); after that the bind itself is what `canBind` sees.
 */
const RESERVATIONS = path.join(os.tmpdir(), "tawsil-port-reservations");
const RESERVATION_MS = 120_000;

/** Inclusive bounds of the ports a picker may hand out. */
export interface PortRange {
  readonly from: number;
  readonly to: number;
}

/** Ports this process handed out: never twice, though a caller may not have bound one yet (meshes pick many at once). */
const handedOut = new Set<number>();

/** A TCP port that was free a moment ago, for processes that must be told their port up front. */
export function freePort(): Promise<number> {
  return freePortIn(RANGE, "127.0.0.1");
}

/** A port of `range` that `host` could bind a moment ago, never one a picker here or in another process handed out recently. */
export async function freePortIn(range: PortRange, host: string): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = range.from + Math.floor(Math.random() * (range.to - range.from + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (reserve(port) && (await canBind(port, host))) return port;
  }
  throw new Error(`no free port in ${range.from}-${range.to}`);
}

/** True when no other process reserved `port` within the last RESERVATION_MS; reserves it. */
export function reserve(port: number, now = Date.now()): boolean {
  mkdirSync(RESERVATIONS, { recursive: true });
  const file = path.join(RESERVATIONS, String(port));
  const create = () => {
    closeSync(openSync(file, "wx"));
    utimesSync(file, now / 1000, now / 1000);
    return true;
  };
  try {
    return create();
  } catch {
    // Reserved before: taken over only once the reservation is stale, by exactly one picker
    // (whoever removes and recreates it first; the loser's exclusive create fails).
    try {
      if (now - statSync(file).mtimeMs < RESERVATION_MS) return false;
      rmSync(file, { force: true });
      return create();
    } catch {
      return false;
    }
  }
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
