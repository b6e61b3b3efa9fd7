/**
 * The soak's steady mix, one window at a time: each route at its own fixed rate (the bench's paced
 * driver: latency counts from the scheduled instant), split evenly over the gateway replicas. What
 * the creates and cancels did is kept in the ledger, for the effect checks at the end.
 */
import { paced, type Endpoint } from "../load/driver";
import type { RoundFigures } from "../load/stats";
import type { SoakMerchant } from "./merchants";

/** A shipment the soak created, as its answer said. */
export interface Created {
  readonly id: string;
  readonly merchantCode: string;
  readonly trackingCode: string | undefined;
  /** performance.now() when its 201 arrived (the webhook lag counts from here). */
  readonly at: number;
}

export class Ledger {
  readonly created: Created[] = [];
  readonly cancelled = new Set<string>();
  readonly #cancelTried = new Set<string>();
  #references = 0;

  /** Also the create's Idempotency-Key, which must be 16 to 128 characters: the count is padded to keep it so. */
  nextReference(run: string): string {
    return `SOAK-${run}-${String(this.#references++).padStart(6, "0")}`;
  }

  /** The healthy merchant's shipments, newest first. */
  createdBy(code: string): Created[] {
    return this.created.filter((c) => c.merchantCode === code).reverse();
  }

  /** The newest shipment of `code` not yet asked to cancel: the likeliest to be cancellable still (no driver offered yet). */
  toCancel(code: string): Created | undefined {
    const next = this.createdBy(code).find((c) => !this.#cancelTried.has(c.id));
    if (next) this.#cancelTried.add(next.id);
    return next;
  }
}

/** One route's figures over one window through one gateway replica. */
export interface RouteWindow {
  readonly route: string;
  readonly gateway: string;
  readonly window: number;
  readonly figures: RoundFigures;
  readonly failures: readonly string[];
}

export interface LoadContext {
  readonly run: string;
  readonly ledger: Ledger;
  readonly healthy: SoakMerchant;
  /** The merchants whose receivers fail: they create too, so that their webhooks have work. */
  readonly failing: readonly SoakMerchant[];
}

interface Route {
  readonly name: string;
  /** Requests per second, over all gateways. */
  readonly rate: number;
  endpoint(origin: string): Endpoint;
}

const DESTINATION = { latitude: 24.774265, longitude: 46.738586 };
const PICKUP = { latitude: 24.7136, longitude: 46.6753 };
const ESTIMATE = JSON.stringify({ pickup: PICKUP, delivery: DESTINATION });

function createRoute(ctx: LoadContext, merchant: SoakMerchant, name: string, rate: number): Route {
  return {
    name,
    rate,
    endpoint: (origin) => ({
      origin,
      ok: [201],
      request: () => {
        const reference = ctx.ledger.nextReference(ctx.run);
        const body = { reference, pickup: PICKUP, destination: DESTINATION, recipient: { name: "Soak recipient", mobile: "0512345678" }, parcel: { description: "Soak parcel", pieces: 1, weightKg: 1 } };
        return { method: "POST", path: "/v2/external/shipments", headers: { ...merchant.headers, "idempotency-key": reference }, body: JSON.stringify(body) };
      },
      onResponse: (text) => {
        const answer = JSON.parse(text) as { id?: unknown; trackingUrl?: unknown };
        if (typeof answer.id !== "string") return;
        const url = typeof answer.trackingUrl === "string" ? answer.trackingUrl : undefined;
        ctx.ledger.created.push({ id: answer.id, merchantCode: merchant.code, trackingCode: url?.slice(url.lastIndexOf("/") + 1), at: performance.now() });
      },
    }),
  };
}

/**
 * The mix: about 8 requests a second, lean enough for two cores shared with other work. Creates
 * are what the mesh's background work follows (offers, the fleet's drivers moving and their
 * location fixes, projections, deliveries), so they are the fewest.
 */
export function soakRoutes(ctx: LoadContext): Route[] {
  const mine = () => ctx.ledger.createdBy(ctx.healthy.code);
  const pick = <T>(values: readonly T[]) => values[Math.floor(Math.random() * Math.min(values.length, 200))]!;
  return [
    createRoute(ctx, ctx.healthy, "create", 1),
    ...ctx.failing.map((m) => createRoute(ctx, m, `create (${m.receiver} receiver's merchant)`, 0.2)),
    {
      name: "read",
      rate: 2,
      endpoint: (origin) => ({ origin, request: () => ({ method: "GET", path: `/v2/external/shipments/${pick(mine()).id}`, headers: ctx.healthy.headers }) }),
    },
    {
      name: "estimate",
      rate: 1.5,
      endpoint: (origin) => ({ origin, request: () => ({ method: "POST", path: "/v2/external/shipment-price-estimates", headers: ctx.healthy.headers, body: ESTIMATE }) }),
    },
    {
      name: "cancel",
      rate: 0.5,
      endpoint: (origin) => ({
        origin,
        // 409 once a driver was offered it (the fleet offers within a second or so): a normal answer.
        ok: [200, 409],
        request: () => ({ method: "POST", path: `/v2/external/shipments/${ctx.ledger.toCancel(ctx.healthy.code)?.id ?? mine()[0]!.id}/cancel`, headers: ctx.healthy.headers, body: JSON.stringify({ reason: "CUSTOMER_REQUEST" }) }),
        onResponse: (text) => {
          const answer = JSON.parse(text) as { id?: unknown; code?: unknown };
          if (typeof answer.id === "string" && answer.code === undefined) ctx.ledger.cancelled.add(answer.id);
        },
      }),
    },
    {
      name: "tracking (public link)",
      rate: 2,
      endpoint: (origin) => ({
        origin,
        // 404 for a link whose projection the shortened retention already deleted (terminal, older than the period).
        ok: [200, 404],
        request: () => ({ method: "GET", path: `/v2/public/tracking/${trackingCodeOf(mine())}`, headers: {} }),
      }),
    },
  ];
}

/** A link of a shipment created 5 s ago or earlier: the tracking projection follows its events. */
function trackingCodeOf(created: readonly Created[]): string {
  const settled = created.filter((c) => c.trackingCode && performance.now() - c.at > 5000).slice(0, 200);
  const from = settled.length > 0 ? settled : created;
  return from[Math.floor(Math.random() * from.length)]?.trackingCode ?? "A".repeat(43);
}

/** Runs every route through every gateway for one window; resolves with each one's figures. */
export async function runWindow(routes: readonly Route[], gateways: readonly { name: string; url: string }[], window: number, seconds: number): Promise<RouteWindow[]> {
  const runs = routes.flatMap((route) =>
    gateways.map(async (gateway) => {
      const outcome = await paced(route.endpoint(gateway.url), { connections: 4, seconds, rate: route.rate / gateways.length });
      return { route: route.name, gateway: gateway.name, window, figures: outcome.figures, failures: outcome.failures };
    }),
  );
  return Promise.all(runs);
}
