/**
 * Shortens a caller's deadline above the server's bound to the bound, before connect-node reads
 * it. connect-node refuses such a call outright with INVALID_ARGUMENT ("timeout 60000ms must be <=
 * 30000"): a stock gRPC client that sets a minute, as many do, would fail every call. The bound
 * still holds: the handler's signal aborts at it and the caller gets DEADLINE_EXCEEDED.
 * A request without a deadline keeps none: a health Watch may rightly last for hours.
 */
const GRPC_TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const GRPC_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };

export function boundDeadline(headers: Record<string, string | string[] | undefined>, maxTimeoutMs: number): void {
  const grpc = headers["grpc-timeout"];
  const match = typeof grpc === "string" ? GRPC_TIMEOUT.exec(grpc) : null;
  if (match && Number(match[1]) * (GRPC_UNIT_MS[match[2] ?? ""] ?? 0) > maxTimeoutMs) headers["grpc-timeout"] = `${maxTimeoutMs}m`;
  const connect = headers["connect-timeout-ms"];
  if (typeof connect === "string" && /^\d{1,10}$/.test(connect) && Number(connect) > maxTimeoutMs) headers["connect-timeout-ms"] = String(maxTimeoutMs);
}
