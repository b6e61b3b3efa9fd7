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
    expect(problemFromConnect(new ConnectError("bug", Code.Internal))).toBeUndefined();
  });
});
