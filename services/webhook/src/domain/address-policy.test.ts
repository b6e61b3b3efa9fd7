import { describe, expect, it } from "vitest";
import { ipLiteralOf, isAllowedAddress } from "./address-policy";

const production = { allowLoopback: false };

describe("the receiver address policy", () => {
  it.each([
    ["loopback v4", "127.0.0.1"],
    ["loopback v4, elsewhere in 127/8", "127.10.20.30"],
    ["loopback v6", "::1"],
    ["private 10/8", "10.1.2.3"],
    ["private 172.16/12", "172.20.0.1"],
    ["private 192.168/16", "192.168.1.1"],
    ["link-local v4", "169.254.10.10"],
    ["cloud metadata", "169.254.169.254"],
    ["link-local v6", "fe80::1"],
    ["unique local v6", "fd00::1"],
    ["multicast v4", "224.0.0.1"],
    ["multicast v6", "ff02::1"],
    ["unspecified v4", "0.0.0.0"],
    ["unspecified v6", "::"],
    ["IPv4-mapped IPv6", "::ffff:127.0.0.1"],
    ["IPv4-mapped public IPv6", "::ffff:8.8.8.8"],
    ["NAT64", "64:ff9b::a00:1"],
    ["carrier-grade NAT", "100.64.0.1"],
    ["broadcast", "255.255.255.255"],
  ])("refuses %s (%s) in production", (_name, address) => {
    expect(isAllowedAddress(address, production)).toBe(false);
  });

  it("accepts public unicast addresses", () => {
    expect(isAllowedAddress("8.8.8.8", production)).toBe(true);
    expect(isAllowedAddress("2001:4860:4860::8888", production)).toBe(true);
  });

  it("accepts loopback only with the local-use setting", () => {
    expect(isAllowedAddress("127.0.0.1", { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress("::1", { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress("10.0.0.1", { allowLoopback: true })).toBe(false);
  });

  it("tells IP literals from names", () => {
    expect(ipLiteralOf("[::1]")).toBe("::1");
    expect(ipLiteralOf("10.0.0.1")).toBe("10.0.0.1");
    expect(ipLiteralOf("example.com")).toBeUndefined();
  });
});
