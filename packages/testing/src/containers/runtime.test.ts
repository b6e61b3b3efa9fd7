/**
 * The path choice is honest: it names what it found, falls back to native processes only with a
 * reason, and refuses that fallback in CI, where the tests must run in containers.
 */
import { describe, expect, inject, it } from "vitest";
import { chooseInfraPath } from "./runtime";

const NOWHERE = "unix:///nonexistent/tawsil-no-engine.sock";
const run = inject("testInfra").containers;

describe("which path the test infrastructure takes", () => {
  it("falls back to native processes, saying why, when the engine DOCKER_HOST names does not answer", async () => {
    expect(await chooseInfraPath({ DOCKER_HOST: NOWHERE })).toEqual({ kind: "native", reason: `no container engine answers at DOCKER_HOST=${NOWHERE}` });
  });

  it("refuses the native fallback in CI", async () => {
    await expect(chooseInfraPath({ DOCKER_HOST: NOWHERE, CI: "true" })).rejects.toThrow(/CI must run the tests' PostgreSQL and Kafka in containers, but no container engine answers/);
  });

  it("takes the native path when asked, and says so", async () => {
    expect(await chooseInfraPath({ TAWSIL_TEST_INFRA: "native", DOCKER_HOST: NOWHERE })).toEqual({ kind: "native", reason: "TAWSIL_TEST_INFRA=native asks for it" });
  });

  it.skipIf(run === null)("recognises the run's engine at DOCKER_HOST as what it is", async () => {
    const found = await chooseInfraPath({ DOCKER_HOST: run!.path.dockerHost });
    expect(found.kind).toBe(run!.path.kind);
    expect(found.reason).toContain(`answers at ${run!.path.dockerHost} (DOCKER_HOST)`);
  });
});
