import { lookup as dnsLookup } from "node:dns/promises";
import type http2 from "node:http2";
import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { Http2SessionManager } from "@connectrpc/connect-node";

/** Every address a host name resolves to (all A/AAAA records: the pods of a headless Service). */
export type Lookup = (host: string) => Promise<string[]>;

export const dnsAddresses: Lookup = async (host) => (await dnsLookup(host, { all: true })).map((a) => a.address);

export interface SpreadOptions {
  /** How often the name is resolved again (kube-dns caches a headless Service's records for 5 s by default); also after a connection error. */
  readonly resolveEveryMs: number;
  /** How long a replica that refused a connection is passed over. */
  readonly downForMs: number;
  readonly lookup: Lookup;
  readonly now?: () => number;
  /** Options of every replica's HTTP/2 session (node:http2 connect). */
  readonly sessionOptions?: http2.ClientSessionOptions;
}

interface Replica {
  readonly address: string;
  readonly sessions: Http2SessionManager;
  readonly transport: Transport;
  downUntil: number;
  /** Unary calls under way on it: a replica that left the name keeps its session until they are answered. */
  inFlight: number;
  /** No longer among the name's addresses: its session closes once its last call is answered. */
  leaving: boolean;
}

/** Longest a replica that left the name keeps its session for calls still under way (far above any call's deadline). */
const LEAVING_GRACE_MS = 60_000;

/**
 * One Connect transport over every replica a name resolves to: one HTTP/2 session per replica,
 * and each call goes to the next replica in turn (round robin), so calls spread over the pods
 * instead of riding one pinned connection. A replica that refuses the connection (stopped, or
 * gone and not yet out of DNS) is passed over and the call goes to another one: such a call
 * never reached a server, so sending it again cannot do anything twice.
 */
export class SpreadTransport implements Transport {
  #replicas: Replica[] = [];
  #turn = 0;
  #resolveAt = 0;
  #resolving: Promise<void> | undefined;
  readonly #now: () => number;

  constructor(
    private readonly url: URL,
    private readonly transportFor: (baseUrl: string, sessions: Http2SessionManager) => Transport,
    private readonly opts: SpreadOptions,
  ) {
    this.#now = opts.now ?? Date.now;
  }

  /** The addresses calls are spread over now (tests, diagnostics). */
  addresses(): string[] {
    return this.#replicas.map((r) => r.address);
  }

  async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>, signal: AbortSignal | undefined, timeoutMs: number | undefined, header: ConstructorParameters<typeof Headers>[0] | undefined, input: MessageInitShape<I>, contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    for (let attempt = 0; ; attempt++) {
      // Counted in flight by pick() itself, before any other task runs: a resolution that drops
      // the replica meanwhile leaves its session open for this call.
      const replica = await this.pick();
      try {
        return await replica.transport.unary(method, signal, timeoutMs, header, input, contextValues);
      } catch (error) {
        if (!this.neverSent(replica, error) || attempt >= this.#replicas.length) throw error;
      } finally {
        this.answered(replica);
      }
    }
  }

  async stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>, signal: AbortSignal | undefined, timeoutMs: number | undefined, header: ConstructorParameters<typeof Headers>[0] | undefined, input: AsyncIterable<MessageInitShape<I>>, contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    // Streams are not retried: their input may be consumed already. Counted until their response
    // starts only (none of ours outlives a rollout's drain).
    const replica = await this.pick();
    try {
      return await replica.transport.stream(method, signal, timeoutMs, header, input, contextValues);
    } finally {
      this.answered(replica);
    }
  }

  /** Closes every session (the client is being dropped). */
  close(): void {
    for (const replica of this.#replicas) replica.sessions.abort();
    this.#replicas = [];
  }

  private async pick(): Promise<Replica> {
    const now = this.#now();
    if (now >= this.#resolveAt) this.resolve().catch(() => undefined);
    // The first calls of a new client, all at once: each waits for the one resolution under way.
    if (this.#replicas.length === 0 && this.#resolving) await this.#resolving;
    const replicas = this.#replicas;
    if (replicas.length === 0) throw new ConnectError(`no address for ${this.url.hostname}`, Code.Unavailable);
    // Every replica refused lately: try one anyway rather than fail without asking.
    let chosen = replicas[this.#turn++ % replicas.length] as Replica;
    for (let i = 0; i < replicas.length && chosen.downUntil > now; i++) chosen = replicas[this.#turn++ % replicas.length] as Replica;
    chosen.inFlight++;
    return chosen;
  }

  /** A call picked by pick() is over: a replica that left the name closes its session after its last one. */
  private answered(replica: Replica): void {
    replica.inFlight--;
    if (replica.leaving && replica.inFlight === 0) replica.sessions.abort();
  }

  /** True when the call failed before any server saw it; the replica is then passed over for a while. */
  private neverSent(replica: Replica, error: unknown): boolean {
    // Not by code: connect-node reports a refused connection as Unavailable but a refused stream as Internal.
    if (!(error instanceof ConnectError) || !refusedConnection(error)) return false;
    replica.downUntil = this.#now() + this.opts.downForMs;
    this.#resolveAt = 0;
    return true;
  }

  private resolve(): Promise<void> {
    this.#resolveAt = this.#now() + this.opts.resolveEveryMs;
    this.#resolving ??= this.opts
      .lookup(this.url.hostname)
      .then((addresses) => this.adopt(addresses))
      .catch(() => {
        // Keep the replicas we know: a DNS hiccup must not empty the list. Try again soon.
        this.#resolveAt = this.#now() + Math.min(1000, this.opts.resolveEveryMs);
      })
      .finally(() => (this.#resolving = undefined));
    return this.#resolving;
  }

  private adopt(addresses: readonly string[]): void {
    if (addresses.length === 0) return;
    const known = new Map(this.#replicas.map((r) => [r.address, r]));
    const next = [...new Set(addresses)].map((address) => known.get(address) ?? this.open(address));
    for (const replica of this.#replicas) if (!next.includes(replica)) this.leave(replica);
    this.#replicas = next;
  }

  /**
   * A replica gone from the name (its pod is terminating, still answering what it has): new calls
   * go elsewhere at once, and the calls already on it are answered before its session closes;
   * aborting it would fail them, which a rollout must not do.
   */
  private leave(replica: Replica): void {
    replica.leaving = true;
    if (replica.inFlight === 0) {
      replica.sessions.abort();
      return;
    }
    setTimeout(() => replica.sessions.abort(), LEAVING_GRACE_MS).unref();
  }

  private open(address: string): Replica {
    const url = new URL(this.url.href);
    url.hostname = address.includes(":") ? `[${address}]` : address;
    const baseUrl = url.href.replace(/\/$/, "");
    const sessions = new Http2SessionManager(url.origin, undefined, this.opts.sessionOptions);
    return { address, sessions, transport: this.transportFor(baseUrl, sessions), downUntil: 0, inFlight: 0, leaving: false };
  }
}

const REFUSED = /^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ERR_HTTP2_GOAWAY_SESSION)$/;

/**
 * A refused connection, or a stream the server refused (GOAWAY, REFUSED_STREAM: RFC 9113 section
 * 8.7 guarantees such a stream was not processed): no request reached a handler.
 */
function refusedConnection(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && REFUSED.test(code)) return true;
    if (e.message.includes("NGHTTP2_REFUSED_STREAM")) return true;
  }
  return false;
}
