import { lookup as systemLookup } from "node:dns/promises";
import { DependencyUnavailableError } from "@tawsil/errors";
import type { ResolvedAddress, Resolver } from "../app/ports";

/** getaddrinfo as `dns.lookup(name, { all: true })` answers it. */
export type Lookup = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

const lookupAll: Lookup = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/** Name resolution stops waiting after this long (decisions.md section 11: DNS has a deadline). */
export const DNS_DEADLINE_MS = 5_000;

/**
 * The system resolver (getaddrinfo, as connections would use it), every address of the name.
 * Only a name that does not exist (NXDOMAIN, ENOTFOUND) resolves to nothing; a resolver that
 * failed or timed out (EAI_AGAIN, SERVFAIL, the deadline) says nothing about the name, so it is
 * DependencyUnavailableError: a registration answers 503 (retry later), never the 422 that tells
 * the merchant the URL is wrong.
 */
export class SystemResolver implements Resolver {
  constructor(
    private readonly lookup: Lookup = lookupAll,
    private readonly deadlineMs = DNS_DEADLINE_MS,
  ) {}

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DependencyUnavailableError("name resolution")), this.deadlineMs);
    });
    try {
      const found = await Promise.race([this.lookup(hostname), deadline]);
      return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    } catch (error) {
      if (error instanceof DependencyUnavailableError) throw error;
      if (codeOf(error) === "ENOTFOUND") return [];
      throw new DependencyUnavailableError("name resolution", { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}

const codeOf = (error: unknown): unknown => (typeof error === "object" && error !== null && "code" in error ? error.code : undefined);
