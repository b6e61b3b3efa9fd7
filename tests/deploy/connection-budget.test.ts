/**
 * The PostgreSQL connection budget of each overlay, counted from the rendered manifests and the
 * code (connection-budget.ts): pools, the sessions beside them, the HPA maximum, the rollout surge
 * and the migration Jobs. It must fit the server's max_connections that deploy/README.md asks for,
 * and the README's table must state the figures this count gives.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVICES_WITH_DATABASE } from "../../packages/topology/src";
import { serviceBudget, sessionsBesidePool } from "./connection-budget";
import { DEPLOY, render } from "./kustomize";

/** What deploy/README.md asks of each environment's server. */
const MAX_CONNECTIONS = { sandbox: 200, production: 300 } as const;
/** superuser_reserved_connections (3, PostgreSQL's default) and 10 for operators' psql and monitoring. */
const RESERVED = 13;

const README = readFileSync(path.join(DEPLOY, "README.md"), "utf8");
/** The README's section that states the budget (other tables there have rows per service too). */
const SECTION = README.slice(README.indexOf("## PostgreSQL: TLS and connections")).split("\n## ")[0] ?? "";

describe.each(["sandbox", "production"] as const)("the PostgreSQL connection budget of %s", (overlay) => {
  const manifests = render(path.join(DEPLOY, "overlays", overlay));
  const budgets = SERVICES_WITH_DATABASE.map((service) => serviceBudget(manifests, service));
  const peak = budgets.reduce((sum, b) => sum + b.peak, 0);

  it("fits the server's max_connections with the reserved sessions, at the HPA maximum during a rollout", () => {
    expect(peak).toBeGreaterThan(0);
    expect(peak + RESERVED).toBeLessThanOrEqual(MAX_CONNECTIONS[overlay]);
    expect(SECTION).toContain(`at least ${MAX_CONNECTIONS[overlay]} (${overlay})`);
  });

  it("is the figure deploy/README.md states, service by service and in all", () => {
    const column = overlay === "sandbox" ? 3 : 4;
    for (const b of budgets) {
      const row = SECTION.split("\n").find((line) => line.startsWith(`| ${b.service} |`));
      const cells = row?.split("|").map((cell) => cell.trim()).slice(1) ?? [];
      expect(cells.slice(1, 3), b.service).toEqual([String(b.pool), expect.stringMatching(new RegExp(`^${b.besidePool}:`))]);
      expect(cells[column], b.service).toBe(`${b.maxReplicas} + ${b.surge} pods, ${b.peak}`);
    }
    const total = SECTION.split("\n").find((line) => line.startsWith("| all services |"))?.split("|").map((cell) => cell.trim()).slice(1);
    expect(total?.[column]).toBe(String(peak));
  });
});

describe("sessions beside the pool", () => {
  it("are counted from the code: dispatch's two LISTENs, leader lock, relay and retention; tracking's retention alone", () => {
    expect(sessionsBesidePool("dispatch")).toBe(5);
    expect(sessionsBesidePool("tracking")).toBe(1);
  });
});
