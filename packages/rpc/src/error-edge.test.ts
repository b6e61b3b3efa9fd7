import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { isDatabaseOutage, toEdgeError } from "./error-edge";

const logger = { warn: () => {}, error: () => {} } as unknown as Parameters<typeof toEdgeError>[1];

describe("the error edge", () => {
  it("turns a database that is restarting into Unavailable, not Internal (found by the fault suite)", () => {
    // What Prisma's pg adapter threw while the fault suite restarted PostgreSQL.
    const shuttingDown = Object.assign(new Error("Invalid `db.idempotencyRecord.findFirst()` invocation\nDatabase error. Code: `57P03`. Message: `the database system is shutting down`"), { code: "P2010" });
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const wrapped = new Error("driver adapter error", { cause: { code: "57P01", message: "terminating connection due to administrator command" } });
    const dropped = new Error("Client has encountered a connection error and is not queryable");
    for (const error of [shuttingDown, refused, wrapped, dropped]) {
      expect(isDatabaseOutage(error)).toBe(true);
      expect(toEdgeError(error, logger, "/x").code).toBe(Code.Unavailable);
    }
  });

  it("keeps other errors Internal and domain errors as they are", () => {
    expect(toEdgeError(new Error("Cannot read properties of undefined"), logger, "/x").code).toBe(Code.Internal);
    expect(toEdgeError(Object.assign(new Error("unique"), { code: "P2002" }), logger, "/x").code).toBe(Code.Internal);
    expect(toEdgeError(new ConnectError("nope", Code.NotFound), logger, "/x").code).toBe(Code.NotFound);
  });
});
