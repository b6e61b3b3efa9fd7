/**
 * The few calls of the Docker Engine API (which podman's API service answers too) that happen
 * outside testcontainers: is an engine there and which, which containers are ours, remove them.
 * Plain HTTP over the socket so that the detection, the reaper and the proof test need no client
 * library and no environment prepared for one.
 */
import http from "node:http";

/** Where an engine listens: `unix:///path.sock` or `tcp://host:port`, as DOCKER_HOST spells it. */
export type EngineHost = string;

export const DEFAULT_DOCKER_HOST: EngineHost = "unix:///var/run/docker.sock";

/** Our label: the test run that owns a container (a sweep never touches another run's). */
export const RUN_LABEL = "tawsil.test-run";
/** The owning process, so that leftovers of a run that died can be told from a live run's. */
export const RUN_PID_LABEL = "tawsil.test-run.pid";
export const RUN_HOST_LABEL = "tawsil.test-run.host";
export const RUN_START_LABEL = "tawsil.test-run.start";

export interface EngineContainer {
  readonly Id: string;
  readonly Image: string;
  readonly State: string;
  readonly Labels: Record<string, string>;
  readonly Ports?: { PrivatePort: number; PublicPort?: number }[];
}

function request(host: EngineHost, method: string, path: string, timeoutMs = 10_000): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const target = host.startsWith("unix://") ? { socketPath: host.slice("unix://".length) } : (() => {
    const url = new URL(host.replace(/^tcp:/, "http:"));
    return { host: url.hostname, port: Number(url.port) };
  })();
  return new Promise((resolve, reject) => {
    const req = http.request({ ...target, method, path, timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

/**
 * The engine answering at `host` ("Podman 4.3.1", "Docker (API 1.47)"), else undefined. From the
 * ping's headers alone: podman's `/version` runs conmon and runc to report theirs, which took
 * seconds on a loaded machine and made a healthy engine look absent.
 */
export async function engineVersion(host: EngineHost): Promise<{ podman: boolean; name: string } | undefined> {
  try {
    const ping = await request(host, "GET", "/_ping", 15_000);
    if (ping.status !== 200) return undefined;
    const libpod = ping.headers["libpod-api-version"];
    if (libpod) return { podman: true, name: `Podman ${String(libpod)}` };
    return { podman: false, name: `Docker (${String(ping.headers.server ?? `API ${String(ping.headers["api-version"] ?? "?")}`)})` };
  } catch {
    return undefined;
  }
}

/** Containers, running or not, that carry every given label (`key` or `key=value`). */
export async function listContainers(host: EngineHost, labels: string[]): Promise<EngineContainer[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: labels }));
  const { status, body } = await request(host, "GET", `/containers/json?all=true&filters=${filters}`);
  if (status !== 200) throw new Error(`listing containers failed: HTTP ${status} ${body.slice(0, 200)}`);
  return JSON.parse(body) as EngineContainer[];
}

/** Kills and removes a container with its anonymous volumes; one already gone is fine. */
export async function removeContainer(host: EngineHost, id: string): Promise<void> {
  const { status, body } = await request(host, "DELETE", `/containers/${encodeURIComponent(id)}?force=true&v=true`, 60_000);
  if (status >= 300 && status !== 404) throw new Error(`removing container ${id.slice(0, 12)} failed: HTTP ${status} ${body.slice(0, 200)}`);
}

/** Stops a container as `docker stop` does (its stop signal, then SIGKILL after `graceSeconds`), keeping it. */
export async function stopContainer(host: EngineHost, id: string, graceSeconds: number): Promise<void> {
  const { status, body } = await request(host, "POST", `/containers/${encodeURIComponent(id)}/stop?t=${graceSeconds}`, (graceSeconds + 30) * 1_000);
  if (status >= 300 && status !== 304) throw new Error(`stopping container ${id.slice(0, 12)} failed: HTTP ${status} ${body.slice(0, 200)}`);
}

/** Starts a stopped container again, with the same port bindings and filesystem. */
export async function startContainer(host: EngineHost, id: string): Promise<void> {
  const { status, body } = await request(host, "POST", `/containers/${encodeURIComponent(id)}/start`, 60_000);
  if (status >= 300 && status !== 304) throw new Error(`starting container ${id.slice(0, 12)} failed: HTTP ${status} ${body.slice(0, 200)}`);
}

/** Removes every container of one test run; returns how many there were. */
export async function removeRunContainers(host: EngineHost, runId: string): Promise<number> {
  const ours = await listContainers(host, [`${RUN_LABEL}=${runId}`]);
  await Promise.all(ours.map((c) => removeContainer(host, c.Id)));
  return ours.length;
}
