import { Code, ConnectError, createRouterTransport, createClient } from "@connectrpc/connect";
import { createLogger } from "@tawsil/logging";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "@tawsil/proto/grpc/health/v1/health_pb";
import { describe, expect, it } from "vitest";
import { failFast } from "./fail-fast";
import { PeerHealth } from "./peer-health";

const logger = createLogger({ service: "gateway-test", level: "silent" });

/** A peer (answering the health check) whose answer each test sets, counting the calls that reach it. */
function peer(answer: () => ServingStatus) {
  const health = new PeerHealth("tracking", logger);
  const seen = { calls: 0, rechecks: 0 };
  health.onRecheck(() => seen.rechecks++);
  const transport = createRouterTransport(
    (router) => {
      router.service(Health, {
        check: async () => {
          seen.calls++;
          return { status: answer() };
        },
      });
    },
    { transport: { interceptors: [failFast(health)] } },
  );
  return { health, seen, client: createClient(Health, transport) };
}

const failWith = (error: ConnectError) => () => {
  throw error;
};

describe("a peer's circuit", () => {
  it("refuses at once, sending nothing, while the peer is known down", async () => {
    const { health, seen, client } = peer(() => ServingStatus.SERVING);
    health.suspect();
    await expect(client.check({})).rejects.toMatchObject({ code: Code.Unavailable });
    expect(seen.calls).toBe(0);
    health.observe(true);
    await client.check({});
    expect(seen.calls).toBe(1);
  });

  it("marks the peer down and asks for a health check at once when a call cannot reach it", async () => {
    const { health, seen, client } = peer(failWith(new ConnectError("connect ECONNREFUSED", Code.Unavailable)));
    await expect(client.check({})).rejects.toMatchObject({ code: Code.Unavailable });
    expect(health.status).toBe("down");
    expect(seen.rechecks).toBe(1);
  });

  it("keeps the peer up when it answered: a reason of ours, a deadline, a domain error", async () => {
    const reasoned = new ConnectError("dispatch is unavailable", Code.Unavailable, undefined, [{ desc: ErrorReasonSchema, value: { reason: "DEPENDENCY_UNAVAILABLE" } }]);
    for (const error of [reasoned, new ConnectError("slow", Code.DeadlineExceeded), new ConnectError("no", Code.NotFound)]) {
      const { health, client } = peer(failWith(error));
      await expect(client.check({})).rejects.toBeInstanceOf(ConnectError);
      expect(health.available).toBe(true);
    }
  });
});

describe("a peer's health", () => {
  it("is down after two answers short of SERVING in a row, and up again at the first SERVING", () => {
    const health = new PeerHealth("webhook", logger);
    expect(health.status).toBe("unknown");
    health.observe(false);
    expect(health.available).toBe(true);
    health.observe(false);
    expect(health.status).toBe("down");
    health.observe(true);
    expect(health.status).toBe("up");
    health.observe(false);
    health.observe(true);
    expect(health.status).toBe("up");
  });
});
