import type { FloorEndpoint, Scenario } from "./scenario";

/** The design floor's read by id (floor/edge.ts): one call, one primary-key statement, nothing else. */
export function floorRead(origin: string, ids: readonly string[]): FloorEndpoint {
  return { origin, request: (i) => ({ method: "GET", path: `/read/${ids[i % ids.length]}`, headers: {} }), what: "reads one row by primary key" };
}

export const read: Scenario = {
  name: "read",
  title: "read by id",
  baselineTitle: "one process, raw pg",
  target: { what: "mesh/baseline throughput", op: ">=", value: 0.5 },
  async prepare(ctx) {
    if (ctx.meshReadIds.length === 0 || ctx.baselineReadIds.length === 0) return { kind: "unavailable", reason: "no seeded shipments to read" };
    const headers = { authorization: `Bearer ${ctx.token}` };
    const reader = (origin: string, ids: readonly string[]) => ({
      origin,
      request: (i: number) => ({ method: "GET" as const, path: `/v2/external/shipments/${ids[i % ids.length]}`, headers }),
    });
    return {
      kind: "load",
      mesh: reader(ctx.gateway, ctx.meshReadIds),
      baseline: reader(ctx.baseline, ctx.baselineReadIds),
      ...(ctx.floor ? { floor: floorRead(ctx.floor.origin, ctx.baselineReadIds) } : {}),
    };
  },
};
