import { Code, ConnectError } from "@connectrpc/connect";
import {
  AlreadyExistsError,
  DependencyUnavailableError,
  DomainError,
  FailedPreconditionError,
  NotFoundError,
  ValidationError,
  VersionConflictError,
  type ErrorKind,
} from "@tawsil/errors";
import { ErrorReasonSchema, FieldViolationsSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { capturedLogger } from "@tawsil/testing";
import { describe, expect, it } from "vitest";
import { toConnectError, withDomainErrors } from "../src/index";

/** A service's own error declares its kind, as merchant's InvalidClientError does. */
class ServiceError extends DomainError {
  constructor(
    readonly kind: ErrorKind,
    readonly reason: string,
  ) {
    super(reason.toLowerCase());
  }
}

function connect(error: unknown): { code: Code; reason: string | undefined; message: string } {
  if (!(error instanceof ConnectError)) throw new Error("expected a ConnectError");
  return { code: error.code, reason: error.findDetails(ErrorReasonSchema)[0]?.reason, message: error.rawMessage };
}

describe("toConnectError", () => {
  it.each([
    [new ValidationError("parcel.total_weight_grams", "must be positive"), Code.InvalidArgument, "INVALID_ARGUMENT", "parcel.total_weight_grams: must be positive"],
    [new NotFoundError("saved location"), Code.NotFound, "SAVED_LOCATION_NOT_FOUND", "saved location not found"],
    [new AlreadyExistsError("merchant", "ACME"), Code.AlreadyExists, "MERCHANT_ALREADY_EXISTS", "merchant ACME already exists"],
    [new FailedPreconditionError("NO_RATE_CARD", "no rate card"), Code.FailedPrecondition, "NO_RATE_CARD", "no rate card"],
    [new VersionConflictError("RATE_CARD_VERSION_CONFLICT", "read again"), Code.Aborted, "RATE_CARD_VERSION_CONFLICT", "read again"],
    [new DependencyUnavailableError("the routing engine"), Code.Unavailable, "DEPENDENCY_UNAVAILABLE", "the routing engine is unavailable"],
    [new ServiceError("unauthenticated", "INVALID_CLIENT"), Code.Unauthenticated, "INVALID_CLIENT", "invalid_client"],
    [new ServiceError("permission-denied", "ACCESS_DENIED"), Code.PermissionDenied, "ACCESS_DENIED", "access_denied"],
  ])("maps %s to its code with the reason as an ErrorReason detail", (error, code, reason, message) => {
    expect(connect(toConnectError(error))).toEqual({ code, reason, message });
  });

  it("sends a service's own details beside the reason", () => {
    const violation = { field: "items[0].quantity", code: "OUT_OF_RANGE", params: { min: "1" } };
    const details = (error: DomainError) => (error instanceof ValidationError ? [{ desc: FieldViolationsSchema, value: { violations: [violation] } }] : []);
    const sent = toConnectError(new ValidationError("items[0].quantity", "must be positive"), { details });
    if (!(sent instanceof ConnectError)) throw new Error("expected a ConnectError");
    expect(sent.findDetails(ErrorReasonSchema).map((detail) => detail.reason)).toEqual(["INVALID_ARGUMENT"]);
    expect(sent.findDetails(FieldViolationsSchema).map((detail) => detail.violations)).toMatchObject([[violation]]);
  });

  it("leaves anything else to the server's edge, untouched", () => {
    const bug = new Error("relation \"merchant\" does not exist");
    expect(toConnectError(bug)).toBe(bug);
  });

  it("logs an outage's cause at warn and never sends it", () => {
    const { logger, lines } = capturedLogger("rpc-test");
    const cause = new Error("connect ECONNREFUSED 10.0.0.7:5000");
    const sent = connect(toConnectError(new DependencyUnavailableError("the merchant service", { cause }), { logger }));
    expect(sent.message).toBe("the merchant service is unavailable");
    const logged = lines.map((line) => JSON.parse(line) as { level: string; reason: string; err: { message: string } });
    expect(logged).toMatchObject([{ level: "warn", reason: "DEPENDENCY_UNAVAILABLE", err: { message: cause.message } }]);
  });
});

describe("withDomainErrors", () => {
  it("returns what a method returns and turns what it throws into Connect errors", async () => {
    const impl = withDomainErrors({
      async ok(request: { n: number }) {
        return { n: request.n + 1 };
      },
      async missing() {
        throw new NotFoundError("branch");
      },
    });
    expect(await impl.ok({ n: 1 })).toEqual({ n: 2 });
    const error: unknown = await impl.missing().catch((e: unknown) => e);
    expect(connect(error)).toEqual({ code: Code.NotFound, reason: "BRANCH_NOT_FOUND", message: "branch not found" });
  });
});
