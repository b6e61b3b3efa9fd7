import net from "node:net";

/**
 * Ports handed out here: below the kernel's ephemeral range (32768-60999 on Linux), which serves
 * every outbound connection, every `listen(0)` and podman's published container ports. A port
 * picked there and released for a process to bind a moment later could be taken by any of those
 * meanwhile (a clean-clone run saw a service fail with EADDRINUSE); below it, only another picker
 * of ours can race, and it checks the same way. Clear of the test containers' range (20000-32000).
 */
const RANGE: PortRange = { from: 10_000, to: 19_999 };

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

/** A port of `range` that `host` could bind a moment ago, never one this process handed out before. */
export async function freePortIn(range: PortRange, host: string): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = range.from + Math.floor(Math.random() * (range.to - range.from + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canBind(port, host)) return port;
  }
  throw new Error(`no free port in ${range.from}-${range.to}`);
}

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
