import { BlockList, isIP } from "node:net";

/**
 * Which TCP peers may tell the gateway the client's address. X-Forwarded-For is honoured only from
 * a peer inside TRUSTED_PROXY_CIDRS (the ingress controller's pods), and read from the right: each
 * entry a trusted proxy appended is skipped while it is itself inside those ranges, and the first
 * one that is not is the client. Anything to its left came from the client and is never believed.
 * A hop count (the old TRUSTED_PROXY_HOPS) trusted the last entry whoever sent it, so a pod calling
 * the gateway directly chose its own address for the per-address limits.
 */
export interface ProxyRange {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

/** `10.0.0.0/8,fd00::/8` as ranges, or the first entry that is not one (for the config error). */
export function parseProxyRanges(value: string): { ranges: ProxyRange[] } | { invalid: string } {
  const ranges: ProxyRange[] = [];
  for (const entry of value.split(",").map((e) => e.trim()).filter(Boolean)) {
    const [address = "", prefix, ...rest] = entry.split("/");
    const version = isIP(address);
    const bits = Number(prefix);
    const most = version === 6 ? 128 : 32;
    if (version === 0 || rest.length > 0 || prefix === undefined || !/^\d{1,3}$/.test(prefix) || bits > most) return { invalid: entry };
    ranges.push({ address, prefix: bits, family: version === 6 ? "ipv6" : "ipv4" });
  }
  return { ranges };
}

/** The predicate fastify's trustProxy asks of the socket's peer and then of each X-Forwarded-For entry from the right. */
export function trustedProxies(ranges: readonly ProxyRange[]): (address: string) => boolean {
  const trusted = new BlockList();
  for (const range of ranges) trusted.addSubnet(range.address, range.prefix, range.family);
  // BlockList matches an IPv4-mapped IPv6 peer (a dual-stack socket's ::ffff:10.1.2.3) against IPv4 ranges.
  return (address) => {
    const version = isIP(address);
    return version !== 0 && trusted.check(address, version === 6 ? "ipv6" : "ipv4");
  };
}
