/**
 * deploy/README.md's "Each deploy, in order", run by bash exactly as an SRE pastes it, against a
 * stand-in kubectl that plays the cluster: a failed migration Job stops the procedure at once, with
 * its log and no rollout awaited; migrations that complete lead to every Deployment's rollout.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ofKind } from "./facts";
import { DEPLOY, render } from "./kustomize";

const readme = readFileSync(path.join(DEPLOY, "README.md"), "utf8");
const procedure = /\n## Each deploy, in order\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";

const dir = mkdtempSync(path.join(os.tmpdir(), "tawsil-deploy-procedure-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The stand-in: logs every call; `wait --for=condition=complete` returns after a second when the
// Jobs complete and hangs when one fails (20 s here, the real one up to its 10 minutes); `get job`
// answers the jsonpath the procedure asks for, one Job a line with its Failed condition's status.
const kubectl = path.join(dir, "kubectl");
writeFileSync(kubectl, `#!/usr/bin/env bash
echo "$*" >> "$CALLS"
case "$*" in
  *"wait --for=condition=complete"*) if [ "$SCENARIO" = complete ]; then sleep 1; exit 0; fi; exec sleep 20 ;;
  *"get job"*) if [ "$SCENARIO" = failed ]; then printf 'merchant-migrate \\nshipment-migrate True\\n'; else printf 'merchant-migrate \\nshipment-migrate \\n'; fi ;;
  *"logs job/"*) echo "Migration 20261127000000_add_column failed and was rolled back: boom" ;;
esac
exit 0
`);
chmodSync(kubectl, 0o755);

function run(scenario: "complete" | "failed") {
  const calls = path.join(dir, `${scenario}.calls`);
  writeFileSync(calls, "");
  const started = Date.now();
  const result = spawnSync("bash", ["-c", procedure], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ""}`, SCENARIO: scenario, CALLS: calls },
  });
  return { status: result.status, output: result.stdout + result.stderr, calls: readFileSync(calls, "utf8").trim().split("\n"), seconds: (Date.now() - started) / 1000 };
}

describe("the deploy procedure of deploy/README.md, run", () => {
  it("reads as a shell block that waits on the migration Jobs with kubectl wait", () => {
    expect(procedure).toContain("wait --for=condition=complete job -l $MIGRATIONS --timeout=10m");
    expect(spawnSync("bash", ["-n", "-c", procedure]).status).toBe(0);
  });

  it("stops at once on a failed migration Job, prints its log, and awaits no rollout", () => {
    const { status, output, calls, seconds } = run("failed");
    expect(status).not.toBe(0);
    expect(seconds).toBeLessThan(15);
    expect(output).toContain("migration failed: shipment-migrate");
    expect(output).toContain("failed and was rolled back: boom");
    expect(calls).toContain("-n tawsil-production logs job/shipment-migrate --tail=30");
    expect(calls.filter((c) => c.includes("rollout status"))).toEqual([]);
  }, 30_000);

  it("once every Job completed, awaits the rollout of every Deployment", () => {
    const { status, calls } = run("complete");
    expect(status).toBe(0);
    expect(calls.filter((c) => c.includes("logs"))).toEqual([]);
    const rollouts = calls.filter((c) => c.includes("rollout status")).map((c) => /deploy\/(\S+)/.exec(c)?.[1]);
    const deployments = ofKind(render(path.join(DEPLOY, "overlays", "production")), "Deployment").map((d) => d.metadata.name);
    expect(rollouts.sort()).toEqual(deployments.sort());
  }, 30_000);
});
