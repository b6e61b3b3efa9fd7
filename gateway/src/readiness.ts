import type { Logger } from "@tawsil/logging";
import type { ServiceName } from "./config";

type Status = "up" | "down";

export interface MeshReadiness {
  readonly ready: boolean;
  readonly services: Record<string, Status>;
  readonly dependencies: { postgresql: Status; kafka: Status };
}

interface ServiceReport {
  readonly status: string;
  readonly checks: Record<string, Status>;
}

/**
 * The gateway's /readyz: asks every service's /readyz in parallel, each under a deadline, and
 * reports the services plus the shared infrastructure they reach. The gateway holds no database or
 * broker connection of its own (production NetworkPolicies would forbid it), so PostgreSQL and
 * Kafka are up when every service that uses them says so.
 */
export function meshReadiness(peers: Record<ServiceName, string>, timeoutMs: number, logger: Logger): () => Promise<MeshReadiness> {
  const entries = Object.entries(peers) as [ServiceName, string][];
  return async () => {
    const reports = await Promise.all(entries.map(async ([name, url]) => [name, await ask(name, url)] as const));
    const services: Record<string, Status> = {};
    const uses = { postgresql: [] as Status[], kafka: [] as Status[] };
    for (const [name, report] of reports) {
      services[name] = report?.status === "ready" ? "up" : "down";
      if (report?.checks.database) uses.postgresql.push(report.checks.database);
      if (report?.checks.kafka) uses.kafka.push(report.checks.kafka);
    }
    const dependencies = { postgresql: allUp(uses.postgresql), kafka: allUp(uses.kafka) };
    const ready = Object.values(services).every((s) => s === "up") && dependencies.postgresql === "up" && dependencies.kafka === "up";
    return { ready, services, dependencies };
  };

  async function ask(name: ServiceName, url: string): Promise<ServiceReport | undefined> {
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
      return (await res.json()) as ServiceReport;
    } catch (err) {
      logger.warn({ err, peer: name }, "peer readiness unavailable");
      return undefined;
    }
  }
}

/** No report at all is not "up": a dependency nobody could vouch for is down. */
function allUp(statuses: Status[]): Status {
  return statuses.length > 0 && statuses.every((s) => s === "up") ? "up" : "down";
}
