/**
 * The soak's webhook receivers, on loopback in the soak's own process: a healthy one that records
 * every delivery (its event id, type and shipment, and when it arrived), a slow one that answers
 * 503 after 10 s, and a hanging one that never answers (the webhook service gives up at 15 s).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ReceiverBehaviour = "healthy" | "slow" | "hanging";

export interface Delivery {
  /** The webhook-id header: the event's id, the same on every retry of it. */
  readonly webhookId: string;
  readonly type: string;
  readonly shipmentId: string | undefined;
  /** performance.now() at arrival. */
  readonly at: number;
}

const SLOW_ANSWER_MS = 10_000;

export class SoakReceiver {
  readonly deliveries: Delivery[] = [];
  /** Requests received, answered or not. */
  attempts = 0;
  readonly #held = new Set<ServerResponse>();
  readonly #server = createServer((req, res) => this.#receive(req, res));

  constructor(readonly behaviour: ReceiverBehaviour) {}

  /** Listens on a free loopback port; the URL to register. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/${this.behaviour}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #receive(req: IncomingMessage, res: ServerResponse): void {
    this.attempts++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (this.behaviour === "hanging") {
        this.#held.add(res);
        res.on("close", () => this.#held.delete(res));
        return;
      }
      if (this.behaviour === "slow") {
        setTimeout(() => res.writeHead(503).end(), SLOW_ANSWER_MS).unref();
        return;
      }
      this.deliveries.push({ webhookId: String(req.headers["webhook-id"]), ...eventOf(Buffer.concat(chunks).toString("utf8")), at: performance.now() });
      res.writeHead(204).end();
    });
  }
}

function eventOf(body: string): { type: string; shipmentId: string | undefined } {
  try {
    const event = JSON.parse(body) as { type?: unknown; data?: { shipmentId?: unknown } };
    return { type: String(event.type), shipmentId: typeof event.data?.shipmentId === "string" ? event.data.shipmentId : undefined };
  } catch {
    return { type: "unparsable", shipmentId: undefined };
  }
}
