import { createLogger, initTracing } from "@tawsil/logging";
import { createMetrics, Readiness, startRpcServer, type RpcServer } from "@tawsil/rpc";
import { afterEach, describe, expect, it } from "vitest";
import type { ServiceName } from "../config";
import { watchPeers, type PeerHealthBoard } from "./health-watch";

initTracing();
const logger = createLogger({ service: "gateway-test", level: "silent" });

let board: PeerHealthBoard | undefined;
let peer: RpcServer | undefined;
afterEach(async () => {
  board?.close();
  await peer?.close(0);
  board = peer = undefined;
});

/** A peer whose readiness (what its health check answers from) counts the checks, and can be made not ready. */
async function startPeer() {
  const seen = { checks: 0, ready: true };
  const readiness = new Readiness([{ name: "database", check: async () => void (seen.checks++, seen.ready || (() => { throw new Error("down"); })()) }], logger, { cacheMs: 0 });
  peer = await startRpcServer({ host: "127.0.0.1", port: 0, logger, metrics: createMetrics("tracking"), readiness });
  return { server: peer, seen };
}

const watch = (url: string, intervalMs: number, steadyIntervalMs: number) =>
  (board = watchPeers({ tracking: url } as Record<ServiceName, string>, { intervalMs, steadyIntervalMs, timeoutMs: 1_000 }, logger));

describe("the peer health watch", () => {
  it("asks a healthy peer at the steady interval, not at the fast one", async () => {
    const { server, seen } = await startPeer();
    const { peers } = watch(server.url, 50, 60_000);
    await expect.poll(() => peers.tracking.status, { timeout: 5_000 }).toBe("up");
    const after = seen.checks;
    await new Promise((resolve) => setTimeout(resolve, 500));
    // At the fast interval this would be about ten more checks.
    expect(seen.checks - after).toBe(0);
  });

  it("still finds a peer that stops at once, long before the steady interval: its connection closes", async () => {
    const { server } = await startPeer();
    const { peers } = watch(server.url, 1_000, 60_000);
    await expect.poll(() => peers.tracking.status, { timeout: 5_000 }).toBe("up");
    const stopped = Date.now();
    await server.close(0);
    peer = undefined;
    await expect.poll(() => peers.tracking.status, { timeout: 5_000, interval: 10 }).toBe("down");
    expect(Date.now() - stopped).toBeLessThan(1_000);
  });

  it("asks at the fast interval once a peer answers NOT_SERVING, so three in a row take no longer than before", async () => {
    const { server, seen } = await startPeer();
    const { peers } = watch(server.url, 50, 60_000);
    await expect.poll(() => peers.tracking.status, { timeout: 5_000 }).toBe("up");
    seen.ready = false;
    peers.tracking.suspect(); // as a call that found it unreachable would: asked at once
    await expect.poll(() => seen.checks, { timeout: 5_000 }).toBeGreaterThanOrEqual(4);
    await expect.poll(() => peers.tracking.status, { timeout: 5_000 }).toBe("down");
    seen.ready = true;
    await expect.poll(() => peers.tracking.status, { timeout: 5_000 }).toBe("up");
  });
});
