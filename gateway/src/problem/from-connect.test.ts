import { Code, ConnectError } from "@connectrpc/connect";
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
});
