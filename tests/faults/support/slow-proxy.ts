/**
 * A TCP proxy (node:net) between the gateway and one service: a slow peer on demand. With a delay
 * set, every chunk in either direction is held that long (in order), so calls outlast the
 * gateway's deadline without the service itself being slow. It counts open connections and held
 * chunks, so the scenario can see that nothing piles up once the delay is gone.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";

export interface SlowProxy {
  readonly port: number;
  delayMs: number;
  /** Chunks waiting out their delay right now. */
  readonly held: () => number;
  readonly openConnections: () => number;
  close(): Promise<void>;
}

/** `target` is read per connection: the service's port is chosen after the proxy's. */
export async function startSlowProxy(target: () => number): Promise<SlowProxy> {
  let held = 0;
  const sockets = new Set<net.Socket>();
  const state = { delayMs: 0 };
  // Each direction keeps its order: a chunk is released no earlier than the one before it.
  const pipe = (from: net.Socket, to: net.Socket) => {
    let releaseAt = 0;
    from.on("data", (chunk) => {
      releaseAt = Math.max(releaseAt, Date.now() + state.delayMs);
      const wait = releaseAt - Date.now();
      if (wait <= 0) return void to.write(chunk);
      held++;
      setTimeout(() => {
        held--;
        if (!to.destroyed) to.write(chunk);
      }, wait);
    });
    from.on("close", () => setTimeout(() => to.destroy(), Math.max(0, releaseAt - Date.now())));
    from.on("error", () => to.destroy());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target(), "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    held: () => held,
    openConnections: () => sockets.size / 2,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
