/** Starts the design floor's two processes (edge.ts calling inner.ts), each on a free port. */
import { startChild, type Child } from "../setup";

export async function startFloor(opts: { databaseUrl: string; merchantId: string; logDir: string }): Promise<{ edge: Child; inner: Child }> {
  const inner = await startChild("floor-inner", "scripts/bench/floor/inner.ts", { DATABASE_URL: opts.databaseUrl }, opts.logDir);
  try {
    const edge = await startChild("floor-edge", "scripts/bench/floor/edge.ts", { INNER_URL: inner.url, MERCHANT_ID: opts.merchantId }, opts.logDir);
    return { edge, inner };
  } catch (err) {
    await inner.stop();
    throw err;
  }
}
