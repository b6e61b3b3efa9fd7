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
    health.observe("serving");
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
  const at = { now: 0 };
  const healthAt = () => new PeerHealth("webhook", logger, () => at.now);

  it("is down after three NOT_SERVING answers in a row, and up again at the first SERVING", () => {
    const health = healthAt();
    expect(health.status).toBe("unknown");
    health.observe("not-serving");
    health.observe("not-serving");
    expect(health.available).toBe(true);
    health.observe("not-serving");
    expect(health.status).toBe("down");
    health.observe("serving");
    expect(health.status).toBe("up");
  });

  it("is down at once when unreachable, and counts a late answer for nothing: slow is not down", () => {
    const health = healthAt();
    health.observe("serving");
    for (let i = 0; i < 5; i++) health.observe("no-answer");
    expect(health.status).toBe("up");
    health.observe("unreachable");
    expect(health.status).toBe("down");
  });

  it("lets calls through again once the hold (the Retry-After) passes with no new sign, though no check answered", () => {
    const health = healthAt();
    health.observe("serving");
    health.suspect();
    at.now += 1_999;
    expect(health.available).toBe(false);
    health.observe("unreachable"); // a failed check renews the hold
    at.now += 1_999;
    expect(health.available).toBe(false);
    health.observe("no-answer");
    at.now += 1;
    expect(health.available).toBe(true);
  });
});
