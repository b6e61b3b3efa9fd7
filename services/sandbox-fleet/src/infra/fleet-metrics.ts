import { Counter, Gauge, type Registry } from "prom-client";
import type { FleetMetrics } from "../app/ports";

/** The fleet's own figures on /metrics: its cost is measured apart from the mesh's (issue 30). */
export function fleetMetricsIn(registry: Registry): FleetMetrics {
  const registers = [registry];
  const onShift = new Gauge({ name: "sandbox_fleet_drivers_on_shift", help: "The fleet's drivers on shift.", registers });
  const busy = new Gauge({ name: "sandbox_fleet_drivers_busy", help: "The fleet's drivers accepting an offer or carrying a shipment.", registers });
  const finished = new Counter({ name: "sandbox_fleet_deliveries_total", help: "Deliveries the fleet finished, by outcome (DELIVERED, DELIVERY_FAILED).", labelNames: ["outcome"] as const, registers });
  const polls = new Counter({ name: "sandbox_fleet_demand_polls_total", help: "Times the fleet asked dispatch for the demand (only while a pair's drivers are all busy).", registers });
  const reserve = new Counter({ name: "sandbox_fleet_reserve_calls_total", help: "Reserve drivers called beyond a pair's cap for new shipments waiting behind a backlog.", registers });
  return {
    driversOnShift: (count) => onShift.set(count),
    driversBusy: (count) => busy.set(count),
    deliveryFinished: (outcome) => finished.inc({ outcome }),
    demandPolled: () => polls.inc(),
    reserveCalled: (count) => reserve.inc(count),
  };
}
