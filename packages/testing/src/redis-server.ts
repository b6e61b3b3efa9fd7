/**
 * A throwaway Redis for the tests that need one (the gateway's shared rate limits): Debian's
 * `redis-server` on a free port of its own, keeping nothing on disk, stopped by the test that
 * started it. Nothing starts it for every run: only a test file that calls startRedisServer().
 * The native binary is required (no container path): `apt-get install redis-server`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import { freePort } from "./free-port";

const CANDIDATES = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"];
/** `setpriv --pdeathsig KILL` (then exec): the kernel kills the server if the test process dies without stopping it. */
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));
const READY_TIMEOUT_MS = 10_000;

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** SIGKILL, as a crash would: connections drop without a goodbye. */
  kill(): Promise<void>;
  /** SIGSTOP: the server holds its connections and answers nothing (a hung Redis) until resume(). */
  pause(): void;
  resume(): void;
  /** SIGTERM, and waits for the process to end. */
  stop(): Promise<void>;
}

function redisServerBinary(): string {
  const found = CANDIDATES.find((path) => existsSync(path));
  if (!found) throw new Error(`redis-server not found (${CANDIDATES.join(", ")}): install Debian's package, apt-get install redis-server`);
  return found;
}

/** One PING over a raw connection: the server is up once it answers PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.setTimeout(500);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Starts a Redis on 127.0.0.1 at a free port (or `port`, to start one again where a killed one was). */
export async function startRedisServer(opts: { port?: number } = {}): Promise<RedisServer> {
  const port = opts.port ?? (await freePort());
  const serverArgs = [redisServerBinary(), "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"];
  const [command, ...args] = SETPRIV ? [SETPRIV, "--pdeathsig", "KILL", "--", ...serverArgs] : serverArgs;
  const child = spawn(command!, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`redis-server on port ${port} did not start: ${stderr.trim() || `exit ${child.exitCode}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async kill() {
      child.kill("SIGKILL");
      await ended(child);
    },
    pause() {
      child.kill("SIGSTOP");
    },
    resume() {
      child.kill("SIGCONT");
    },
    async stop() {
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      await ended(child);
    },
  };
}
