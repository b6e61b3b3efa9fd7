import type { Logger } from "@tawsil/logging";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "@tawsil/proto/grpc/health/v1/health_pb";
import { createPeerClient } from "@tawsil/rpc";
import type { ServiceName } from "../config";
import { isUnreachable } from "./fail-fast";
import { PeerHealth, type HealthAnswer, type PeerStatus } from "./peer-health";

export interface HealthWatchOptions {
  /** How often a peer is asked while it is not known healthy: unknown, down, NOT_SERVING or late answering. */
  readonly intervalMs: number;
  /**
   * How often a peer is asked while its last answer was SERVING. What finds a peer gone before
   * then is its connection: one that closes (the process died or drains) has it asked at once, as
   * does a call that could not reach it.
   */
  readonly steadyIntervalMs: number;
  /** Deadline of one answer; none in time counts for nothing (slow is not down). */
  readonly timeoutMs: number;
}

/** Every peer's health, kept current for as long as the gateway runs. */
export interface PeerHealthBoard {
  readonly peers: Readonly<Record<ServiceName, PeerHealth>>;
  /** What is known of each peer now, for /readyz; asks nobody. */
  statuses(): Record<ServiceName, PeerStatus>;
  close(): void;
}

export function watchPeers(urls: Readonly<Record<ServiceName, string>>, opts: HealthWatchOptions, logger: Logger): PeerHealthBoard {
  const names = Object.keys(urls) as ServiceName[];
  const peers = Object.fromEntries(names.map((name) => [name, new PeerHealth(name, logger)])) as Record<ServiceName, PeerHealth>;
  const watches = names.map((name) => watchHealth(peers[name], urls[name], opts));
  return {
    peers,
    statuses: () => Object.fromEntries(names.map((name) => [name, peers[name].status])) as Record<ServiceName, PeerStatus>,
    close: () => watches.forEach((stop) => stop()),
  };
}

/**
 * Asks one peer's gRPC health service ("" is the whole server, answered from the peer's own
 * readiness): every `steadyIntervalMs` while it answers SERVING, every `intervalMs` otherwise, and
 * at once when a call suspects it or the check's connection to it closes. Idle, five healthy peers
 * then cost a check every few seconds instead of five a second, and a peer that dies or drains is
 * still known at once: its connection closes, and the check that follows finds it refusing.
 * Unary checks rather than the protocol's Watch stream: an open stream would hold the peer's
 * graceful shutdown for its whole grace period, and its server cuts any call at its maximum
 * deadline anyway. Returns the stop.
 */
function watchHealth(health: PeerHealth, baseUrl: string, opts: HealthWatchOptions): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let asking = false;
  const ask = async (): Promise<void> => {
    // A recheck while a check is out waits for that one's answer, which is as fresh.
    if (stopped || asking) return;
    clearTimeout(timer);
    asking = true;
    let answer: HealthAnswer;
    try {
      const { status } = await client.check({ service: "" });
      answer = status === ServingStatus.SERVING ? "serving" : "not-serving";
    } catch (error) {
      answer = answerOf(error);
    } finally {
      asking = false;
    }
    health.observe(answer);
    if (!stopped) timer = setTimeout(() => void ask(), answer === "serving" ? opts.steadyIntervalMs : opts.intervalMs).unref();
  };
  const client = createPeerClient(Health, baseUrl, { timeoutMs: opts.timeoutMs, onConnectionClosed: () => void ask() });
  health.onRecheck(() => void ask());
  void ask();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function answerOf(error: unknown): HealthAnswer {
  return isUnreachable(error) ? "unreachable" : "no-answer";
}
