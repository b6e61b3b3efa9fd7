import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runTawsil } from "../../../packages/testing/src/operator-cli";
import { runCli } from "../src/cli/run-cli";
import { createMerchantDatabase, startTestService, type TestService } from "./support";

let db: { url: string; drop(): Promise<void> };
let service: TestService;

beforeAll(async () => {
  db = await createMerchantDatabase(inject("databaseAdminUrl"), "cli");
  service = await startTestService(db.url);
});

afterAll(async () => {
  await service?.close();
  await db?.drop();
});

async function tawsil(line: string[], url = service.adminUrl!): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(line, { out: (l) => out.push(l), err: (l) => err.push(l), env: { MERCHANT_ADMIN_URL: url } });
  return { code, out, err };
}

const value = (lines: string[], label: string) => lines.find((line) => line.startsWith(`${label} `))?.slice(label.length).trim();

describe("./tawsil", () => {
  it("onboards a merchant end to end", async () => {
    const created = await tawsil(["merchant", "create", "--code", "CLI-CO", "--display-name", "CLI Store", "--legal-name", "CLI Trading"]);
    expect(created).toMatchObject({ code: 0, err: [] });
    expect(value(created.out, "status")).toBe("DRAFT");

    expect(value((await tawsil(["merchant", "status", "CLI-CO", "ACTIVE"])).out, "status")).toBe("ACTIVE");
    expect(value((await tawsil(["merchant", "show", "CLI-CO"])).out, "display_name")).toBe("CLI Store");

    const location = await tawsil(["location", "add", "CLI-CO", "--code", "RUH-WH-01", "--lat", "24.7136", "--lng", "46.6753", "--address", "King Fahd Road", "--city", "RUH"]);
    expect(value(location.out, "coordinate")).toBe("24.713600, 46.675300");
    expect((await tawsil(["branch", "add", "CLI-CO", "--code", "MAIN", "--name", "Main"])).code).toBe(0);

    const card = await tawsil([
      "rate-card", "add", "CLI-CO", "--base-fee", "15", "--included-km", "10", "--per-km-fee", "1.5", "--included-weight-kg", "5",
      "--per-kg-fee", "2", "--cod-fee-percent", "1.5", "--cod-fee-minimum", "5", "--max-cod-amount", "5000",
      "--surcharge", "COLD_CHAIN=10", "--surcharge", "FRAGILE=3.5", "--expected-version", "1",
    ]);
    expect(card.code).toBe(0);
    expect(value(card.out, "version")).toBe("1");
    expect(value(card.out, "surcharges")).toBe("COLD_CHAIN=10.00 FRAGILE=3.50");
  });

  it("prints a new client's secret once, with a warning, and never again", async () => {
    const created = await tawsil(["client", "create", "CLI-CO", "--name", "shop backend", "--scopes", "shipments:read,shipments:write"]);
    expect(created.code).toBe(0);
    const clientId = value(created.out, "client_id") ?? "";
    const secret = value(created.out, "client_secret") ?? "";
    expect(secret).toMatch(/^tws_sk_/);
    expect(value(created.out, "scopes")).toBe("shipments:read shipments:write");
    expect(created.err).toEqual(["WARNING: store the client secret now; it is shown only this once and cannot be shown again."]);

    const shown = await tawsil(["client", "show", clientId]);
    expect(shown.out.join("\n")).not.toContain(secret);
    expect(value((await tawsil(["client", "disable", clientId])).out, "enabled")).toBe("false");
    expect(value((await tawsil(["client", "enable", clientId])).out, "enabled")).toBe("true");
  });

  it("rotates the signing key", async () => {
    const before = (await service.merchant.listSigningKeys({})).keys[0]?.kid;
    const rotated = await tawsil(["signing-key", "rotate"]);
    expect(rotated.code).toBe(0);
    const kid = value(rotated.out, "kid");
    expect(kid).not.toBe(before);
    expect((await service.merchant.listSigningKeys({})).keys.map((key) => key.kid)).toEqual([kid, before]);
  });

  it.each([
    [["merchant", "create", "--code", "CLI-CO", "--display-name", "X", "--legal-name", "X"], "tawsil: merchant CLI-CO already exists"],
    [["merchant", "create", "--code", "NEW-CO", "--display-name", "X"], "tawsil: --legal-name is required"],
    [["merchant", "status", "CLI-CO", "LIVE"], "tawsil: status must be one of DRAFT, ACTIVE, SUSPENDED, TERMINATED"],
    [["merchant", "status", "CLI-CO", "DRAFT"], "tawsil: a merchant cannot move from ACTIVE to DRAFT"],
    [["merchant", "show"], "tawsil: usage: ./tawsil merchant show <merchantCode>"],
    [["merchant", "show", "NOBODY"], "tawsil: merchant not found"],
    [["client", "create", "CLI-CO", "--name", "x", "--scopes", "root"], 'tawsil: scopes: unknown scope "root"; known: shipments:read, shipments:write, webhooks:manage'],
    [["location", "add", "CLI-CO", "--code", "X1", "--lat", "north", "--lng", "46", "--address", "a", "--city", "RUH"], "tawsil: --lat must be decimal degrees with at most 6 decimals, e.g. 24.7136 (negative: --lat=-46.5)"],
    [["branch", "add", "CLI-CO", "--code", "MAIN", "--name", "Again"], "tawsil: branch MAIN already exists"],
    [["merchant", "create", "--bogus"], "tawsil: Unknown option '--bogus'"],
    [["launch", "rockets"], 'tawsil: unknown command "launch rockets"; see `./tawsil help`'],
  ])("fails %j with one line and exit code 1", async (line, message) => {
    const result = await tawsil(line);
    expect(result.code).toBe(1);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]?.startsWith(message)).toBe(true);
    expect(result.err[0]).not.toMatch(/\n|\s+at\s+\S+\s+\(/);
  });

  it("says so when pointed at the service port instead of the admin listener", async () => {
    const result = await tawsil(["merchant", "show", "CLI-CO"], service.url);
    expect(result.code).toBe(1);
    expect(result.err).toEqual([`tawsil: ${service.url} serves no admin RPCs; point MERCHANT_ADMIN_URL at the merchant service's ADMIN_PORT`]);
  });

  it("says which service it could not reach", async () => {
    const result = await tawsil(["merchant", "show", "CLI-CO"], "http://127.0.0.1:1");
    expect(result.code).toBe(1);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(/^tawsil: .*\(merchant admin listener at http:\/\/127\.0\.0\.1:1\)$/);
  });

  it("lists the merchants by code, and says which has no rate card and what that means", async () => {
    expect((await tawsil(["merchant", "create", "--code", "CLI-BARE", "--display-name", "Bare", "--legal-name", "Bare Co"])).code).toBe(0);
    const list = await tawsil(["merchants", "list"]);
    expect(list).toMatchObject({ code: 0, err: [] });
    const line = (code: string) => list.out.find((l) => l.startsWith(`${code} `));
    expect(line("CLI-BARE")).toMatch(/^CLI-BARE\s+DRAFT\s+[0-9a-f-]{36}\s+Bare\s+no rate card \(estimates and creates answer 422: add one with `rate-card add`\)$/);
    expect(line("CLI-CO")).toMatch(/^CLI-CO\s+ACTIVE\s+[0-9a-f-]{36}\s+CLI Store\s+rate card v1$/);
    expect(list.out.indexOf(line("CLI-BARE")!)).toBeLessThan(list.out.indexOf(line("CLI-CO")!));
    expect((await tawsil(["merchants", "list", "--limit", "1"])).out).toEqual([expect.stringMatching(/^CLI-BARE /)]);
    expect((await tawsil(["merchants", "list", "--limit", "0"])).err).toEqual(["tawsil: --limit must be a whole number from 1 to 1000"]);
  });

  it("runs as ./tawsil from a shell without pnpm, against the admin listener its checkout's credentials file names", async () => {
    const listed = await runTawsil(["merchants", "list"], { TAWSIL_MERCHANT_ADMIN_URL: service.adminUrl! });
    expect(listed.err).toEqual([]);
    expect(listed.code).toBe(0);
    expect(listed.out.some((line) => line.startsWith("CLI-CO "))).toBe(true);
  }, 90_000);

  it("refuses, saying how to get one, when neither the environment nor the checkout's credentials name an admin listener", async () => {
    // Never the fixed port 7011: that is whichever checkout's `make dev` holds it.
    const refused = await runTawsil(["merchants", "list"], undefined);
    expect(refused.code).toBe(1);
    expect(refused.out).toEqual([]);
    expect(refused.err).toEqual([
      "tawsil: no MERCHANT_ADMIN_URL: credentials.env names no TAWSIL_MERCHANT_ADMIN_URL (start `make dev` in this checkout), and MERCHANT_ADMIN_URL is not set (a cluster: kubectl port-forward deploy/merchant 7011, then MERCHANT_ADMIN_URL=http://127.0.0.1:7011 ./tawsil ...)",
    ]);
    expect(await tawsil(["merchants", "list"], "")).toMatchObject({ code: 1, err: ["tawsil: MERCHANT_ADMIN_URL is not set; see `./tawsil help`"] });
  }, 90_000);

  it("lists every command in help", async () => {
    const help = await tawsil(["help"]);
    expect(help.code).toBe(0);
    for (const command of ["merchants list", "merchant create", "merchant status", "merchant show", "client create", "client disable", "client enable", "location add", "branch add", "rate-card add", "signing-key rotate", "help"]) {
      expect(help.out.some((line) => line.trimStart().startsWith(command))).toBe(true);
    }
    expect((await tawsil([])).code).toBe(1);
  });
});
