import { describe, expect, it } from "vitest";
import { processDirs, tableStates } from "./settings-tables";
import { BEGIN, END, renderTable, withTable } from "./settings/readme-table";
import { jsdocByKey, settingsOf } from "./settings/settings-of";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("settings tables of the processes' READMEs", () => {
  it("cover the gateway and every service", () => {
    expect(processDirs()).toEqual(["gateway", "services/dispatch", "services/merchant", "services/pricing", "services/sandbox-fleet", "services/shipment", "services/tracking", "services/webhook"]);
  });

  it("come from schemas each tested beside it (src/config.test.ts in every process)", () => {
    for (const dir of processDirs()) expect(existsSync(path.join(ROOT, dir, "src", "config.test.ts")), dir).toBe(true);
  });

  it("are each exactly what scripts/settings-tables.ts generates from the config schema (make settings-tables)", async () => {
    for (const state of await tableStates()) {
      expect(state.undescribed, `${state.readme}: settings without a comment`).toEqual([]);
      expect(state.current, `${state.readme} is stale`).toBe(state.generated);
    }
  });

  it("read defaults through preprocess, transforms and optional keys as the process sees them", async () => {
    const pricing = Object.fromEntries((await settingsOf(ROOT, "services/pricing")).map((s) => [s.name, s.default]));
    expect(pricing).toMatchObject({ ROUTING_URL: "unset", CIRCUITY_FACTORS: '""', PEER_TIMEOUT_MS: "2000", KAFKA_BROKERS: "required", LOG_LEVEL: "info" });
    // Pricing owns no data: its settings name no database.
    expect(pricing).not.toHaveProperty("DATABASE_URL");
    expect((await settingsOf(ROOT, "services/shipment")).find((s) => s.name === "DATABASE_URL")?.default).toBe("required");
    // merchant's schema is an object under a .transform(); webhook's a flag with a boolean default.
    expect((await settingsOf(ROOT, "services/merchant")).find((s) => s.name === "TOKEN_TTL_SECONDS")?.default).toBe("3600");
    expect((await settingsOf(ROOT, "services/webhook")).find((s) => s.name === "WEBHOOK_ALLOW_INSECURE_URLS")?.default).toBe("false");
  });

  it("take one comment per key, never a neighbour's", () => {
    const docs = jsdocByKey("/** about AA */\n  AA: x,\n  /** spans\n   * two lines */\n  BB: y,\n  CC: z,\n");
    expect([...docs]).toEqual([["AA", "about AA"], ["BB", "spans two lines"]]);
  });

  it("rewrite only what lies between the markers, and refuse a README without them", () => {
    const table = renderTable([{ name: "X", default: "1", meaning: "a | b" }]);
    expect(table).toBe("| Setting | Default | Meaning |\n|---|---|---|\n| `X` | `1` | a \\| b |");
    const stale = `intro\n${BEGIN}\n| old |\n${END}\nafter\n`;
    expect(withTable(stale, table, "R")).toBe(`intro\n${BEGIN}\n${table}\n${END}\nafter\n`);
    expect(() => withTable("no markers", table, "R.md")).toThrow(/R\.md has no settings markers/);
  });
});
