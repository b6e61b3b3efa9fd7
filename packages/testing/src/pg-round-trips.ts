import net from "node:net";

/** A TCP proxy in front of PostgreSQL that counts the round trips its clients make. */
export interface RoundTripCounter {
  /** The database URL, pointed at the proxy. */
  readonly url: string;
  /** Round trips since the last reset. */
  count(): number;
  reset(): void;
  close(): Promise<void>;
}

/**
 * Proxies `databaseUrl` and counts, on the client-to-server stream, the messages that each wait
 * for the server's answer: a simple Query ('Q') or the Sync ('S') that ends an extended-protocol
 * exchange (Parse, Bind, Execute travel with their Sync, so a statement counts once). What a test
 * reads is therefore the number of times a client waited on the network, the cost a statement
 * count misses. The startup message (which has no type byte) is skipped; SSL is not supported.
 */
export async function countPgRoundTrips(databaseUrl: string): Promise<RoundTripCounter> {
  const target = new URL(databaseUrl);
  let trips = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    client.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 4) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          pending = pending.subarray(length);
          started = true;
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === "Q" || type === "S") trips++;
        pending = pending.subarray(1 + length);
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    count: () => trips,
    reset: () => void (trips = 0),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
