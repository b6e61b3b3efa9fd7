/**
 * The Dockerfile and .dockerignore agree with the repository and with the pod specs: the Node and
 * pnpm versions the project pins, a frozen install, generated Prisma clients, compiled bundles, a
 * runtime stage with nothing but them (no install, no tool), the uid the pods run as, and a build
 * context without local state. runtime.test.ts runs what that stage holds.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP_UID } from "./facts";
import { ROOT } from "./kustomize";

const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
// Instructions with their continuation lines joined, comments dropped.
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));
const ignored = readFileSync(path.join(ROOT, ".dockerignore"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));
const packageJson = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  packageManager: string;
  devDependencies: Record<string, string>;
};
const buildStage = instructions.slice(0, instructions.findLastIndex((line) => line.startsWith("FROM ")));
const runtimeStage = instructions.slice(instructions.findLastIndex((line) => line.startsWith("FROM ")));

// Docker's matching, for the patterns used here: "**/" spans directories, "*" stays within one,
// and a pattern that matches a directory excludes everything below it.
function dockerExcludes(pattern: string, file: string): boolean {
  let regex = "";
  for (let i = 0; i < pattern.length; i++) {
    if (pattern.startsWith("**/", i)) {
      regex += "(?:.*/)?";
      i += 2;
    } else if (pattern[i] === "*") regex += "[^/]*";
    else regex += (pattern[i] ?? "").replace(/[.+?^${}()|[\]\\]/, "\\$&");
  }
  return new RegExp(`^${regex}(?:/.*)?$`).test(file);
}

describe("Dockerfile", () => {
  it("builds from node:22-bookworm-slim (a supported LTS), pinned by digest, in every stage", () => {
    expect(instructions.filter((line) => line.startsWith("ARG NODE_IMAGE="))).toEqual([expect.stringMatching(/^ARG NODE_IMAGE=node:22-bookworm-slim@sha256:[a-f0-9]{64}$/)]);
    // package.json's engines admit the image's Node line.
    expect(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).engines.node).toMatch(/>=22\b/);
    const stages = instructions.filter((line) => line.startsWith("FROM "));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage).toMatch(/^FROM \$\{NODE_IMAGE\} AS \w+$/);
  });

  it("installs the pnpm of package.json's packageManager and the workspace from the frozen lockfile", () => {
    expect(`pnpm@${/ARG PNPM_VERSION=(\S+)/.exec(dockerfile)?.[1]}`).toBe(packageJson.packageManager);
    expect(instructions).toContain("RUN npm install --global --no-audit --no-fund pnpm@${PNPM_VERSION}");
    expect(instructions.some((line) => /^RUN pnpm install --frozen-lockfile\b/.test(line))).toBe(true);
  });

  it("generates the Prisma clients with the placeholder schema engine", () => {
    const generate = /^RUN PRISMA_SCHEMA_ENGINE_BINARY=\/bin\/true .*node_modules\/\.bin\/tsx scripts\/prisma-generate\.ts$/;
    expect(instructions.some((line) => generate.test(line))).toBe(true);
  });

  it("compiles every process in the build stage, after the Prisma clients it bundles are generated", () => {
    const build = buildStage.findIndex((line) => /^RUN node_modules\/\.bin\/tsx scripts\/build\.ts --all\b/.test(line));
    expect(build).toBeGreaterThan(buildStage.findIndex((line) => line.includes("scripts/prisma-generate.ts")));
    expect(buildStage[build]).toContain("mkdir /runtime");
  });

  it("builds one process's image, named by the PROCESS build arg, as `make image SERVICE=<process>` tags it", () => {
    expect(buildStage).toContain("ARG PROCESS");
    const copy = buildStage.find((line) => line.includes("mkdir /runtime")) ?? "";
    // scripts/image-files.ts lists that process's files; runtime.test.ts checks what it lists.
    expect(copy).toContain('node_modules/.bin/tsx scripts/image-files.ts "${PROCESS}" | xargs -0 cp --parents -t /runtime');
    expect(buildStage.indexOf("ARG PROCESS")).toBeLessThan(buildStage.indexOf(copy));
    const makefile = readFileSync(path.join(ROOT, "Makefile"), "utf8");
    expect(makefile).toContain("build --build-arg PROCESS=$(SERVICE) -t ghcr.io/tawsil/$(SERVICE):$(IMAGE_VERSION) .");
  });

  it("puts the compiled tree at /app, where the pod specs' working directories point, and nothing else", () => {
    expect(runtimeStage).toContain("WORKDIR /app");
    // The runtime stage takes only the tree the build stage assembled (bundles, source maps,
    // migrations, data files: runtime.test.ts checks it): never the workspace or its node_modules.
    expect(runtimeStage.filter((line) => /^(COPY|ADD) /.test(line))).toEqual(["COPY --from=build /runtime /app"]);
  });

  it("installs nothing in the runtime stage: no package manager, no devDependency, no TypeScript", () => {
    const runs = runtimeStage.filter((line) => line.startsWith("RUN "));
    for (const run of runs) expect(run).not.toMatch(/\b(npm|pnpm|yarn|npx|corepack)\b/);
    for (const dev of Object.keys(packageJson.devDependencies)) {
      for (const line of runtimeStage) expect(line, dev).not.toContain(dev === "tsx" ? "tsx" : `${dev}@`);
    }
    expect(runtimeStage.join("\n")).not.toMatch(/\.ts\b|--import|node_modules/);
  });

  it("runs compiled JavaScript with source maps, never TypeScript through tsx", () => {
    const cmd = runtimeStage.filter((line) => line.startsWith("CMD ") || line.startsWith("ENTRYPOINT "));
    expect(cmd.length).toBeGreaterThan(0);
    for (const line of cmd) {
      expect(line).toMatch(/^CMD \["node",/);
      expect(line).not.toMatch(/tsx|\.ts\b/);
    }
    expect(runtimeStage).toContain("ENV NODE_ENV=production");
  });

  it("runs as the uid the pod specs name, never root", () => {
    const users = instructions.filter((line) => line.startsWith("USER "));
    expect(users.at(-1)).toBe(`USER ${APP_UID}:${APP_UID}`);
    // The runtime stage's last instruction that could still run as root comes before USER.
    expect(instructions.findLastIndex((line) => line.startsWith("RUN "))).toBeLessThan(instructions.lastIndexOf(users.at(-1) ?? ""));
  });
});

describe(".dockerignore", () => {
  it("keeps installed, generated and local state out of the build context", () => {
    for (const entry of [".git", "**/node_modules", "**/dist", ".tools", ".dev", "**/.env", "services/*/src/infra/prisma/generated"]) {
      expect(ignored).toContain(entry);
    }
  });

  it("keeps the committed protobuf code and every workspace manifest in it", () => {
    expect(dockerExcludes("services/*/src/infra/prisma/generated", "services/pricing/src/infra/prisma/generated/client.ts")).toBe(true);
    expect(dockerExcludes("**/.env.*", "gateway/.env.local")).toBe(true);
    for (const kept of ["packages/proto/src/gen", "tests/e2e/package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "patches/kafkajs@2.2.4.patch"]) {
      expect(existsSync(path.join(ROOT, kept)), kept).toBe(true);
      expect(ignored.filter((pattern) => dockerExcludes(pattern, kept)), kept).toEqual([]);
    }
  });
});
