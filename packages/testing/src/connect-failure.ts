import { ConnectError, type Code } from "@connectrpc/connect";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";

/** The Connect error a call failed with, and its ErrorReason detail (fails the test when the call succeeded). */
export async function failure(call: Promise<unknown>): Promise<{ code: Code; reason: string | undefined; message: string }> {
  try {
    await call;
  } catch (error) {
    const connect = ConnectError.from(error);
    return { code: connect.code, reason: connect.findDetails(ErrorReasonSchema)[0]?.reason, message: connect.rawMessage };
  }
  throw new Error("expected the call to fail");
}
