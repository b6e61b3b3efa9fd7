/**
 * How many long polls for offers (GET /v2/driver/offers) the gateway answered, from its /metrics:
 * what the simulated drivers ask of the mesh while it is otherwise idle, each driver holding one
 * poll that ends every 20 s at most. The idle window's CPU above the fleet-stopped one, over this
 * count, is what one poll costs the seven (report/budgets.ts).
 */
const OFFERS_ROUTE = "/v2/driver/offers";
const COUNT = "http_server_request_duration_seconds_count";

/** The polls answered, any status, in a Prometheus text exposition of the gateway's metrics. */
export function offerPollsIn(metrics: string): number {
  let total = 0;
  for (const line of metrics.split("\n")) {
    if (!line.startsWith(`${COUNT}{`)) continue;
    const labels = line.slice(COUNT.length + 1, line.lastIndexOf("}"));
    if (!labels.includes(`route="${OFFERS_ROUTE}"`) || !labels.includes(`method="GET"`)) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

/** The polls the gateway at `metricsUrl` has answered so far; undefined when its metrics cannot be read. */
export async function offerPollsAnswered(metricsUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return response.ok ? offerPollsIn(await response.text()) : undefined;
  } catch {
    return undefined;
  }
}
