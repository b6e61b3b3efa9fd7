import { Resolver as AresResolver } from "node:dns/promises";
import { DependencyUnavailableError } from "@tawsil/errors";
import type { ResolvedAddress, Resolver } from "../app/ports";

/** The addresses of one family a name has (A for 4, AAAA for 6), as c-ares answers them. */
export type Query = (hostname: string, family: 4 | 6) => Promise<readonly string[]>;

/** Name resolution stops waiting after this long (decisions.md section 11: DNS has a deadline). */
export const DNS_DEADLINE_MS = 5_000;

/** c-ares errors that say the name has no address of that family: the name is answered, with nothing. */
const NO_ADDRESS = new Set(["ENOTFOUND", "ENODATA"]);

export interface DnsQueryOptions {
  /** Name servers (`ip` or `ip:port`); the system's (/etc/resolv.conf) when empty. */
  readonly servers?: readonly string[];
  readonly deadlineMs?: number;
}

/**
 * Queries over c-ares (node:dns Resolver), which waits on sockets in the event loop: unlike
 * getaddrinfo (dns.lookup), a name server that never answers holds no thread of libuv's pool of
 * four, which the process's file and crypto work share. Two tries of a third of the deadline each,
 * so c-ares itself gives up about when the deadline does.
 */
export function aresQuery(opts: DnsQueryOptions = {}): Query {
  const deadlineMs = opts.deadlineMs ?? DNS_DEADLINE_MS;
  const resolver = new AresResolver({ timeout: Math.max(1, Math.floor(deadlineMs / 3)), tries: 2 });
  if (opts.servers && opts.servers.length > 0) resolver.setServers([...opts.servers]);
  return (hostname, family) => (family === 4 ? resolver.resolve4(hostname) : resolver.resolve6(hostname));
}

/** RFC 6761: localhost names are loopback and never asked of DNS (c-ares does not read /etc/hosts for queries). */
const isLocalhost = (hostname: string) => hostname === "localhost" || hostname.endsWith(".localhost");
const LOOPBACK: ResolvedAddress[] = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

/**
 * Every address of a name, A and AAAA, within a deadline. Only a name without addresses (NXDOMAIN,
 * no records: ENOTFOUND, ENODATA) resolves to nothing; a resolver that failed or timed out
 * (SERVFAIL, refused, the deadline) says nothing about the name, so it is
 * DependencyUnavailableError: a registration answers 503 (retry later), never the 422 that tells
 * the merchant the URL is wrong, and a delivery attempt fails alone as DNS_FAILURE.
 */
export class DnsResolver implements Resolver {
  constructor(
    private readonly query: Query = aresQuery(),
    private readonly deadlineMs = DNS_DEADLINE_MS,
  ) {}

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    if (isLocalhost(hostname)) return LOOPBACK;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DependencyUnavailableError("name resolution")), this.deadlineMs);
    });
    try {
      const [v4, v6] = await Promise.race([Promise.all([this.#family(hostname, 4), this.#family(hostname, 6)]), deadline]);
      return [...v4.map((address) => ({ address, family: 4 as const })), ...v6.map((address) => ({ address, family: 6 as const }))];
    } finally {
      clearTimeout(timer);
    }
  }

  async #family(hostname: string, family: 4 | 6): Promise<readonly string[]> {
    try {
      return await this.query(hostname, family);
    } catch (error) {
      if (NO_ADDRESS.has(String(codeOf(error)))) return [];
      throw new DependencyUnavailableError("name resolution", { cause: error });
    }
  }
}

const codeOf = (error: unknown): unknown => (typeof error === "object" && error !== null && "code" in error ? error.code : undefined);
