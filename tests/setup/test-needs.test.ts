import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../deploy/kustomize";
import { needsKafka } from "./test-needs";

describe("what one process's tests need (make test SERVICE=...)", () => {
  // Pricing's tests read dispatch's city staffing from a real broker (its eligibility index).
  it("gives Kafka to the services whose tests consume or relay events, and not to merchant or the gateway", () => {
    const needs = Object.fromEntries(
      ["gateway", "services/pricing", "services/merchant", "services/dispatch", "services/shipment", "services/tracking", "services/webhook"].map((dir) => [dir, needsKafka(path.join(ROOT, dir))]),
    );
    expect(needs).toEqual({
      gateway: false, "services/pricing": true, "services/merchant": false,
      "services/dispatch": true, "services/shipment": true, "services/tracking": true, "services/webhook": true,
    });
  });

  it("notices a helper that asks for the broker, however deep, and ignores installed packages", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tawsil-needs-"));
    try {
      mkdirSync(path.join(dir, "node_modules", "x"), { recursive: true });
      writeFileSync(path.join(dir, "node_modules", "x", "a.ts"), 'inject("kafkaBrokers")');
      expect(needsKafka(dir)).toBe(false);
      mkdirSync(path.join(dir, "test", "support"), { recursive: true });
      writeFileSync(path.join(dir, "test", "support", "stack.ts"), 'const brokers = inject( "kafkaBrokers" );');
      expect(needsKafka(dir)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
