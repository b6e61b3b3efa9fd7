/**
 * The end-to-end files run two at a time (vitest.config.ts), each on a broker of its own lane: a
 * mesh uses the architecture's fixed topics and consumer groups, so two meshes on one broker would
 * split each other's events. Vitest numbers its workers 1..maxWorkers, never two running at once
 * with one number: the worker's number is its lane.
 */
import { inject } from "vitest";

export function laneBrokers(): string[] {
  const lanes = [inject("kafkaBrokers"), inject("e2eSecondBrokers")].filter((brokers) => brokers.length > 0);
  const worker = Number(process.env.VITEST_POOL_ID ?? "1");
  const brokers = lanes[worker - 1];
  if (!brokers) throw new Error(`no broker for end-to-end worker ${worker}: the run started ${lanes.length} (a scoped run starts one; run end-to-end files one at a time there)`);
  return brokers;
}
