/**
 * The load driver: undici keep-alive connections, each carrying one request at a time (closed
 * loop), or requests sent on a fixed schedule (open loop, paced). Latency is measured in the
 * driver's own process with sub-millisecond resolution; the driver reports its own CPU so a
 * reader can tell when the client, not the server, was the bottleneck.
 */
import { Client, Pool } from "undici";
import { roundFigures, type RoundFigures } from "./stats";

export interface BenchRequest {
  readonly method: "GET" | "POST" | "PATCH";
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** The i-th request of a run (i counts across connections, so bodies and keys can be unique). */
export type RequestFactory = (i: number) => BenchRequest;

export interface Endpoint {
  readonly origin: string;
  readonly request: RequestFactory;
  /** Statuses that count as success (default 200). */
  readonly ok?: readonly number[];
  /** Sees each successful response's body (otherwise bodies are discarded unread). */
  readonly onResponse?: (body: string) => void;
}

export interface RoundOutcome {
  readonly figures: RoundFigures;
  /** Up to 3 examples of failures ("503 {...}"), for the terminal. */
  readonly failures: readonly string[];
}

class Recorder {
  readonly latencies: number[] = [];
  errors = 0;
  readonly failures: string[] = [];

  fail(what: string): void {
    this.errors++;
    if (this.failures.length < 3) this.failures.push(what.slice(0, 300));
  }
}

async function once(dispatcher: Client | Pool, endpoint: Endpoint, i: number, startedAt: number, rec: Recorder): Promise<void> {
  const req = endpoint.request(i);
  try {
    const res = await dispatcher.request({ method: req.method, path: req.path, headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }) });
    if ((endpoint.ok ?? [200]).includes(res.statusCode)) {
      if (endpoint.onResponse) endpoint.onResponse(await res.body.text());
      else await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      rec.latencies.push(performance.now() - startedAt);
    } else {
      rec.fail(`${res.statusCode} ${await res.body.text()}`);
    }
  } catch (err) {
    rec.fail(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
  }
}

function outcome(rec: Recorder, seconds: number, cpuBefore: NodeJS.CpuUsage): RoundOutcome {
  const cpu = process.cpuUsage(cpuBefore);
  const clientCpuPercent = ((cpu.user + cpu.system) / 1e6 / seconds) * 100;
  return { figures: roundFigures(rec.latencies, rec.errors, seconds, clientCpuPercent), failures: rec.failures };
}

/**
 * `connections` loops, each sending its next request as soon as the previous answered, for
 * `seconds` or until `requests` have been sent, whichever comes first.
 */
export async function closedLoop(endpoint: Endpoint, opts: { connections: number; seconds: number; requests?: number }): Promise<RoundOutcome> {
  const clients = Array.from({ length: opts.connections }, () => new Client(endpoint.origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const rec = new Recorder();
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  try {
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < deadline && next < (opts.requests ?? Infinity)) await once(client, endpoint, next++, performance.now(), rec);
      }),
    );
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
  return outcome(rec, (performance.now() - started) / 1000, cpuBefore);
}

/**
 * `rate` requests per second on a fixed schedule for `seconds`, over at most `connections`
 * connections. Latency counts from the scheduled instant, so a request that had to queue behind
 * a slow one is charged its wait (no coordinated omission).
 */
export async function paced(endpoint: Endpoint, opts: { connections: number; seconds: number; rate: number }): Promise<RoundOutcome> {
  const pool = new Pool(endpoint.origin, { connections: opts.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const rec = new Recorder();
  const total = Math.max(1, Math.round(opts.rate * opts.seconds));
  const interval = 1000 / opts.rate;
  const inflight: Promise<void>[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  try {
    for (let i = 0; i < total; i++) {
      const due = started + i * interval;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      inflight.push(once(pool, endpoint, i, due, rec));
    }
    await Promise.all(inflight);
  } finally {
    await pool.close();
  }
  // Throughput over the schedule's length, not the tail's.
  return outcome(rec, Math.max(opts.seconds, (performance.now() - started) / 1000), cpuBefore);
}

/** One request, its status and parsed JSON body (for setup steps, not for measuring). */
export async function call(origin: string, req: BenchRequest): Promise<{ status: number; body: unknown; headers: Record<string, string | string[] | undefined> }> {
  const client = new Client(origin);
  try {
    const res = await client.request({ method: req.method, path: req.path, headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }) });
    const text = await res.body.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body, headers: res.headers };
  } finally {
    await client.close();
  }
}
