/**
 * Public tracking: GET /v2/public/tracking/{code} without credentials, over the links of
 * shipments the bench creates through the API (the tracking projection is built from their
 * events). Not available while the gateway has no such route.
 */
import { call } from "../../../packages/testing/src/load/driver";
import { shapeA } from "./create";
import { floorRead } from "./read";
import { problemCode, authJson, type BenchContext, type Scenario } from "./scenario";

const LINKS = 200;

async function createLinks(ctx: BenchContext): Promise<string[]> {
  const codes: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < LINKS) {
        const reference = `BENCH-${ctx.run}-t${next++}`;
        const res = await call(ctx.gateway, { method: "POST", path: "/v2/external/shipments", headers: { ...authJson(ctx), "idempotency-key": reference }, body: shapeA(ctx, reference) });
        const url = (res.body as { trackingUrl?: unknown }).trackingUrl;
        if (res.status === 201 && typeof url === "string") codes.push(url.slice(url.lastIndexOf("/") + 1));
      }
    }),
  );
  return codes;
}

export const tracking: Scenario = {
  name: "tracking",
  title: "public tracking",
  async prepare(ctx) {
    const probe = await call(ctx.gateway, { method: "GET", path: `/v2/public/tracking/${"A".repeat(43)}`, headers: {} });
    if (probe.status === 404 && problemCode(probe.body) !== "TRACKING_LINK_NOT_FOUND") {
      return { kind: "unavailable", reason: `not available yet: GET /v2/public/tracking/{code} answers 404 ${problemCode(probe.body) ?? ""}`.trim() };
    }
    const codes = await createLinks(ctx);
    if (codes.length === 0) return { kind: "unavailable", reason: "creating shipments for their tracking links failed" };
    // The projection follows the shipments' events: wait until the last link answers.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await call(ctx.gateway, { method: "GET", path: `/v2/public/tracking/${codes.at(-1)}`, headers: {} });
      if (res.status === 200) break;
      if (Date.now() > deadline) return { kind: "unavailable", reason: `a new shipment's tracking link still answers ${res.status} ${problemCode(res.body) ?? ""} after 20 s` };
      await new Promise((r) => setTimeout(r, 500));
    }
    return {
      kind: "load",
      mesh: { origin: ctx.gateway, request: (i) => ({ method: "GET", path: `/v2/public/tracking/${codes[i % codes.length]}`, headers: {} }) },
      ...(ctx.floor ? { floor: floorRead(ctx.floor.origin, ctx.baselineReadIds) } : {}),
      notes: `${codes.length} links in rotation (the contract limits each link to 120 requests a minute)`,
    };
  },
};
