import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook, type ShipmentEvent } from "@tawsil/sdk";

/** What the receiver did with one verified delivery. */
export interface Handled {
  readonly type: ShipmentEvent["type"];
  readonly sequence: number;
  readonly status: string;
  readonly outcome: "applied" | "already-applied";
}

/** The merchant's copy of one shipment: the highest sequence applied, and each change it applied. */
interface Copy {
  sequence: number;
  status: string;
  readonly applied: Map<number, string>;
  readonly pending: ShipmentEvent[];
  readonly handled: Handled[];
}

/**
 * A merchant's webhook receiver doing what delivery-api.md ("Events", point 4) asks, and no more:
 * it verifies each delivery's signature (401 otherwise), answers 2xx at once and processes
 * asynchronously, deduplicates on Webhook-Id, applies a shipment's events in sequence order and
 * ignores an event whose sequence was already applied. The merchant stores the create response as
 * applied at its version (`recordCreated`); events of a shipment it has not stored yet wait for it,
 * as they would in a merchant's database (the first event can arrive before the create answers).
 *
 * It keeps every change it applied, by sequence, so a test can tell an event ignored because its
 * own change is already applied (the create response and shipment.created are one change) from
 * one DROPPED: ignored while the change it announces was never applied.
 */
export class MerchantReceiver {
  private readonly server: Server;
  private readonly copies = new Map<string, Copy>();
  private readonly seenIds = new Set<string>();
  private secret = "";
  /** Deliveries answered 401, and redeliveries of a Webhook-Id already taken. */
  rejected = 0;
  duplicates = 0;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => res.writeHead(this.receive(req.headers, Buffer.concat(chunks).toString("utf8"))).end());
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/merchant-hooks`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** The signing secret the registration answered. */
  useSecret(secret: string): void {
    this.secret = secret;
  }

  /** The merchant stores what create answered: the shipment at its version, applied. */
  recordCreated(shipmentId: string, version: number, status: string): void {
    const copy = this.copyOf(shipmentId);
    copy.applied.set(version, status);
    copy.sequence = Math.max(copy.sequence, version);
    copy.status = status;
    setImmediate(() => this.drain(shipmentId));
  }

  /** The merchant's copy of a shipment: last applied sequence, status, and what it did with each event. */
  stateOf(shipmentId: string): { sequence: number; status: string; handled: readonly Handled[]; dropped: readonly Handled[] } {
    const copy = this.copyOf(shipmentId);
    const dropped = copy.handled.filter((h) => h.outcome === "already-applied" && copy.applied.get(h.sequence) !== h.status);
    return { sequence: copy.sequence, status: copy.status, handled: [...copy.handled], dropped };
  }

  /** Verify, deduplicate, queue, answer: the processing happens after the answer. */
  private receive(headers: IncomingHttpHeaders, body: string): number {
    let event: ShipmentEvent;
    try {
      event = verifyWebhook({ payload: body, headers, secret: this.secret });
    } catch {
      this.rejected++;
      return 401;
    }
    const webhookId = String(headers["webhook-id"]);
    if (this.seenIds.has(webhookId)) {
      this.duplicates++;
      return 204;
    }
    this.seenIds.add(webhookId);
    this.copyOf(event.data.shipmentId).pending.push(event);
    setImmediate(() => this.drain(event.data.shipmentId));
    return 204;
  }

  /** Applies what is queued for a stored shipment, lowest sequence first. */
  private drain(shipmentId: string): void {
    const copy = this.copyOf(shipmentId);
    if (copy.applied.size === 0) return;
    const queued = copy.pending.splice(0).sort((a, b) => a.sequence - b.sequence);
    for (const event of queued) {
      const base = { type: event.type, sequence: event.sequence, status: event.data.status };
      if (event.sequence <= copy.sequence) {
        copy.handled.push({ ...base, outcome: "already-applied" });
        continue;
      }
      copy.applied.set(event.sequence, event.data.status);
      copy.sequence = event.sequence;
      copy.status = event.data.status;
      copy.handled.push({ ...base, outcome: "applied" });
    }
  }

  private copyOf(shipmentId: string): Copy {
    let copy = this.copies.get(shipmentId);
    if (!copy) {
      copy = { sequence: 0, status: "", applied: new Map(), pending: [], handled: [] };
      this.copies.set(shipmentId, copy);
    }
    return copy;
  }
}
