import { Code, ConnectError } from "@connectrpc/connect";
import { DatabaseConnectionError } from "@tawsil/db/failures";
import { describe, expect, it } from "vitest";
import { toEdgeError } from "./error-edge";

const lines: { level: string; obj: Record<string, unknown> }[] = [];
const logger = {
  warn: (obj: Record<string, unknown>) => lines.push({ level: "warn", obj }),
  error: (obj: Record<string, unknown>) => lines.push({ level: "error", obj }),
} as unknown as Parameters<typeof toEdgeError>[1];

/**
 * The shapes the drivers give (packages/db/test/failures.int.test.ts produces each one for real):
 * what matters here is that the edge asks @tawsil/db, and answers Unavailable exactly when it says so.
 */
const adapterError = (cause: Record<string, unknown>) => Object.assign(new Error("DriverAdapterError"), { name: "DriverAdapterError", cause });
const prismaKnown = (code: string, driverAdapterError?: Error) => Object.assign(new Error("Invalid invocation"), { code, clientVersion: "7.10.0", meta: driverAdapterError ? { driverAdapterError } : {} });

describe("the error edge", () => {
  it("turns a database that is down or restarting into Unavailable, logged as a warning", () => {
    const outages = [
      prismaKnown("P2010", adapterError({ kind: "postgres", code: "57P03", originalCode: "57P03" })),
      prismaKnown("P1017", adapterError({ kind: "ConnectionClosed" })),
      prismaKnown("P1001", adapterError({ kind: "DatabaseNotReachable" })),
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01", severity: "FATAL" }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", syscall: "connect", errno: -111 }),
      // What a connect to a stopped PostgreSQL container answered in the fault suite: the pg adapter
      // passes it through untouched (it maps only four socket codes), and no pattern knew it: a 500.
      Object.assign(new Error("connect EHOSTUNREACH 127.0.0.1:28691"), { code: "EHOSTUNREACH", syscall: "connect", errno: -113, address: "127.0.0.1", port: 28691 }),
      new DatabaseConnectionError("08006", "the connection to the database was lost", { cause: new Error("Connection terminated unexpectedly") }),
    ];
    for (const error of outages) {
      lines.length = 0;
      expect(toEdgeError(error, logger, "/x").code).toBe(Code.Unavailable);
      expect(lines.map((l) => l.level)).toEqual(["warn"]);
    }
  });

  it("keeps other errors Internal (logged as errors) and domain errors as they are", () => {
    lines.length = 0;
    expect(toEdgeError(new Error("Cannot read properties of undefined"), logger, "/x").code).toBe(Code.Internal);
    expect(toEdgeError(prismaKnown("P2002", adapterError({ kind: "UniqueConstraintViolation" })), logger, "/x").code).toBe(Code.Internal);
    // Words are not a classification: only the driver's fields are.
    expect(toEdgeError(new Error("Connection terminated unexpectedly"), logger, "/x").code).toBe(Code.Internal);
    expect(lines.map((l) => l.level)).toEqual(["error", "error", "error"]);
    expect(toEdgeError(new ConnectError("nope", Code.NotFound), logger, "/x").code).toBe(Code.NotFound);
  });
});
