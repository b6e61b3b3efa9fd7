/**
 * `make buf-breaking`: the protos of this working tree against what may already be deployed. The
 * baseline is the last release (the newest `v*` tag reachable from HEAD); before the first release,
 * the point this branch left main (its merge base), or on main itself the previous commit. Comparing
 * with main while on main compared a tree with itself, so a removed field could never fail.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const git = (cwd: string, ...args: string[]): string | undefined => {
  const run = spawnSync("git", args, { cwd, encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim() : undefined;
};

/** The commit the protos are compared with, and why that one; undefined when there is none (a first commit). */
export function breakingBaseline(cwd: string): { commit: string; why: string } | undefined {
  const release = git(cwd, "describe", "--tags", "--abbrev=0", "--match", "v*", "HEAD");
  if (release) return { commit: git(cwd, "rev-parse", `${release}^{commit}`)!, why: `the last release, ${release}` };
  const branch = git(cwd, "rev-parse", "--abbrev-ref", "HEAD");
  const base = branch !== "main" ? git(cwd, "merge-base", "HEAD", "main") : undefined;
  if (base && base !== git(cwd, "rev-parse", "HEAD")) return { commit: base, why: "where this branch left main" };
  const previous = git(cwd, "rev-parse", "--verify", "-q", "HEAD~1");
  return previous ? { commit: previous, why: "the previous commit (no release tagged yet)" } : undefined;
}

/** Runs buf breaking in `cwd` against the baseline; the exit code is buf's (0 when nothing breaks). */
export function checkBreaking(cwd: string, buf: string): { code: number; output: string } {
  const baseline = breakingBaseline(cwd);
  if (!baseline) return { code: 0, output: "no earlier commit to compare the protos with: skipped" };
  const run = spawnSync(buf, ["breaking", "--against", `.git#ref=${baseline.commit}`], { cwd, encoding: "utf8" });
  const verdict = run.status === 0 ? `no breaking proto changes against ${baseline.why} (${baseline.commit.slice(0, 12)})` : `breaking proto changes against ${baseline.why} (${baseline.commit.slice(0, 12)})`;
  return { code: run.status ?? 1, output: [run.stdout, run.stderr, verdict].filter((part) => part && part.trim() !== "").join("\n") };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const { code, output } = checkBreaking(process.cwd(), path.join(root, "node_modules", ".bin", "buf"));
  console.log(output);
  process.exit(code);
}
