import ipaddr from "ipaddr.js";

/**
 * Whether a receiver's address may be connected to (decisions.md section 11). Only globally routable
 * unicast passes: loopback, private, link-local (the cloud metadata address among them), multicast,
 * unspecified, carrier-grade NAT and reserved ranges are refused, and so is every IPv6 form that
 * embeds an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo), which could smuggle a private one.
 * `allowLoopback` is the local-use deployment setting.
 */
export function isAllowedAddress(address: string, opts: { allowLoopback: boolean }): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (range === "unicast") return true;
  return opts.allowLoopback && range === "loopback";
}

/** The host of a URL as an IP literal (brackets removed), or undefined for a name. */
export function ipLiteralOf(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : undefined;
}
