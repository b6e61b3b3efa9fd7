import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "../../events/test/prisma/generated/client";
import { openDatabase } from "../src/index";
import { createTestDatabase, type TestDatabase } from "./test-database";

/** A client whose raw queries fail: what the probe must not need (Prisma costs it more than the round trip). */
class PrismaUnused extends PrismaClient {
  override $queryRawUnsafe(): never {
    throw new Error("the readiness probe went through Prisma");
  }
}

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase("readiness");
});
afterAll(async () => {
  await test?.drop();
});

describe("a service database's readiness probe", () => {
  it("asks the database on the pool, not through Prisma, and fails once the database is gone", async () => {
    const db = openDatabase(PrismaUnused, { url: test.url, maxConnections: 2, logger: { warn: () => undefined } });
    try {
      await expect(db.readiness.check()).resolves.toBeUndefined();
      await test.drop();
      await expect(db.readiness.check()).rejects.toThrow();
    } finally {
      await db.close();
    }
  });
});
