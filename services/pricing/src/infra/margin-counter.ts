import { Counter, type Registry } from "prom-client";
import type { MarginMonitor } from "../app/ports";
import type { ServiceLevel } from "@tawsil/domain";

/**
 * Counts quotes priced below carrier cost, by service level, on /metrics. How far below is
 * commercial data and is recorded nowhere.
 */
export class MarginCounter implements MarginMonitor {
  private readonly counter: Counter<"service_level">;

  constructor(registry: Registry) {
    this.counter = new Counter({
      name: "pricing_negative_margin_quotes_total",
      help: "Quotes whose price net of VAT is below the carrier cost.",
      labelNames: ["service_level"] as const,
      registers: [registry],
    });
  }

  negativeMargin(level: ServiceLevel): void {
    this.counter.inc({ service_level: level });
  }
}
