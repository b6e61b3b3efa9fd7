import type { AddressInfo, Server } from "node:net";

/** Binds `server` to host:port (0 picks a free one) and answers the port it got; a taken port rejects. */
export async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}
