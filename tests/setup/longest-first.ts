import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The end-to-end files that take minutes by design (a fresh clone's run, 2 cores): a timed soak,
 * the fault scenarios, key rotations across fourteen processes, two `make dev`s. Two workers share
 * about twenty files; when the longest start last, one worker waits idle for them. Vitest orders by
 * its own timings, which a fresh clone (CI) has none of, and otherwise by size: the soak, the
 * longest file (3.5 min) and one of the smallest, started last.
 *
 * The soak starts first, and beside it the two files that mostly wait for the fleet's deliveries,
 * then the fault scenarios. Started together, the soak's fifteen processes and the fault suite's
 * own PostgreSQL, Kafka and mesh (restarted by its scenarios) left the soak's requests queued for
 * CPU for seconds: on a 2-core machine an estimate's p99 reached 4.9 s in its first window, and in
 * one run crossed the gateway's 5 s deadline to its services (503), which the soak counts as a
 * failure. By the time the fault suite starts, the soak's load windows are over.
 */
export const LONGEST_FILES = [
  "tests/e2e/soak.e2e.test.ts",
  "tests/e2e/sandbox-fleet.e2e.test.ts",
  "tests/e2e/tracking-page-states.e2e.test.ts",
  "tests/faults/mesh.faults.test.ts",
  "tests/e2e/replicas.e2e.test.ts",
  "tests/e2e/checkouts.e2e.test.ts",
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
