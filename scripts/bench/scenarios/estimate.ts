import type { Scenario } from "./scenario";
import { authJson } from "./scenario";

const BODY = JSON.stringify({ pickup: { latitude: 24.7136, longitude: 46.6753 }, delivery: { latitude: 24.774265, longitude: 46.738586 } });

export const estimate: Scenario = {
  name: "estimate",
  title: "price estimate",
  baselineTitle: "bare node:http JSON",
  target: { what: "mesh/baseline throughput", op: ">=", value: 0.15 },
  async prepare(ctx) {
    const headers = authJson(ctx);
    return {
      kind: "load",
      mesh: { origin: ctx.gateway, request: () => ({ method: "POST", path: "/v2/external/shipment-price-estimates", headers, body: BODY }) },
      baseline: { origin: ctx.bare, request: () => ({ method: "POST", path: "/", headers, body: BODY }) },
      ...(ctx.floor ? { floor: { origin: ctx.floor.origin, request: () => ({ method: "POST", path: "/estimate", headers, body: BODY }), what: "answers a constant quote" } } : {}),
    };
  },
};
