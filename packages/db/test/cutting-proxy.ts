/**
 * A TCP proxy in front of PostgreSQL that a test can break: refuse new connections, cut every open
 * one, or cut a connection the moment the client sends a given statement (a COMMIT, say). Outages
 * with real sockets and a real server, where only the timing is the test's.
 */
import net from "node:net";

export interface CuttingProxy {
  readonly url: string;
  /** Destroys every open connection, as a server that went away would. */
  cutAll(): void;
  /** Cuts a connection as soon as a message from the client contains `text` (before the server sees it). */
  cutOnStatement(text: string | undefined): void;
  /** New connections are accepted and never answered (a port forward with nothing behind it), until `hang(false)`. */
  hang(on: boolean): void;
  /** Stops listening (connections are refused) until `reopen`. */
  refuse(): Promise<void>;
  reopen(): Promise<void>;
  close(): Promise<void>;
}

export async function startCuttingProxy(targetUrl: string): Promise<CuttingProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let cutOn: Buffer | undefined;
  let hanging = false;
  const handle = (client: net.Socket) => {
    if (hanging) {
      sockets.add(client);
      client.on("error", () => {});
      client.on("close", () => sockets.delete(client));
      return;
    }
    const server = net.connect(Number(target.port || 5432), target.hostname);
    const pair = [client, server];
    for (const s of pair) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => {
        sockets.delete(s);
        for (const other of pair) other.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      if (cutOn && chunk.includes(cutOn)) {
        for (const s of pair) s.destroy();
        return;
      }
      server.write(chunk);
    });
    server.pipe(client);
  };
  let listener = net.createServer(handle);
  const listen = (port: number) => new Promise<number>((resolve) => listener.listen(port, "127.0.0.1", () => resolve((listener.address() as net.AddressInfo).port)));
  const port = await listen(0);
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  const stop = () => new Promise<void>((resolve) => listener.close(() => resolve()));
  return {
    url: url.toString(),
    cutAll: () => {
      for (const s of sockets) s.destroy();
    },
    cutOnStatement: (text) => {
      cutOn = text === undefined ? undefined : Buffer.from(text);
    },
    hang: (on) => {
      hanging = on;
    },
    refuse: stop,
    async reopen() {
      listener = net.createServer(handle);
      await listen(port);
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (listener.listening) await stop();
    },
  };
}

/**
 * A server that speaks just enough of PostgreSQL's protocol to refuse every session the way a
 * server that is starting up does: an ErrorResponse, SQLSTATE 57P03, then close.
 */
export async function startStartingUpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const field = (type: string, value: string) => Buffer.concat([Buffer.from(type), Buffer.from(value), Buffer.from([0])]);
  const body = Buffer.concat([field("S", "FATAL"), field("V", "FATAL"), field("C", "57P03"), field("M", "the database system is starting up"), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  const errorResponse = Buffer.concat([Buffer.from("E"), length, body]);
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    // The first message is the startup packet (or an SSL request, answered "N": no SSL).
    socket.once("data", (chunk: Buffer) => {
      if (chunk.length === 8 && chunk.readInt32BE(4) === 80877103) {
        socket.write("N");
        socket.once("data", () => socket.end(errorResponse));
        return;
      }
      socket.end(errorResponse);
    });
  });
  const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)));
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
