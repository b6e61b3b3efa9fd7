import { DependencyUnavailableError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import { SystemResolver } from "./dns-resolver";

const failing = (code: string) => async () => Promise.reject(Object.assign(new Error(`getaddrinfo ${code} host`), { code }));

describe("SystemResolver", () => {
  it("resolves a name that does not exist (ENOTFOUND) to nothing", async () => {
    expect(await new SystemResolver(failing("ENOTFOUND")).resolve("nowhere.example")).toEqual([]);
  });

  it.each(["EAI_AGAIN", "ESERVFAIL", "ETIMEOUT", "ECONNREFUSED", "EAI_FAIL"])("reports %s as the resolver being unavailable, not as a name that does not resolve", async (code) => {
    await expect(new SystemResolver(failing(code)).resolve("hooks.example")).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it("stops waiting at its deadline", async () => {
    const started = Date.now();
    await expect(new SystemResolver(() => new Promise(() => {}), 50).resolve("slow.example")).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("answers every address of the name", async () => {
    const resolver = new SystemResolver(async () => [{ address: "93.184.216.34", family: 4 }, { address: "2606:2800:220:1::1", family: 6 }]);
    expect(await resolver.resolve("hooks.example")).toEqual([{ address: "93.184.216.34", family: 4 }, { address: "2606:2800:220:1::1", family: 6 }]);
  });
});
