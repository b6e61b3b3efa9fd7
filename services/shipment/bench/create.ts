/**
 * CreateShipment throughput of 8 concurrent clients against the in-process stack (real merchant,
 * dispatch, pricing and shipment services on the test PostgreSQL):
 *   tsx services/shipment/bench/create.ts [seconds]   (DATABASE_ADMIN_URL overrides the local server)
 * A figure to report, not a test.
 */
import { ensurePostgres } from "../../../packages/testing/src/infra/postgres";
import { draft, idempotency, startStack } from "../test/support";

const postgres = await ensurePostgres(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {});
const adminUrl = postgres.adminUrl;
const seconds = Number(process.argv[2] ?? 20);
const CLIENTS = 8;

const stack = await startStack(adminUrl, "bench", { LOG_LEVEL: "warn" });
try {
  const merchantId = await stack.newMerchant("BENCH");
  const latencies: number[] = [];
  let n = 0;
  const run = async (client: number, until: number) => {
    while (Date.now() < until) {
      const reference = `BENCH-${client}-${n++}`;
      const body = draft(reference);
      const started = performance.now();
      await stack.client.createShipment({ merchantId, idempotency: idempotency(reference, body), draft: body });
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => run(c, Date.now() + 2_000))); // warm-up
  latencies.length = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => run(c, Date.now() + seconds * 1000)));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]?.toFixed(1);
  process.stdout.write(`${JSON.stringify({ clients: CLIENTS, seconds: Number(elapsed.toFixed(1)), creates: latencies.length, perSecond: Number((latencies.length / elapsed).toFixed(1)), p50ms: pct(0.5), p95ms: pct(0.95), p99ms: pct(0.99) })}\n`);
} finally {
  await stack.close();
  await postgres.stop();
}
