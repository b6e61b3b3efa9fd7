/**
 * The soak's contract (its thresholds are the issue's; the levelling rules are this file's): what
 * makes `make soak` fail. Pure, so that each rule is tested on figures alone.
 */
import type { ShipmentEffects, WebhookEffects } from "./effects";
import type { RouteWindow } from "./load";
import type { ProcessSample, Sample } from "./sampler";

export interface SoakFigures {
  /** The first after the warm-up, then one per window's end; the middle one is at half time. */
  readonly samples: readonly Sample[];
  readonly routes: readonly RouteWindow[];
  readonly shipments: ShipmentEffects;
  readonly webhooks: WebhookEffects;
  /** Processes that exited during the run. */
  readonly exited: readonly string[];
}

const MiB = 1024 * 1024;
/**
 * Memory levels off when the end's figure is at most the first half's peak plus a fifth, plus 24
 * MiB of slack for a young process's growth. The peak, not the middle's figure: RSS follows the
 * heap's saw, and one sample may catch it low. The heap is judged on what it keeps (read after a
 * major collection): the used heap grows with garbage until V8's next major collection, which a
 * 3-minute run may not reach (a gateway's went 55 to 115 MiB in 3 minutes, then fell). A process
 * with no major collection in the first half or none by the end is not judged on its heap.
 */
const MEMORY_GROWTH = { share: 0.2, slackBytes: 24 * MiB };
/**
 * A table with a retention period is bounded when it holds at most what its inflow of the last
 * window puts in over its period and two runs of its job (a third of the period each, the soak's
 * setting), with a quarter and 300 rows to spare. Judged against the inflow, not the middle's rows:
 * some inflows rise with the run itself (the fleet puts more drivers on shift, and so more
 * location batches in dispatch's outbox, as shipments wait), and a table that follows its inflow is
 * bounded.
 */
const TABLE_BOUND = { periods: 5 / 3, spare: 1.25, slackRows: 300 };
/**
 * Tables whose retention counts from an end that live rows have not reached: a shipment's terminal
 * state (its projection, its driver's fixes, its media: shipments still waiting for a driver keep
 * them), or a delivery's last attempt (the slow and hanging receivers' deliveries are still being
 * retried, decisions.md section 11's schedule, far longer than a soak). They grow with what is
 * still live; the oldest-row rule judges their retention.
 */
const GROW_WITH_LIVE_ROWS = new Set(["tracked_shipment", "driver_fix", "media_asset", "webhook_delivery"]);
export const WEBHOOK_P99_LIMIT_MS = 2000;
const WEBHOOK_P99_MIN_DELIVERIES = 200;

/** The sample at half time, the first and the last. */
export function startMiddleEnd(samples: readonly Sample[]): { start: Sample; middle: Sample; end: Sample } {
  const start = samples[0]!;
  const end = samples.at(-1)!;
  const half = (start.second + end.second) / 2;
  const middle = samples.reduce((best, s) => (Math.abs(s.second - half) < Math.abs(best.second - half) ? s : best), start);
  return { start, middle, end };
}

export function soakFailures(f: SoakFigures): string[] {
  const failures: string[] = [];
  const { middle, end } = startMiddleEnd(f.samples);
  for (const name of f.exited) failures.push(`${name} exited during the soak`);

  const firstHalf = f.samples.filter((s) => s.second <= middle.second);
  for (const [name, last] of Object.entries(end.processes)) {
    const peak = (pick: (p: ProcessSample) => number) => Math.max(...firstHalf.flatMap((s) => (s.processes[name] && Number.isFinite(pick(s.processes[name])) ? [pick(s.processes[name])] : [])));
    for (const [what, a, b] of [["RSS", peak((p) => p.rssBytes), last.rssBytes], ["heap kept after a major collection", peak((p) => p.heapAfterGcBytes), last.heapAfterGcBytes]] as const) {
      if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
      if (b - a > a * MEMORY_GROWTH.share + MEMORY_GROWTH.slackBytes) failures.push(`${name}: ${what} grew from a peak of ${mib(a)} in the first half to ${mib(b)} at the end (does not level off)`);
    }
  }

  const previous = f.samples.at(-2) ?? end;
  for (const [key, last] of Object.entries(end.tables)) {
    const [service, table] = [key.slice(0, key.indexOf(".")), key.slice(key.indexOf(".") + 1)];
    const before = previous.tables[key];
    const period = retentionOf(end, service, table)?.periodSeconds;
    if (!before || period === undefined || GROW_WITH_LIVE_ROWS.has(table) || end.second <= previous.second) continue;
    const inflow = (last.rows - before.rows + deletedRows(end, service, table) - deletedRows(previous, service, table)) / (end.second - previous.second);
    const bound = inflow * period * TABLE_BOUND.periods * TABLE_BOUND.spare + TABLE_BOUND.slackRows;
    if (last.rows > bound) failures.push(`${key}: ${last.rows} rows at the end, more than its inflow (${inflow.toFixed(1)} rows/s) puts in over its ${period} s retention period (at most ${Math.round(bound)}): retention does not keep it bounded`);
  }
  for (const [name, p] of Object.entries(end.processes)) {
    for (const [table, r] of Object.entries(p.retention)) {
      // The alert's own rule (decisions.md section 18), with one retention run of grace.
      if (r.oldestAgeSeconds > 2 * r.periodSeconds + 60) failures.push(`${name}: ${table}'s oldest row is ${Math.round(r.oldestAgeSeconds)} s past the start of its ${r.periodSeconds} s retention period`);
    }
  }

  for (const w of f.routes) {
    if (w.figures.errors > 0) failures.push(`${w.route} via ${w.gateway}, window ${w.window}: ${w.figures.errors} unexpected answers or transport failures (${w.failures.join(" | ")})`);
  }

  const s = f.shipments;
  if (s.missing.length) failures.push(`${s.missing.length} shipments answered 201 do not exist (lost), e.g. ${s.missing.slice(0, 3).join(", ")}`);
  if (s.stored !== s.answered) failures.push(`${s.answered} creates answered 201, ${s.stored} shipments stored for the soak's merchants`);
  if (s.duplicatedReferences.length) failures.push(`references stored twice (duplicated creates): ${s.duplicatedReferences.slice(0, 3).join(", ")}`);

  const w = f.webhooks;
  if (w.duplicateIds.length) failures.push(`${w.duplicateIds.length} webhook events delivered twice to the healthy receiver, e.g. ${w.duplicateIds.slice(0, 3).join(", ")}`);
  if (w.missingCreated.length) failures.push(`${w.missingCreated.length} shipment.created events never reached the healthy receiver, e.g. ${w.missingCreated.slice(0, 3).join(", ")}`);
  if (w.missingCancelled.length) failures.push(`${w.missingCancelled.length} shipment.cancelled events never reached the healthy receiver, e.g. ${w.missingCancelled.slice(0, 3).join(", ")}`);
  for (const [behaviour, attempts] of Object.entries(w.failingAttempts)) if (attempts === 0) failures.push(`the ${behaviour} receiver was never called: its merchant's failures were not exercised`);
  // Per window where a window has enough deliveries for a p99 to be one (5-minute windows do);
  // else over the whole load, as a p99 of a few dozen is their slowest alone.
  const judged = w.windows.filter((win) => win.window >= 0 && win.deliveries >= WEBHOOK_P99_MIN_DELIVERIES);
  for (const win of judged) {
    if (win.p99Ms > WEBHOOK_P99_LIMIT_MS) failures.push(`window ${win.window}: the healthy merchant's webhook p99 is ${Math.round(win.p99Ms)} ms (limit ${WEBHOOK_P99_LIMIT_MS} ms) while the slow and hanging receivers fail`);
  }
  if (judged.length === 0 && w.overall.p99Ms > WEBHOOK_P99_LIMIT_MS) failures.push(`the healthy merchant's webhook p99 over the load is ${Math.round(w.overall.p99Ms)} ms (limit ${WEBHOOK_P99_LIMIT_MS} ms) while the slow and hanging receivers fail`);

  for (const [service, count] of Object.entries(parkedEvents(end))) if (count > 0) failures.push(`${service}: ${count} parked events (an event its consumer could not apply)`);
  return failures;
}

/** A table's retention figures as the first replica of its service reports them. */
function retentionOf(sample: Sample, service: string, table: string) {
  return Object.entries(sample.processes).find(([name]) => replicaOf(name) === service)?.[1].retention[table];
}

/** Rows the retention jobs of every replica of `service` deleted from `table` so far. */
function deletedRows(sample: Sample, service: string, table: string): number {
  return Object.entries(sample.processes).reduce((n, [name, p]) => n + (replicaOf(name) === service ? (p.retention[table]?.deletedRows ?? 0) : 0), 0);
}

/** `dispatch-2` is a replica of `dispatch` (startMesh's names). */
const replicaOf = (name: string) => name.replace(/-\d+$/, "");

/** Rows of each service's dead-letter table (issue 31 point 2). */
export function parkedEvents(sample: Sample): Record<string, number> {
  return Object.fromEntries(Object.entries(sample.tables).filter(([key]) => key.endsWith(".parked_event")).map(([key, t]) => [key.slice(0, key.indexOf(".")), t.rows]));
}

export const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
