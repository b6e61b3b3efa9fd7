/**
 * The merchant's webhook receiver, the one fake of the fault suite: a plain HTTP server that
 * accepts a delivery only when it answers 2xx, dedupes on webhook-id, and counts duplicates (an
 * at-least-once sender may repeat a webhook-id; what it must never do is announce one status twice
 * under two ids, or not at all). Its mode lets a scenario make it fail: 500, or hang past the
 * sender's attempt timeout.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ReceiverMode = "ok" | "fail-500" | "hang";

export interface Receipt {
  readonly webhookId: string;
  readonly shipmentId: string;
  readonly status: string;
}

export interface Receiver {
  readonly url: string;
  mode: ReceiverMode;
  /** First accepted receipt per webhook-id. */
  readonly byWebhookId: Map<string, Receipt>;
  /** Accepted repeats of a webhook-id already accepted. */
  duplicates: number;
  /** Attempts refused (500) or left hanging, for the report. */
  refused: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const state: Omit<Receiver, "url" | "close"> = { mode: "ok", byWebhookId: new Map(), duplicates: 0, refused: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (state.mode === "fail-500") {
        state.refused++;
        res.writeHead(500).end();
        return;
      }
      if (state.mode === "hang") {
        // Never answered: the sender's attempt timeout must fire. Closed when the sender gives up.
        state.refused++;
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      }
      const webhookId = String(req.headers["webhook-id"]);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { shipmentId: string; status: string } };
      if (state.byWebhookId.has(webhookId)) state.duplicates++;
      else state.byWebhookId.set(webhookId, { webhookId, shipmentId: body.data.shipmentId, status: body.data.status });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const receiver = state as Receiver;
  Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  });
  return receiver;
}
