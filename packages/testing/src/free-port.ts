import net from "node:net";

/**
 * Ports handed out here: below the kernel's ephemeral range (32768-60999 on Linux), which serves
 * every outbound connection, every `listen(0)` and podman's published container ports. A port
 * picked there and released for a process to bind a moment later could be taken by any of those
 * meanwhile (a clean-clone run saw a service fail with EADDRINUSE); below it, only another picker
 * of ours can race, and it checks the same way. Clear of the test containers' range (20000-32000).
 */
const RANGE = { from: 10_000, to: 19_999 } as const;

/** Ports this process handed out: never twice, though a caller may not have bound one yet (meshes pick many at once). */
const handedOut = new Set<number>();

/** A TCP port that was free a moment ago, for processes that must be told their port up front. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = RANGE.from + Math.floor(Math.random() * (RANGE.to - RANGE.from + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canBind(port)) return port;
  }
  throw new Error(`no free port in ${RANGE.from}-${RANGE.to}`);
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
