/**
 * Which path the test infrastructure takes, and why (one line for the log):
 *  - docker: a Docker engine answers (DOCKER_HOST, else /var/run/docker.sock); official images.
 *  - podman: podman's Docker-compatible API answers, or the project's own steps can set it up on
 *    this machine (packages/testing/src/containers/podman-up.sh: Debian packages, containers.conf, the API
 *    service); images the project builds itself (images.ts).
 *  - native: no container runtime can be had; PostgreSQL and Kafka run as processes, as before.
 * `TAWSIL_TEST_INFRA=native` asks for the native path. With CI=true the native path is refused:
 * CI must run the tests in containers, and a broken setup must fail it, not be hidden.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_DOCKER_HOST, engineVersion, type EngineHost } from "./engine-api";

export type InfraPath =
  | { readonly kind: "docker" | "podman"; readonly reason: string; readonly dockerHost: EngineHost; readonly containersConf?: string }
  | { readonly kind: "native"; readonly reason: string };

const PODMAN_UP = path.join(path.dirname(fileURLToPath(import.meta.url)), "podman-up.sh");

/** Runs podman-up.sh: its `KEY=VALUE` lines, with REASON set when it could not (exit 3) or failed. */
function podmanUp(): Promise<Record<string, string>> {
  return new Promise((resolve) => {
    execFile("bash", [PODMAN_UP], { timeout: 15 * 60_000 }, (err, stdout, stderr) => {
      const values: Record<string, string> = {};
      for (const line of stdout.split("\n")) {
        const at = line.indexOf("=");
        if (at > 0) values[line.slice(0, at)] = line.slice(at + 1);
      }
      const code = err ? err.code : 0;
      if (code !== 0 && code !== 3) {
        values.REASON = `podman setup failed (${String(code ?? err?.signal)}): ${`${stdout}\n${stderr}`.trim().split("\n").slice(-5).join(" | ")}`;
      }
      resolve(values);
    });
  });
}

async function engineAt(host: EngineHost, why: string): Promise<InfraPath | undefined> {
  const engine = await engineVersion(host);
  if (!engine) return undefined;
  return { kind: engine.podman ? "podman" : "docker", reason: `${engine.name} answers at ${host} (${why})`, dockerHost: host };
}

async function detect(env: NodeJS.ProcessEnv): Promise<InfraPath> {
  if (env.TAWSIL_TEST_INFRA === "native") return { kind: "native", reason: "TAWSIL_TEST_INFRA=native asks for it" };
  if (env.DOCKER_HOST) {
    return (await engineAt(env.DOCKER_HOST, "DOCKER_HOST")) ?? { kind: "native", reason: `no container engine answers at DOCKER_HOST=${env.DOCKER_HOST}` };
  }
  const local = await engineAt(DEFAULT_DOCKER_HOST, "the default socket");
  if (local) return local;
  if (process.platform !== "linux") return { kind: "native", reason: `no Docker engine answers at ${DEFAULT_DOCKER_HOST}, and podman is set up by the project on Linux only` };
  const up = await podmanUp();
  const host = up.DOCKER_HOST;
  if (up.REASON || !host) return { kind: "native", reason: `no Docker engine answers at ${DEFAULT_DOCKER_HOST}, and ${up.REASON ?? "podman could not be set up"}` };
  const engine = await engineVersion(host);
  if (!engine) return { kind: "native", reason: `podman's API service was started but does not answer at ${host}` };
  return { kind: "podman", reason: `no Docker engine here; ${engine.name} through its API at ${host}, set up by the project's steps`, dockerHost: host, ...(up.CONTAINERS_CONF ? { containersConf: up.CONTAINERS_CONF } : {}) };
}

/** The path for this run; throws when CI=true and only the native path is left. */
export async function chooseInfraPath(env: NodeJS.ProcessEnv = process.env): Promise<InfraPath> {
  const choice = await detect(env);
  if (choice.kind === "native" && env.CI === "true" && env.TAWSIL_TEST_INFRA !== "native") {
    throw new Error(`CI must run the tests' PostgreSQL and Kafka in containers, but ${choice.reason}`);
  }
  return choice;
}

/**
 * Points testcontainers (in this process and the workers it starts) at the chosen engine: its
 * socket, the loopback as the host of mapped ports (it would otherwise take podman's network
 * gateway, as /.dockerenv makes it believe it runs in a container), and no Ryuk, which cannot be
 * pulled here: our own reaper (reaper.ts) removes what a run leaves.
 */
export function useEngine(choice: InfraPath): void {
  if (choice.kind === "native") return;
  process.env.DOCKER_HOST = choice.dockerHost;
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= "127.0.0.1";
  process.env.TESTCONTAINERS_RYUK_DISABLED = "true";
  if (choice.containersConf) process.env.CONTAINERS_CONF = choice.containersConf;
}
