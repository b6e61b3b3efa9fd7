import type { LookupFunction } from "node:net";
import { Agent, errors, request } from "undici";
import type { Receiver, ReceiverAnswer, ReceiverRequest, ResolvedAddress } from "../app/ports";

const MAX_AGENTS = 256;

/**
 * Sends deliveries with undici, each connection made to the address the guard checked: the agent's
 * lookup answers with that address only, so the name is never resolved a second time (no DNS
 * rebinding window), while Host and TLS SNI still carry the name. Agents are kept per (origin,
 * address) for keep-alive, least recently used evicted. Redirects are never followed.
 */
export class PinnedHttpReceiver implements Receiver {
  readonly name = "http-receiver";
  readonly #agents = new Map<string, Agent>();

  async send(req: ReceiverRequest): Promise<ReceiverAnswer> {
    try {
      const res = await request(req.url, {
        method: "POST",
        headers: req.headers,
        body: req.body,
        dispatcher: this.#agentFor(req.url.origin, req.address),
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
        signal: AbortSignal.timeout(req.timeoutMs),
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const retryAfter = res.headers["retry-after"];
      return { kind: "answered", status: res.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
    } catch (error) {
      return isTimeout(error) ? { kind: "timeout" } : { kind: "transport" };
    }
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
  }

  #agentFor(origin: string, pinned: ResolvedAddress): Agent {
    const key = `${origin}|${pinned.address}`;
    const existing = this.#agents.get(key);
    if (existing) {
      this.#agents.delete(key);
      this.#agents.set(key, existing);
      return existing;
    }
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) (callback as (err: null, addresses: { address: string; family: number }[]) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const agent = new Agent({ connect: { lookup } });
    this.#agents.set(key, agent);
    if (this.#agents.size > MAX_AGENTS) {
      const [oldestKey, oldest] = this.#agents.entries().next().value as [string, Agent];
      this.#agents.delete(oldestKey);
      void oldest.close().catch(() => undefined);
    }
    return agent;
  }
}

function isTimeout(error: unknown): boolean {
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || error instanceof errors.ConnectTimeoutError) return true;
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}
