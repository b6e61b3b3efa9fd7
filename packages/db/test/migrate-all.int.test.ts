import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { migrateAll } from "../../testing/src/migrate-all";
import { SERVICES_WITH_DATABASE } from "../../topology/src";
import { dropDatabase } from "../src/index";
import { ADMIN_URL } from "./test-database";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The committed migrations of a service, in the order the runner applies them. */
const migrationsOf = (service: string) =>
  readdirSync(path.join(ROOT, "services", service, "prisma", "migrations"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));

const PREFIX = `tawsil_test_all_${randomBytes(3).toString("hex")}_`;

afterAll(async () => {
  await Promise.all(SERVICES_WITH_DATABASE.map((service) => dropDatabase(ADMIN_URL, `${PREFIX}${service}`)));
});

describe("migrateAll", () => {
  it("creates one database per service that owns data, migrates each, and is a no-op the second time", async () => {
    const first = await migrateAll(ADMIN_URL, { dbPrefix: PREFIX });

    expect(Object.keys(first).sort()).toEqual([...SERVICES_WITH_DATABASE].sort());
    expect(first).not.toHaveProperty("pricing");
    expect(first.shipment.name).toBe(`${PREFIX}shipment`);
    expect(new URL(first.shipment.url).pathname).toBe(`/${PREFIX}shipment`);
    for (const service of SERVICES_WITH_DATABASE) expect({ service, applied: first[service].applied }).toEqual({ service, applied: migrationsOf(service) });
    expect(first.shipment.applied).toContain("20261125224550_init");

    const second = await migrateAll(ADMIN_URL, { dbPrefix: PREFIX });
    expect(Object.values(second).flatMap((database) => database.applied)).toEqual([]);
  });
});
