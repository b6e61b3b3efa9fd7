import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Code, draft, failure, idempotency, startStack, type Stack } from "./support";

/**
 * A duplicate that finds the first request with its key still running waits up to
 * IDEMPOTENCY_WAIT_MS (here 300 ms), then gives up with IDEMPOTENCY_KEY_IN_USE, having consumed
 * nothing. The first request is held open by taking its scope's lock from outside.
 */
let stack: Stack;
let merchantId: string;

beforeAll(async () => {
  stack = await startStack(inject("databaseAdminUrl"), "wait", { IDEMPOTENCY_WAIT_MS: "300" });
  merchantId = await stack.newMerchant("WAITER");
});
afterAll(async () => stack?.close());

describe("a duplicate while the first request is still running", () => {
  it("gives up after the wait with Aborted IDEMPOTENCY_KEY_IN_USE, and the key stays usable", async () => {
    const key = "key-held-elsewhere-0001";
    const body = draft("ORDER-HELD");
    const holder = new pg.Client({ connectionString: stack.databaseUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [["create", merchantId, "client-1", key].join("|")]);
      expect(await failure(stack.client.createShipment({ merchantId, idempotency: idempotency(key, body), draft: body }))).toMatchObject({
        code: Code.Aborted,
        reason: "IDEMPOTENCY_KEY_IN_USE",
      });
      await holder.query("COMMIT");
    } finally {
      await holder.end();
    }
    const created = await stack.client.createShipment({ merchantId, idempotency: idempotency(key, body), draft: body });
    expect(created.replayed).toBe(false);
    expect(created.shipment?.externalReference).toBe("ORDER-HELD");
  });
});
