import { describe, expect, it } from "vitest";
import { DEFAULTS, parseSettings } from "./settings";

describe("BENCH_ARGS", () => {
  it("defaults to the issue's conditions", () => {
    expect(parseSettings([])).toEqual({ ...DEFAULTS, skip: new Set() });
    expect(DEFAULTS).toMatchObject({ connections: 8, rounds: 3, roundSeconds: 6, listShipments: 100_000, waitingShipments: 10_000 });
  });

  it("reads each option, in either form", () => {
    const settings = parseSettings(["--scenarios", "create,read", "--seconds=5", "--rounds", "2", "--connections", "16", "--skip", "idle,warm-start", "--kafka-port", "29092"]);
    expect(settings).toMatchObject({ scenarios: ["create", "read"], roundSeconds: 5, rounds: 2, connections: 16, kafkaPort: 29092 });
    expect([...settings.skip]).toEqual(["idle", "warm-start"]);
  });

  it("refuses what it does not know, with the usage", () => {
    expect(() => parseSettings(["--fast"])).toThrow(/unknown option --fast[\s\S]*make bench BENCH_ARGS/);
    expect(() => parseSettings(["--rounds", "zero"])).toThrow(/expected a number/);
    expect(() => parseSettings(["--skip", "create"])).toThrow(/expected some of/);
    expect(() => parseSettings(["--seconds"])).toThrow(/needs a value/);
  });
});
