/**
 * Steady load through every gateway replica, as an ingress controller sends it: each request to
 * the next replica in service, in turn. A rollout takes a replica out of service before it stops
 * it and puts it back once the new one is ready (Kubernetes removes a terminating pod from the
 * ingress's endpoints). Each route runs at its own rate (the soak's mix, packages/testing/src/soak/load.ts);
 * every answer is counted by route and status, and a request that got no answer is counted apart.
 */
import type { Endpoint } from "../../../packages/testing/src/load/driver";

/** A route of the mix: its requests per second over all replicas, and what it sends to a replica. */
export interface LoadRoute {
  readonly name: string;
  readonly rate: number;
  endpoint(origin: string): Endpoint;
}

export class IngressLoad {
  /** Answers by route, then by status ("no answer" for a request that failed without one). */
  readonly answers: Record<string, Record<string, number>> = {};
  /** Up to 10 examples of answers outside a route's expected statuses. */
  readonly unexpected: string[] = [];
  readonly #inService: string[];
  readonly #inFlight = new Set<Promise<void>>();
  #turn = 0;
  #running = false;
  #loops: Promise<void>[] = [];

  constructor(gatewayUrls: readonly string[]) {
    this.#inService = [...gatewayUrls];
  }

  start(routes: readonly LoadRoute[]): void {
    this.#running = true;
    this.#loops = routes.map((route) => this.#pace(route));
  }

  /** Stops sending; resolves once every request sent has its answer. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
    await Promise.all([...this.#inFlight]);
  }

  /** Takes a replica out of service; resolves once the requests sent to it have their answers. */
  async remove(url: string): Promise<void> {
    this.#inService.splice(this.#inService.indexOf(url), 1);
    await Promise.all([...this.#inFlight]);
  }

  add(url: string): void {
    this.#inService.push(url);
  }

  /** How many answers had `status` (a number, or "no answer"), over every route. */
  count(match: (status: string) => boolean): number {
    return Object.values(this.answers).reduce((n, byStatus) => n + Object.entries(byStatus).reduce((m, [status, k]) => m + (match(status) ? k : 0), 0), 0);
  }

  async #pace(route: LoadRoute): Promise<void> {
    const interval = 1000 / route.rate;
    for (let next = performance.now(); this.#running; next += interval) {
      const sent = this.#send(route).finally(() => this.#inFlight.delete(sent));
      this.#inFlight.add(sent);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next + interval - performance.now())));
    }
  }

  async #send(route: LoadRoute): Promise<void> {
    const origin = this.#inService[this.#turn++ % this.#inService.length]!;
    const endpoint = route.endpoint(origin);
    const byStatus = (this.answers[route.name] ??= {});
    let status = "no answer";
    let body = "";
    try {
      const req = endpoint.request(0);
      const res = await fetch(`${origin}${req.path}`, { method: req.method, headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }) });
      status = String(res.status);
      body = await res.text();
      if ((endpoint.ok ?? [200]).includes(res.status)) endpoint.onResponse?.(body);
    } catch (error) {
      body = error instanceof Error ? `${error.name}: ${error.message} ${String((error.cause as Error | undefined)?.message ?? "")}` : String(error);
    }
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (!(endpoint.ok ?? [200]).map(String).includes(status) && this.unexpected.length < 10) this.unexpected.push(`${route.name} via ${origin}: ${status} ${body.slice(0, 300)}`);
  }
}
