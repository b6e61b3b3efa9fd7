import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { prismaClientDirs, prismaConfigs } from "./prisma-configs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

describe("prismaClientDirs", () => {
  it("names, for every config, the folder its generated client is in", () => {
    const dirs = prismaClientDirs();
    expect(dirs).toHaveLength(prismaConfigs().length);
    expect(dirs).toContain(path.join("services", "shipment", "src", "infra", "prisma", "generated"));
    expect(dirs).toContain(path.join("packages", "events", "test", "prisma", "generated"));
    // make install generated them (the suite runs after it): each holds its client.
    for (const dir of dirs) expect(existsSync(path.join(ROOT, dir, "client.ts")), dir).toBe(true);
  });
});
