import { lookup } from "node:dns/promises";
import type { ResolvedAddress, Resolver } from "../app/ports";

/** The system resolver (getaddrinfo, as connections would use it), every address of the name. */
export class SystemResolver implements Resolver {
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    try {
      const found = await lookup(hostname, { all: true, verbatim: true });
      return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
    } catch {
      return [];
    }
  }
}
