import { createEndpoint } from "./create";
import type { Scenario } from "./scenario";

/** Creates at half the mesh's own maximum rate (the create scenario's median): is p99 still low? */
export const createPaced: Scenario = {
  name: "create-paced",
  title: "create at half the mesh's max rate",
  target: { what: "p99 latency", op: "<=", value: 50, unit: " ms" },
  async prepare(ctx) {
    const max = ctx.results.get("create")?.mesh?.median.throughput;
    if (max === undefined || !(max > 0)) return { kind: "unavailable", reason: "needs the create scenario's maximum rate (run create first)" };
    const rate = max / 2;
    return { kind: "paced", mesh: createEndpoint(ctx, ctx.gateway, "p"), rate, notes: `${rate.toFixed(1)} creates/s, half of ${max.toFixed(1)}/s` };
  },
  figure: (result) => result.mesh?.median.p99Ms ?? Number.NaN,
};
