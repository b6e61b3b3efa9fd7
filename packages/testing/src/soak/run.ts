/**
 * One soak against a running mesh (`make soak`'s, or the end-to-end test's): its merchants and
 * receivers, a warm-up, the windows of steady load with a sample after each, a drain, then the
 * effect checks and the verdict. The caller starts and stops the mesh.
 */
import { paced } from "../load/driver";
import type { Mesh } from "../mesh";
import { shipmentEffects, webhookEffects } from "./effects";
import { Ledger, runWindow, soakRoutes, type RouteWindow } from "./load";
import { soakMerchant } from "./merchants";
import { SoakReceiver } from "./receivers";
import { takeSample, type Sample } from "./sampler";
import type { SoakSettings } from "./settings";
import { soakFailures, type SoakFigures } from "./verdict";

export interface SoakTarget {
  readonly mesh: Mesh;
  /** Each service's database, by service. */
  readonly databaseUrls: Readonly<Record<string, string>> & { readonly shipment: string };
  readonly brokers: readonly string[];
}

export interface SoakOutcome {
  readonly figures: SoakFigures;
  readonly failures: readonly string[];
}

export async function runSoak(settings: SoakSettings, target: SoakTarget, log: (line: string) => void): Promise<SoakOutcome> {
  const { mesh } = target;
  const merchantAdminUrl = mesh.processes.find((p) => p.name === "merchant")!.adminUrl!;
  const gateways = mesh.processes.filter((p) => p.replicaOf === "gateway").map((p) => ({ name: p.name, url: p.url }));
  const exited: string[] = [];
  let finished = false;
  for (const p of mesh.processes) p.child.once("exit", (code, signal) => !finished && exited.push(`${p.name} (${code ?? signal})`));

  const receivers = (["healthy", "slow", "hanging"] as const).map((behaviour) => new SoakReceiver(behaviour));
  try {
    const urls = await Promise.all(receivers.map((r) => r.listen()));
    const [healthy, ...failing] = await Promise.all(receivers.map((r, i) => soakMerchant(merchantAdminUrl, mesh.gatewayUrl, r.behaviour, urls[i]!)));
    const ledger = new Ledger();
    const ctx = { run: Date.now().toString(36), ledger, healthy: healthy!, failing };
    const routes = soakRoutes(ctx);
    log(`merchants ${[healthy!, ...failing].map((m) => m.code).join(", ")}; ${gateways.length} gateways; warming up...`);
    // Shipments for the reads, cancels and tracking links to start on.
    // 20 s: the replicas' consumer groups finish their first rebalances meanwhile.
    const warmUp = await paced(routes[0]!.endpoint(mesh.gatewayUrl), { connections: 2, seconds: 20, rate: 1 });
    if (ledger.created.length === 0) throw new Error(`the warm-up created no shipment: ${warmUp.failures.join(" | ")}`);

    const sampled = mesh.processes.map((p) => ({ name: p.name, pid: p.child.pid, metricsUrl: p.metricsUrl }));
    const t0 = performance.now();
    const second = () => Math.round((performance.now() - t0) / 1000);
    const sample = () => takeSample(second(), sampled, target.databaseUrls, target.brokers);
    const samples: Sample[] = [await sample()];
    const windows = Math.max(1, Math.round((settings.minutes * 60) / settings.windowSeconds));
    const figures: RouteWindow[] = [];
    for (let w = 0; w < windows; w++) {
      const results = await runWindow(routes, gateways, w, settings.windowSeconds);
      figures.push(...results);
      samples.push(await sample());
      const requests = results.reduce((n, r) => n + r.figures.requests, 0);
      const bad = results.reduce((n, r) => n + r.figures.errors, 0);
      const rss = Object.values(samples.at(-1)!.processes).reduce((n, p) => n + p.rssBytes, 0);
      log(`window ${w + 1}/${windows}: ${requests} requests answered as expected, ${bad} not; ${ledger.created.length} shipments so far; mesh RSS ${(rss / 2 ** 20).toFixed(0)} MiB`);
    }

    log(`load stopped; waiting up to ${settings.drainSeconds} s for the last webhook deliveries...`);
    const windowOf = (at: number) => (at < t0 ? -1 : Math.min(windows - 1, Math.floor((at - t0) / (settings.windowSeconds * 1000))));
    const deadline = performance.now() + settings.drainSeconds * 1000;
    let webhooks = webhookEffects(healthy!, receivers, ledger, windowOf);
    while ((webhooks.missingCreated.length || webhooks.missingCancelled.length) && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      webhooks = webhookEffects(healthy!, receivers, ledger, windowOf);
    }
    finished = true;
    const result: SoakFigures = { samples, routes: figures, shipments: await shipmentEffects(target.databaseUrls.shipment, [healthy!, ...failing], ledger), webhooks, exited };
    return { figures: result, failures: soakFailures(result) };
  } finally {
    finished = true;
    await Promise.all(receivers.map((r) => r.close()));
  }
}
