/** Settings shared by the parts of the local broker: version, ports, timeouts, where its files live. */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump together with infra/kafka/pom.xml: the cache folder is named after it. */
export const KAFKA_VERSION = '4.1.2';

export const DEFAULT_PORT = 9092;
export const DEFAULT_CONTROLLER_PORT = 9093;
/** Always the IPv4 loopback: Node may resolve `localhost` to ::1 while the broker binds IPv4. */
export const HOST = '127.0.0.1';
export const READY_TIMEOUT_MS = 60_000;
export const STOP_GRACE_MS = 20_000;
/** Per-run data dirs live in os.tmpdir() under this prefix. */
export const DATA_DIR_PREFIX = 'tawsil-kafka-';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '..');
export const POM = path.join(REPO_ROOT, 'infra', 'kafka', 'pom.xml');
export const LOG4J_CONFIG = path.join(REPO_ROOT, 'infra', 'kafka', 'log4j2.properties');

export type Log = (line: string) => void;

/** Default progress sink: stderr, so a cold first run (minutes of downloading) is never silent. */
export const stderrLog: Log = (line) => process.stderr.write(`[kafka] ${line}\n`);

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `${XDG_CACHE_HOME:-$HOME/.cache}/tawsil/kafka-<version>`: outside the repo so `git clean` keeps it. */
export function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'tawsil', `kafka-${KAFKA_VERSION}`);
}
