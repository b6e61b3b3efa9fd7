import type { BenchContext, Scenario } from "./scenario";
import { authJson } from "./scenario";

/** A shape A body with a reference of its own. */
export function shapeA(ctx: BenchContext, reference: string): string {
  return JSON.stringify({
    reference,
    pickup: { savedLocationCode: ctx.savedLocationCode },
    destination: { latitude: 24.774265, longitude: 46.738586 },
    recipient: { name: "Bench recipient", mobile: "0512345678" },
    parcel: { description: "Bench parcel", pieces: 1, weightKg: 1 },
  });
}

/** Creates with a unique reference and idempotency key each, so none is a replay. */
export function createEndpoint(ctx: BenchContext, origin: string, tag: string, path = "/v2/external/shipments") {
  let seq = 0;
  const headers = authJson(ctx);
  return {
    origin,
    ok: [201],
    request: () => {
      const reference = `BENCH-${ctx.run}-${tag}${seq++}`;
      return { method: "POST" as const, path, headers: { ...headers, "idempotency-key": reference }, body: shapeA(ctx, reference) };
    },
  };
}

export const create: Scenario = {
  name: "create",
  title: "create (shape A, unique key)",
  baselineTitle: "one process, raw pg",
  target: { what: "mesh/baseline throughput", op: ">=", value: 0.4 },
  async prepare(ctx) {
    return {
      kind: "load",
      mesh: createEndpoint(ctx, ctx.gateway, "m"),
      baseline: createEndpoint(ctx, ctx.baseline, "b"),
      ...(ctx.floor ? { floor: { ...createEndpoint(ctx, ctx.floor.origin, "f", "/create"), what: "prices over one more call, writes the row and its outbox row in one transaction and publishes one event (sent with the others that came meanwhile) that three consumer groups apply (a fetched batch in one transaction)", settle: ctx.floor.caughtUp } } : {}),
    };
  },
};
