import { listenForNotifications, type Listener } from "@tawsil/db";
import { ReadThroughCache } from "@tawsil/cache";
import type { SqlClient } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import type { EventType } from "../domain/event-types";

/** What the consumer needs of a merchant's endpoint to decide whether an event is queued. */
export interface Route {
  readonly id: string;
  readonly eventTypes: readonly EventType[];
}

/** Every replica listens here; the endpoint store notifies in each transaction that writes an endpoint. */
export const ENDPOINTS_CHANNEL = "webhook_endpoints";

/** pg_notify in the writer's transaction: delivered on commit (never for a rollback) to every replica's listener, this one's included. */
export async function announceEndpointChange(tx: SqlClient, merchantId: string): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_notify($1, $2)`, ENDPOINTS_CHANNEL, merchantId);
}

/** The merchant's endpoint as the consumer reads it, on a connection or in a transaction. */
export async function readRoute(db: SqlClient, merchantId: string): Promise<Route | undefined> {
  const rows = await db.$queryRawUnsafe<{ id: string; event_types: string[] }[]>(
    `SELECT id::text AS id, event_types::text[] AS event_types FROM webhook_endpoint WHERE merchant_id = $1::uuid`,
    merchantId,
  );
  const row = rows[0];
  return row ? { id: row.id, eventTypes: row.event_types as EventType[] } : undefined;
}

export interface EndpointRoutesOptions {
  readonly db: SqlClient;
  /** The database the listening connection opens (the one `db` reads). */
  readonly databaseUrl: string;
  readonly logger: Logger;
  /** Longest an entry is trusted without a notification: only a safety net. */
  readonly maxAgeMs?: number;
  readonly maxEntries?: number;
  /**
   * Called after an endpoint changed on any replica (and after each reconnection, when a change may
   * have been missed): a resume makes its held backlog claimable, which the sender should see now.
   */
  readonly onChange?: () => void;
}

/**
 * Each merchant's endpoint (or that it has none, which is what most shipment events find), kept in
 * memory so the consumer reads nothing per event. Only this service writes endpoints, and each of
 * its writes notifies ENDPOINTS_CHANNEL in the writing transaction; every replica LISTENs and drops
 * its entries on each notification, and the writing replica also drops them as soon as its write
 * commits, before the RPC answers. A read under way when a notification arrives is answered but not
 * kept (ReadThroughCache's generations), so a change is never cached as if it had not happened.
 * While the listening connection is down (or before it is up) notifications may be lost, so the
 * cache is bypassed: every read goes to the database, as if there were no cache, until the
 * connection is back (which also drops everything).
 */
export class EndpointRoutes {
  readonly name = "endpoint-routes";
  readonly #cache: ReadThroughCache<{ route: Route | undefined }>;
  #listening = false;
  #listener: Listener | undefined;

  constructor(private readonly opts: EndpointRoutesOptions) {
    this.#cache = new ReadThroughCache({
      load: async (merchantId) => ({ route: await readRoute(opts.db, merchantId) }),
      maxAgeMs: opts.maxAgeMs ?? 60_000,
      maxEntries: opts.maxEntries ?? 50_000,
    });
  }

  /** LISTENs for endpoint changes; until it resolves, and whenever the connection is lost, reads bypass the cache. */
  async start(): Promise<void> {
    const { databaseUrl, logger } = this.opts;
    this.#listener = await listenForNotifications({
      url: databaseUrl,
      channel: ENDPOINTS_CHANNEL,
      // Also called after each (re)connection: what was notified meanwhile is unknown, so everything goes.
      onNotify: () => {
        this.#connected();
        this.opts.onChange?.();
      },
      logger: { warn: (obj, msg) => (this.#lost(), logger.warn(obj, msg)) },
    });
  }

  async close(): Promise<void> {
    this.#lost();
    await this.#listener?.close();
  }

  /** The merchant's endpoint; `tx` answers when the cache cannot be trusted. */
  async routeOf(merchantId: string, tx: SqlClient): Promise<Route | undefined> {
    if (!this.#listening) return readRoute(tx, merchantId);
    return (await this.#cache.get(merchantId))?.route;
  }

  /**
   * True when the cache knows the merchant has no endpoint subscribed to `type`, so an event of that
   * type would queue nothing; false whenever it cannot be sure (not listening).
   */
  async ignores(merchantId: string, type: EventType): Promise<boolean> {
    if (!this.#listening) return false;
    const route = (await this.#cache.get(merchantId))?.route;
    return !route || !route.eventTypes.includes(type);
  }

  /** This replica changed an endpoint and it committed: its own next read must see it. */
  changed(): void {
    this.#cache.clear();
  }

  get size(): number {
    return this.#cache.size;
  }

  #connected(): void {
    this.#cache.clear();
    this.#listening = true;
  }

  #lost(): void {
    this.#listening = false;
    this.#cache.clear();
  }
}
