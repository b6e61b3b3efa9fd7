import { ipLiteralOf, isAllowedAddress } from "../domain/address-policy";
import { EndpointUrlError } from "../domain/errors";
import type { ResolvedAddress, Resolver } from "./ports";

export interface AddressPolicy {
  /** The local-use deployment setting: http and loopback receivers (off in production). */
  readonly allowInsecure: boolean;
}

/**
 * The address a delivery to `url` connects to, after checking it: an IP literal is checked as it is;
 * a name is resolved and refused when ANY of its addresses is forbidden (an attacker controlling the
 * zone could otherwise mix one private address in). The caller connects to the returned address
 * only, so a second resolution cannot swap in another (DNS rebinding).
 */
export async function checkedAddress(url: URL, resolver: Resolver, policy: AddressPolicy): Promise<ResolvedAddress> {
  const opts = { allowLoopback: policy.allowInsecure };
  const literal = ipLiteralOf(url.hostname);
  const addresses: ResolvedAddress[] = literal ? [{ address: literal, family: literal.includes(":") ? 6 : 4 }] : await resolver.resolve(url.hostname);
  const first = addresses[0];
  if (!first) throw new EndpointUrlError({ code: "INCONSISTENT_VALUE", rule: "UNRESOLVABLE" });
  if (!addresses.every((a) => isAllowedAddress(a.address, opts))) throw new EndpointUrlError({ code: "INCONSISTENT_VALUE", rule: "ADDRESS" });
  return first;
}
