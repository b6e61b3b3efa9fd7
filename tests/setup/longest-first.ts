import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The end-to-end files that take minutes by design (a fresh clone's run, 2 cores): a timed soak,
 * the fault scenarios, key rotations across fourteen processes, two `make dev`s. Two workers share
 * about twenty files; when the longest start last, one worker waits idle for them. Vitest orders by
 * its own timings, which a fresh clone (CI) has none of, and otherwise by size: the soak, the
 * longest file (3.5 min) and one of the smallest, started last.
 *
 * Which files run side by side matters on 2 cores: the fault suite, with a PostgreSQL, a Kafka and
 * a mesh of its own that its scenarios restart, starves whatever mesh runs beside it. Beside the
 * soak it pushed an estimate's p99 to 4.9 s in the soak's first window and, in CI's run of
 * e04d239, past the gateway's 5 s deadline (503s the soak counts as failures); beside the
 * replicas' key rotation, shipment's database calls waited past their limit (503s in a rollout
 * that must refuse nothing). So the soak starts beside the two files that mostly wait for the
 * fleet's deliveries, and the fault suite beside the two `make dev`s of the checkouts file, whose
 * checks wait for readiness and answer no load.
 */
export const LONGEST_FILES = [
  "tests/e2e/soak.e2e.test.ts",
  "tests/e2e/sandbox-fleet.e2e.test.ts",
  "tests/e2e/tracking-page-states.e2e.test.ts",
  "tests/e2e/checkouts.e2e.test.ts",
  "tests/faults/mesh.faults.test.ts",
  "tests/e2e/replicas.e2e.test.ts",
  "tests/e2e/first-hour.e2e.test.ts",
  "tests/faults/degradation.faults.test.ts",
];

/** Vitest's order (groups, projects, its timings or sizes), with LONGEST_FILES moved to the front of their project, in that order. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FILES.indexOf(path.relative(spec.project.config.root, spec.moduleId));
      return at === -1 ? LONGEST_FILES.length : at;
    };
    // Vitest keeps each project's files together; Array.prototype.sort is stable, so within a rank its order stays.
    const projects = [...new Set(sorted.map((spec) => spec.project.name))];
    return projects.flatMap((name) => sorted.filter((spec) => spec.project.name === name).sort((a, b) => rank(a) - rank(b)));
  }
}
