import { ratio } from "../../../packages/testing/src/load/stats";
import type { Scenario } from "./scenario";

const lister = (origin: string, token: string, cursor: string | undefined) => {
  const headers = { authorization: `Bearer ${token}` };
  const path = cursor ? `/v2/external/shipments?cursor=${cursor}` : "/v2/external/shipments";
  return { origin, request: () => ({ method: "GET" as const, path, headers }) };
};

export const listFirst: Scenario = {
  name: "list-first",
  title: "list, page 1 (25)",
  baselineTitle: "one process, raw pg",
  async prepare(ctx) {
    return { kind: "load", mesh: lister(ctx.gateway, ctx.token, undefined), baseline: lister(ctx.baseline, ctx.token, undefined) };
  },
};

/** The same page size deep into 100k+ shipments: a keyset page must cost what the first does. */
export const listDeep: Scenario = {
  name: "list-deep",
  title: "list, deep page (25)",
  baselineTitle: "one process, raw pg",
  target: { what: "deep page cost / page 1 cost (mesh throughput ratio)", op: "<=", value: 1.2 },
  async prepare(ctx) {
    if (!ctx.meshDeepCursor || !ctx.baselineDeepCursor) return { kind: "unavailable", reason: "no deep cursor (list seeding skipped or failed)" };
    return {
      kind: "load",
      mesh: lister(ctx.gateway, ctx.token, ctx.meshDeepCursor.cursor),
      baseline: lister(ctx.baseline, ctx.token, ctx.baselineDeepCursor),
      notes: `after ${ctx.meshDeepCursor.depth.toLocaleString("en")} rows (cursor ${ctx.meshDeepCursor.how})`,
    };
  },
  figure: (result, results) => ratio(results.get("list-first")?.mesh?.median.throughput, result.mesh?.median.throughput),
};
