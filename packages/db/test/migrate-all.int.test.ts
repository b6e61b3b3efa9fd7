import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { migrateAll } from "../../../scripts/migrate-all";
import { SERVICES } from "../../../scripts/mesh";
import { dropDatabase } from "../src/index";
import { ADMIN_URL } from "./test-database";

const PREFIX = `tawsil_test_all_${randomBytes(3).toString("hex")}_`;

afterAll(async () => {
  await Promise.all(SERVICES.map((service) => dropDatabase(ADMIN_URL, `${PREFIX}${service}`)));
});

describe("migrateAll", () => {
  it("creates one database per service, migrates each, and is a no-op the second time", async () => {
    const first = await migrateAll(ADMIN_URL, { dbPrefix: PREFIX });

    expect(Object.keys(first).sort()).toEqual([...SERVICES].sort());
    expect(first.shipment.name).toBe(`${PREFIX}shipment`);
    expect(new URL(first.shipment.url).pathname).toBe(`/${PREFIX}shipment`);
    expect(first.shipment.applied).toEqual(["20261125224550_init"]);
    expect(first.merchant.applied).toEqual([]);

    const second = await migrateAll(ADMIN_URL, { dbPrefix: PREFIX });
    expect(Object.values(second).flatMap((database) => database.applied)).toEqual([]);
  });
});
