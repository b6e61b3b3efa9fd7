import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema, FieldViolationsSchema, RetryDelaySchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { describe, expect, it } from "vitest";
import { problemFromConnect } from "./from-connect";

describe("Connect errors as problems", () => {
  it("answers a peer that died mid-call (a reset stream, Canceled or Aborted with no reason) as 503, found by the fault suite", () => {
    for (const error of [new ConnectError("http/2 stream closed with error code CANCEL (0x8)", Code.Canceled), new ConnectError("read ECONNRESET", Code.Aborted)]) {
      expect(problemFromConnect(error)?.code).toBe("SERVICE_UNAVAILABLE");
    }
  });

  it("keeps outages 503 and leaves what it does not know to the error handler (500)", () => {
    expect(problemFromConnect(new ConnectError("down", Code.Unavailable))?.code).toBe("SERVICE_UNAVAILABLE");
    expect(problemFromConnect(new ConnectError("slow", Code.DeadlineExceeded))?.code).toBe("SERVICE_UNAVAILABLE");
    expect(problemFromConnect(new ConnectError("bug", Code.Internal))).toBeUndefined();
  });

  it("tells the client when to retry an unavailable dependency (Retry-After, integer seconds >= 1)", () => {
    for (const code of [Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted, Code.Canceled]) {
      expect(problemFromConnect(new ConnectError("down", code))?.extra.headers?.["retry-after"]).toMatch(/^[1-9]\d*$/);
    }
  });

  it("answers a held delivery as 409 DELIVERY_PIN_LOCKED with the hold's remaining seconds as Retry-After", () => {
    const error = new ConnectError("held", Code.FailedPrecondition, undefined, [
      { desc: ErrorReasonSchema, value: { reason: "DELIVERY_PIN_LOCKED" } },
      { desc: RetryDelaySchema, value: { seconds: 417n } },
    ]);
    const problem = problemFromConnect(error);
    expect(problem?.code).toBe("DELIVERY_PIN_LOCKED");
    expect(problem?.extra.headers?.["retry-after"]).toBe("417");
  });

  it("names a refused proof of delivery's fields as the driver API does", () => {
    const violations = [
      { field: "delivery_pin", code: "INCONSISTENT_VALUE", params: {} },
      { field: "evidence_media_asset_ids[1]", code: "UNKNOWN_REFERENCE", params: { entity: "media asset" } },
      { field: "evidence_media_asset_ids", code: "REQUIRED", params: { purpose: "DELIVERY_SIGNATURE" } },
      { field: "cod_collected", code: "REQUIRED", params: {} },
    ];
    const error = new ConnectError("refused", Code.InvalidArgument, undefined, [
      { desc: ErrorReasonSchema, value: { reason: "VALIDATION_FAILED" } },
      { desc: FieldViolationsSchema, value: { violations } },
    ]);
    const problem = problemFromConnect(error);
    expect(problem?.code).toBe("VALIDATION_FAILED");
    expect(problem?.extra.violations?.map((v) => [v.field, v.code])).toEqual([
      ["deliveryPin", "INCONSISTENT_VALUE"],
      ["evidenceMediaAssetIds[1]", "UNKNOWN_REFERENCE"],
      ["evidenceMediaAssetIds", "REQUIRED"],
      ["codCollected", "REQUIRED"],
    ]);
  });
});
